// ONNX MeanVarianceNormalization: per group of cells that share the kept dims, the mean and the
// mean of squares (in double) over the reduced dims, then each cell normalized. The same two
// strided walks as reduce.cc; the inner one runs twice per group (statistics, then writes).
#include <cmath>
#include <string>

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
  outer.rank = inner.rank = x.rank;
  int64_t count = 1;
  for (int d = 0; d < x.rank; ++d) {
    const bool reduced = (axes >> d) & 1u;
    outer.shape[d] = reduced ? 1 : x.shape[d];
    inner.shape[d] = reduced ? x.shape[d] : 1;
    outer.strides[0][d] = inner.strides[0][d] = x.strides[d];
    if (reduced) count *= x.shape[d];
  }
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
