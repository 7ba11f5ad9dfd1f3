// Hardmax along one axis: a one-hot line marking the first maximum of each line of
// [outer, axis, inner].
#include "runtime/kernels/kernels_reduce.h"

namespace loom::kernels {

Status Hardmax(const TensorView& x, int axis, const TensorView& y) {
  if (x.dtype != DType::kF32 || y.dtype != DType::kF32 || !SameShape(x, y)) {
    return InvalidArgument("hardmax: x and y must be f32 of the same shape");
  }
  if (axis < 0 || axis >= x.rank) return InvalidArgument("hardmax: axis out of range");
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
      int64_t best = 0;
      for (int64_t j = 1; j < len; ++j) {
        if (xd[base + j * inner] > xd[base + best * inner]) best = j;
      }
      for (int64_t j = 0; j < len; ++j) yd[base + j * inner] = j == best ? 1.0f : 0.0f;
    }
  }
  return Status::Ok();
}

}  // namespace loom::kernels
