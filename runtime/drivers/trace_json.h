// Building a Chrome/Perfetto trace-event timeline from many device submissions laid end to end
// (shared by the simulator drivers; no JSON library, so drivers stay exception-free).
#ifndef LOOM_RUNTIME_DRIVERS_TRACE_JSON_H_
#define LOOM_RUNTIME_DRIVERS_TRACE_JSON_H_

#include <cstdint>
#include <string>

namespace loom::runtime {

class TraceBuilder {
 public:
  // One track per module name, under one process named `process`.
  void Begin(const std::string& process, const char* const* tracks, int count);
  // An interval in device cycles relative to the current submission's start.
  void Event(int track, const std::string& name, const char* category, uint64_t begin,
             uint64_t end, const std::string& args_json);
  // Ends a submission of `cycles` cycles; the next starts after it. `label` names it on a
  // separate "segments" track.
  void EndSubmission(const std::string& label, uint64_t cycles);
  void set_clock_mhz(double mhz) { clock_mhz_ = mhz; }
  std::string Json() const;
  bool empty() const { return events_.empty(); }

  static std::string Escape(const std::string& s);

 private:
  std::string events_;
  uint64_t offset_ = 0;
  double clock_mhz_ = 100.0;
  int segment_track_ = 100;
};

}  // namespace loom::runtime

#endif  // LOOM_RUNTIME_DRIVERS_TRACE_JSON_H_
