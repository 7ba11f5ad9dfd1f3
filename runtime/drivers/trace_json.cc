#include "runtime/drivers/trace_json.h"

#include <cstdio>

namespace loom::runtime {

std::string TraceBuilder::Escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof(buf), "\\u%04x", c);
      out += buf;
    } else {
      out += c;
    }
  }
  return out;
}

void TraceBuilder::Begin(const std::string& process, const char* const* tracks, int count) {
  if (!events_.empty()) return;
  events_ += "{\"ph\":\"M\",\"pid\":1,\"name\":\"process_name\",\"args\":{\"name\":\"" +
             Escape(process) + "\"}}";
  for (int i = 0; i < count; ++i) {
    events_ += ",{\"ph\":\"M\",\"pid\":1,\"tid\":" + std::to_string(i) +
               ",\"name\":\"thread_name\",\"args\":{\"name\":\"" + Escape(tracks[i]) + "\"}}";
  }
  events_ += ",{\"ph\":\"M\",\"pid\":1,\"tid\":" + std::to_string(segment_track_) +
             ",\"name\":\"thread_name\",\"args\":{\"name\":\"segments\"}}";
}

void TraceBuilder::Event(int track, const std::string& name, const char* category, uint64_t begin,
                         uint64_t end, const std::string& args_json) {
  char times[96];
  std::snprintf(times, sizeof(times), "\"ts\":%.4f,\"dur\":%.4f",
                static_cast<double>(offset_ + begin) / clock_mhz_,
                static_cast<double>(end - begin) / clock_mhz_);
  events_ += ",{\"ph\":\"X\",\"pid\":1,\"tid\":" + std::to_string(track) + ",\"name\":\"" +
             Escape(name) + "\",\"cat\":\"" + category + "\"," + times + ",\"args\":" +
             (args_json.empty() ? std::string("{}") : args_json) + "}";
}

void TraceBuilder::EndSubmission(const std::string& label, uint64_t cycles) {
  Event(segment_track_, label.empty() ? std::string("submission") : label, "segment", 0, cycles,
        "{\"cycles\":" + std::to_string(cycles) + ",\"start_cycle\":" + std::to_string(offset_) + "}");
  offset_ += cycles;
}

std::string TraceBuilder::Json() const {
  return "{\"traceEvents\":[" + events_ + "],\"displayTimeUnit\":\"ns\"}";
}

}  // namespace loom::runtime
