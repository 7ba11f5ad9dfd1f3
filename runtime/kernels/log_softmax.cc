// LogSoftmax along one axis: x - max - log(sum(exp(x - max))) per line of [outer, axis, inner],
// the maximum subtracted first so large inputs neither overflow nor lose the small terms.
#include <cmath>

#include "runtime/kernels/kernels_reduce.h"

namespace loom::kernels {

Status LogSoftmax(const TensorView& x, int axis, const TensorView& y) {
  if (x.dtype != DType::kF32 || y.dtype != DType::kF32 || !SameShape(x, y)) {
    return InvalidArgument("log-softmax: x and y must be f32 of the same shape");
  }
  if (axis < 0 || axis >= x.rank) return InvalidArgument("log-softmax: axis out of range");
  if (x.NumElements() == 0) return Status::Ok();
  int64_t outer = 1, inner = 1;
  for (int i = 0; i < axis; ++i) outer *= x.shape[i];
  for (int i = axis + 1; i < x.rank; ++i) inner *= x.shape[i];
  const int64_t len = x.shape[axis];
  const float* xd = x.As<const float>();
  float* yd = y.As<float>();
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t in = 0; in < inner; ++in) {
      const int64_t base = o * len * inner + in;
      float mx = -INFINITY;
      for (int64_t j = 0; j < len; ++j) mx = std::fmax(mx, xd[base + j * inner]);
      double sum = 0.0;
      for (int64_t j = 0; j < len; ++j) sum += std::exp(double(xd[base + j * inner]) - mx);
      const double lse = std::log(sum);
      for (int64_t j = 0; j < len; ++j) {
        yd[base + j * inner] = static_cast<float>(double(xd[base + j * inner]) - mx - lse);
      }
    }
  }
  return Status::Ok();
}

}  // namespace loom::kernels
