// The per-layer search of `loom tune`: which tilings of one convolution to measure, in AutoTVM's
// loop. The knob space is every (oc, ic, oh, ow, virtual threads) whose tile sizes give a distinct
// tile count and whose regions fit the buffers. The first trial is the built-in search's choice,
// so the result is never slower than it on the measuring device. Then, batch after batch:
// simulated annealing over the knobs, with the cost model (cost_model.h) as its energy, proposes
// the unmeasured candidates it predicts fastest (plus a few random ones, so a poor model cannot
// trap the search); they are measured, and the model is refitted on every measurement so far.
#ifndef LOOM_COMPILER_TUNE_SEARCH_H_
#define LOOM_COMPILER_TUNE_SEARCH_H_

#include <chrono>
#include <cstdint>
#include <functional>
#include <vector>

#include "compiler/tensorize/conv2d.h"
#include "compiler/tune/measure.h"
#include "runtime/core/hw_config.h"

namespace loom::tune {

struct SearchOptions {
  uint32_t trials = 64;  // measurements, the built-in choice included
  uint32_t batch = 8;    // candidates measured between two fits of the model
  // No new batch starts after this (the search always measures the built-in choice).
  std::chrono::steady_clock::time_point deadline = std::chrono::steady_clock::time_point::max();
  uint32_t seed = 1;
  // Every measurement, as it lands (the tuning log's "measured" records).
  std::function<void(const tensorize::Conv2dTiling&, uint64_t cycles)> on_measured;
  // After every batch: trials so far and the best cycles so far.
  std::function<void(uint32_t trials, uint64_t best_cycles)> on_batch;
};

struct SearchResult {
  tensorize::Conv2dTiling best;
  uint64_t best_cycles = 0;
  uint64_t builtin_cycles = 0;  // the built-in choice on the same device
  uint32_t trials = 0;          // measurements made (failed ones included)
  uint32_t failed = 0;          // candidates the emitter or the device refused
  uint64_t space = 0;           // tilings in the knob space
  // What the model predicted for each candidate it proposed, before it was measured, and the
  // measurement: the pairs behind the reported rank correlation.
  std::vector<double> predicted, measured;
};

// Every tiling of the knob space (exposed for tests and the documentation's space sizes).
std::vector<tensorize::Conv2dTiling> KnobSpace(const HwConfig& config,
                                               const tensorize::Conv2dLayer& layer);

Status SearchLayer(const HwConfig& config, const tensorize::Conv2dLayer& layer,
                   const tensorize::Conv2dTiling& builtin, Measurer* measurer,
                   const SearchOptions& options, SearchResult* out);

}  // namespace loom::tune

#endif  // LOOM_COMPILER_TUNE_SEARCH_H_
