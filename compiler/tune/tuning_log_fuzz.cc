// Fuzz target for the tuning log parser (tuning_log.h).
//
// Input: the bytes of a candidate log. ParseTuningLog may reject it, naming the source and line,
// but must not crash. Every record it accepts must survive FormatRecord -> ParseTuningLog
// unchanged. A violation is printed and the target abort()s.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "compiler/tune/tuning_log.h"

namespace {

[[noreturn]] void Fail(const char* what, const std::string& detail) {
  std::fprintf(stderr, "tuning_log_fuzz: %s\n%s\n", what, detail.c_str());
  std::fflush(stderr);
  std::abort();
}

bool Same(const loom::tune::TuningRecord& a, const loom::tune::TuningRecord& b) {
  return a.kind == b.kind && a.signature == b.signature && a.config == b.config &&
         a.config_hash == b.config_hash && a.tiling == b.tiling && a.cycles == b.cycles &&
         a.device == b.device && a.builtin_cycles == b.builtin_cycles && a.layer == b.layer &&
         a.value == b.value;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  std::vector<loom::tune::TuningRecord> records;
  loom::Status s = loom::tune::ParseTuningLog(text, "fuzz.json", &records);
  if (!s.ok()) {
    if (s.message().rfind("fuzz.json:", 0) != 0) Fail("error does not name the log", s.ToString());
    return 0;
  }
  std::string again;
  for (const auto& r : records) again += loom::tune::FormatRecord(r) + "\n";
  std::vector<loom::tune::TuningRecord> reparsed;
  s = loom::tune::ParseTuningLog(again, "again.json", &reparsed);
  if (!s.ok()) Fail("a formatted record is rejected", s.ToString() + "\n" + again);
  if (reparsed.size() != records.size()) Fail("record count changed", again);
  for (size_t i = 0; i < records.size(); ++i) {
    if (!Same(records[i], reparsed[i])) Fail("a record changed in the round trip", again);
  }
  (void)loom::tune::BestSchedules(records, "0123456789abcdef");
  return 0;
}
