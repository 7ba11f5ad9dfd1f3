// Softmax along one axis (opset-13 semantics): the tensor is seen as [outer, axis, inner] and each
// of the outer * inner lines is normalised. The line maximum is subtracted before exp so large
// inputs do not overflow.
#include <cmath>

#include "runtime/kernels/kernels.h"

namespace loom::kernels {

Status Softmax(const TensorView& x, int axis, const TensorView& y) {
  if (x.dtype != DType::kF32 || y.dtype != DType::kF32 || !SameShape(x, y)) {
    return InvalidArgument("softmax: x and y must be f32 of the same shape");
  }
  if (axis < 0 || axis >= x.rank) return InvalidArgument("softmax: axis out of range");
  // Nothing to normalise; the loops below could otherwise spin over an empty tensor's other dims.
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
      float sum = 0.0f;
      for (int64_t j = 0; j < len; ++j) {
        const float e = std::exp(xd[base + j * inner] - mx);
        yd[base + j * inner] = e;
        sum += e;
      }
      for (int64_t j = 0; j < len; ++j) yd[base + j * inner] /= sum;
    }
  }
  return Status::Ok();
}

}  // namespace loom::kernels
