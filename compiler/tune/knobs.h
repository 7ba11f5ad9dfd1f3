// The model-level knobs of `loom tune`: first-layer packing of each convolution the pass packs, and
// the barrier before each layer that got the weaker buffer barrier (forcing the layer barrier).
// They change the code around a layer rather than the layer, so a candidate is the whole model's
// accelerator code, timed on fsim's timing model (every accelerator segment, summed). The search
// is greedy: each knob is flipped from its current value alone and kept when the model gets
// faster; both values are logged with the model's cycles. docs/tune.md.
#ifndef LOOM_COMPILER_TUNE_KNOBS_H_
#define LOOM_COMPILER_TUNE_KNOBS_H_

#include <cstdint>
#include <functional>
#include <ostream>
#include <string>
#include <vector>

#include "compiler/pipeline/compile.h"
#include "compiler/tensorize/schedule.h"
#include "compiler/tune/tuning_log.h"
#include "runtime/core/status.h"

namespace loom::tune {

struct KnobChoice {
  std::string kind;                                 // "packing" or "barrier"
  std::string layer;                                // the layer's name
  std::string value;                                // the value kept
  uint64_t default_cycles = 0, flipped_cycles = 0;  // the model, before and with the flip
};

struct KnobReport {
  uint64_t before = 0, after = 0;  // the model's accelerator cycles (fsim timing model)
  std::vector<KnobChoice> knobs;
};

// The accelerator cycles of the model compiled with `table` (tilings, packing, barriers), on
// fsim's timing model. `compiled` is reused when not null (its packing must match the table's).
Status ModelCycles(const pipeline::CompileOptions& options, const tensorize::ScheduleTable& table,
                   const pipeline::CompileResult* compiled, uint64_t* cycles,
                   std::vector<std::string>* buffer_barriers = nullptr,
                   std::vector<std::string>* packed = nullptr);

// Searches the knobs starting from `table` (its tilings are kept), adds what it keeps to `table`,
// and passes every measurement to `log` as a record (config and device fields left to the caller).
Status TuneKnobs(const pipeline::CompileOptions& options, tensorize::ScheduleTable* table,
                 const std::function<void(TuningRecord)>& log, std::ostream* progress,
                 KnobReport* report);

}  // namespace loom::tune

#endif  // LOOM_COMPILER_TUNE_KNOBS_H_
