// The tuning log `loom tune` writes and `loom compile --tuning-log` reads: JSON lines, one record
// per measured candidate and one "best" record per layer, each keyed by the layer's signature
// (tensorize::Conv2dSignature) and the config's hash. docs/tune.md describes the fields.
//
//   {"version":1,"kind":"measured","signature":"conv2d n1 c4 ...","config":"1x16x16",
//    "config_hash":"3fa2...","tiling":{"oc":4,"ic":4,"oh":14,"ow":14,"vt":2},
//    "cycles":123456,"device":"fsim"}
//
// and the model-level knobs, keyed by layer name, whose cycles are the whole model's:
//
//   {"version":1,"kind":"packing","layer":"/conv1/Conv","value":"off","config_hash":"3fa2...",
//    "cycles":9670000,"device":"fsim"}
//   {"version":1,"kind":"barrier","layer":"/layer2/.../Conv","value":"layer",...}
//
// Logs written before the knobs existed hold only the first two kinds and load unchanged.
// The parser rejects a malformed line naming the file, the line and the field; it never throws.
#ifndef LOOM_COMPILER_TUNE_TUNING_LOG_H_
#define LOOM_COMPILER_TUNE_TUNING_LOG_H_

#include <cstdint>
#include <string>
#include <vector>

#include "compiler/tensorize/schedule.h"
#include "runtime/core/status.h"

namespace loom::tune {

constexpr int kTuningLogVersion = 1;

struct TuningRecord {
  std::string kind = "measured";   // "measured" or "best" (tilings), "packing" or "barrier" (knobs)
  std::string signature;           // tilings: required; knobs: optional, for people
  std::string config;              // config name, for people; the hash is the key
  std::string config_hash;         // HwConfig::HashHex()
  tensorize::Conv2dTiling tiling;  // tilings only
  std::string layer;               // knobs: the layer's name (graph node)
  // knobs: "on" / "off" (first-layer packing of the layer), "auto" / "layer" (the barrier before
  // it: the weakest that keeps the order, or always the layer barrier)
  std::string value;
  uint64_t cycles = 0;
  std::string device;           // what measured it: "fsim", "tsim", "remote://..."
  uint64_t builtin_cycles = 0;  // "best" records: the built-in search's tiling on that device
};

// One record as one JSON line (no newline).
std::string FormatRecord(const TuningRecord& record);

// Parses log text; `source` names it in messages ("run.json:12: field 'tiling.oc': ...").
// Blank lines are skipped. Any other line that is not a valid record fails the whole log.
Status ParseTuningLog(const std::string& text, const std::string& source,
                      std::vector<TuningRecord>* out);
Status ReadTuningLog(const std::string& path, std::vector<TuningRecord>* out);

// Whether the kind is a model-level knob ("packing", "barrier") rather than a tiling.
bool IsKnobKind(const std::string& kind);

// The fastest record per signature (tilings) and per kind and layer (knobs) among those for
// `config_hash`; records for other configs are skipped (counted in *other_config when not null),
// so their layers take the built-in search and the default knobs.
tensorize::ScheduleTable BestSchedules(const std::vector<TuningRecord>& records,
                                       const std::string& config_hash,
                                       size_t* other_config = nullptr);

}  // namespace loom::tune

#endif  // LOOM_COMPILER_TUNE_TUNING_LOG_H_
