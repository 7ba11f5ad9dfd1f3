// `loom tune MODEL.onnx`: compiles the model as `loom compile` would (same calibration and config),
// collects its distinct accelerator convolutions by signature with the tiling the built-in search
// gives each, searches each layer's knobs on a device (search.h, measure.h), and writes the tuning
// log (tuning_log.h) that `loom compile --tuning-log` applies. docs/tune.md.
#ifndef LOOM_COMPILER_TUNE_TUNE_H_
#define LOOM_COMPILER_TUNE_TUNE_H_

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "compiler/pipeline/compile.h"
#include "compiler/tensorize/conv2d.h"
#include "compiler/tune/knobs.h"
#include "runtime/core/status.h"

namespace loom::tune {

struct TuneOptions {
  // Model, config or board, calibration, input shapes: as for `loom compile`, so the layers tuned
  // are the layers compiled. output_path is unused.
  pipeline::CompileOptions compile;
  std::string device = "fsim";  // measure.h
  std::string log_path;         // the tuning log to write (replaced)
  uint32_t trials = 64;         // per distinct layer
  double seconds = 0;           // whole run, shared out over the layers left; 0: no limit
  uint32_t seed = 1;
  uint32_t wall_timeout_ms = 300000;  // one simulated measurement
  std::ostream* progress = nullptr;   // progress lines (stderr in the tool); null: silent
  // After the tilings, search the model-level knobs (first-layer packing, barriers; knobs.h) on
  // fsim's timing model with the tuned tilings in place.
  bool knobs = true;
};

struct TunedLayer {
  std::string signature;
  std::string name;    // the first layer with this signature
  uint32_t count = 0;  // layers with this signature
  tensorize::Conv2dTiling builtin, best;
  uint64_t builtin_cycles = 0, best_cycles = 0;  // one run of the tiling on the device
  uint32_t trials = 0, failed = 0;
  uint64_t space = 0;
  double spearman = 0;  // cost model's rank correlation on this layer (0: too few pairs)
  uint32_t ranked = 0;  // pairs behind it
  // Cycles of every occurrence in the model: cycles x count.
  uint64_t ModelCycles(uint64_t cycles) const { return cycles * count; }
};

struct TuneReport {
  std::string config, config_hash, device;
  std::vector<TunedLayer> layers;
  uint64_t builtin_cycles = 0, best_cycles = 0;  // the convolutions of the whole model
  double spearman = 0;  // over every layer's pairs, each layer's ranks taken on its own
  uint32_t ranked = 0;
  uint32_t trials = 0;
  double seconds = 0;
  bool knobs_tuned = false;
  KnobReport knobs;  // the whole model with the tuned tilings: before and after the knobs
};

Status TuneModel(const TuneOptions& options, TuneReport* report);

// Per-layer table: before/after cycles, speed-up, trials, rank correlation; then the totals.
void PrintTuneReport(const TuneReport& report, std::ostream& os);

}  // namespace loom::tune

#endif  // LOOM_COMPILER_TUNE_TUNE_H_
