// Calibration: the activation ranges the quantizer turns into scales. The float graph runs on the
// reference interpreter over sample inputs and every float activation's |x| is observed:
//   minmax      range = max |x| over all samples
//   percentile  range = the P-th percentile of |x| (default P = 99.99), from a 2048-bin histogram
//               per value whose range doubles (merging bins) when a larger |x| arrives
// Sample inputs come from .npy files (N samples stacked on axis 0; NAME=FILE.npy for several
// inputs; each file of its input's own element type, so an int64 index or bool mask input is
// calibrated on the values it will see) or, when none are given, are random N(0, 1)
// (kDefaultSamples of them, fixed seed) with a warning: a model whose inputs are not roughly
// standard-normal then gets poor scales.
#ifndef LOOM_COMPILER_QUANTIZE_CALIBRATION_H_
#define LOOM_COMPILER_QUANTIZE_CALIBRATION_H_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <ostream>
#include <string>
#include <vector>

#include "compiler/ir/graph.h"
#include "runtime/core/status.h"

namespace loom::quantize {

enum class CalibrationMethod { kMinMax, kPercentile, kMse };
bool ParseCalibrationMethod(const std::string& name, CalibrationMethod* out);
const char* CalibrationMethodName(CalibrationMethod m);

constexpr int kDefaultSamples = 8;
constexpr double kDefaultPercentile = 99.99;

struct CalibrationOptions {
  CalibrationMethod method = CalibrationMethod::kPercentile;
  double percentile = kDefaultPercentile;
  std::ostream* progress = nullptr;  // "calibration: 40/100" lines, or nothing
  // Called after every sample with (done, total), for progress bars (the Python package's tqdm).
  std::function<void(size_t, size_t)> on_sample;
};

// One set of graph inputs, in graph-input order.
using Sample = std::vector<ir::Tensor>;

// Splits .npy files into samples. `specs` holds "FILE.npy" (only for a single-input graph) or
// "NAME=FILE.npy" per input. Each file is float32 [S * N, rest...] where the graph input is
// [N, rest...]; it gives S samples. All inputs must give the same number of samples.
Status LoadCalibrationSet(const ir::Graph& g, const std::vector<std::string>& specs,
                          std::vector<Sample>* out);
// `count` random N(0, 1) samples from `seed`.
Status RandomCalibrationSet(const ir::Graph& g, int count, uint32_t seed, std::vector<Sample>* out);

// The range (max |x|, or the percentile) of every f32 graph input and node output.
using Ranges = std::map<ir::ValueId, float>;
// The smallest and largest value seen (finite ones; lo <= 0 <= hi, as 0 must be representable),
// from which asymmetric activations take their sides of the range (quantize.h), and the range R
// of |x| that clips both sides on such a grid: the method's range, except that mse weighs
// rounding on the asymmetric grid's levels (255 over a one-sided value, not 127).
struct Extent {
  float lo = 0.0f, hi = 0.0f;
  float range = 0.0f;
};
using Extents = std::map<ir::ValueId, Extent>;
// `extents` may be null.
Status CollectRanges(const ir::Graph& g, const std::vector<Sample>& samples,
                     const CalibrationOptions& options, Ranges* out, Extents* extents = nullptr);

}  // namespace loom::quantize

#endif  // LOOM_COMPILER_QUANTIZE_CALIBRATION_H_
