// ONNX MeanVarianceNormalization: per group of cells that share the kept dims, the mean and the
// mean of squares (in double) over the reduced dims, then each cell normalized. The same two
// strided walks as reduce.cc (axis_walk.h); the inner one runs twice per group (statistics, then
// writes).
#include <cmath>
#include <string>

#include "runtime/kernels/axis_walk.h"
#include "runtime/kernels/kernels_reduce.h"

namespace loom::kernels {

Status MeanVarianceNorm(const TensorView& x, uint32_t axes, const TensorView& y) {
  if (x.dtype != DType::kF32 || y.dtype != DType::kF32 || !SameShape(x, y)) {
    return InvalidArgument("mean-variance-norm: x and y must be f32 of the same shape");
  }
  if (x.rank < kMaxRank && (axes >> x.rank) != 0) {
    return InvalidArgument("mean-variance-norm: an axis lies beyond x's rank " +
                           std::to_string(x.rank));
  }
  if (x.NumElements() == 0) return Status::Ok();
  IndexWalker<1> outer, inner;
  const int64_t count = SplitReducedDims(x, axes, &outer, &inner);
  const float* xd = x.As<const float>();
  float* yd = y.As<float>();
  do {
    IndexWalker<1> w = inner;
    w.offset[0] = outer.offset[0];
    double sum = 0.0, sq = 0.0;
    do {
      const double v = xd[w.offset[0]];
      sum += v;
      sq += v * v;
    } while (w.Next());
    const double mean = sum / static_cast<double>(count);
    const double var = sq / static_cast<double>(count) - mean * mean;
    const double denom = std::sqrt(var > 0.0 ? var : 0.0) + 1e-9;
    w = inner;
    w.offset[0] = outer.offset[0];
    do {
      yd[w.offset[0]] = static_cast<float>((xd[w.offset[0]] - mean) / denom);
    } while (w.Next());
  } while (outer.Next());
  return Status::Ok();
}

}  // namespace loom::kernels
