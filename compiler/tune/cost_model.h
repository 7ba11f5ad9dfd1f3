// The cost model that picks which candidate schedules `loom tune` measures: ridge regression of
// log(cycles) on features of (layer, tiling), refitted after every batch of measurements. Small on
// purpose: a layer's search measures tens of candidates, too few for anything with more freedom.
// Its quality is reported as the Spearman rank correlation between what it predicted for a batch
// before measuring it and what the device measured.
#ifndef LOOM_COMPILER_TUNE_COST_MODEL_H_
#define LOOM_COMPILER_TUNE_COST_MODEL_H_

#include <cstdint>
#include <vector>

#include "compiler/tensorize/conv2d.h"
#include "runtime/core/hw_config.h"

namespace loom::tune {

// Schedule features: tile sizes and counts, buffer footprints, halo and remainder waste, and the
// per-module work of an analytic estimate, all on log scales (cycles span orders of magnitude).
std::vector<double> ScheduleFeatures(const HwConfig& config, const tensorize::Conv2dLayer& layer,
                                     const tensorize::Conv2dTiling& tiling);

class CostModel {
 public:
  explicit CostModel(double ridge = 1e-2) : ridge_(ridge) {}

  // Adds one measurement (features as ScheduleFeatures gives them).
  void Add(const std::vector<double>& features, uint64_t cycles);
  // Refits on everything added; false while there are too few points to fit (then Predict
  // returns 0 for every input and the search picks candidates without the model).
  bool Fit();
  bool fitted() const { return !weights_.empty(); }
  // Predicted log(cycles): only the order matters to the search.
  double Predict(const std::vector<double>& features) const;
  size_t size() const { return ys_.size(); }

 private:
  double ridge_;
  std::vector<std::vector<double>> xs_;
  std::vector<double> ys_;
  std::vector<double> mean_, scale_, weights_;
  double bias_ = 0.0;
};

// Spearman's rank correlation of two equally long series (ties take their mean rank); 0 when
// fewer than two points or either series is constant.
double SpearmanCorrelation(const std::vector<double>& a, const std::vector<double>& b);

}  // namespace loom::tune

#endif  // LOOM_COMPILER_TUNE_COST_MODEL_H_
