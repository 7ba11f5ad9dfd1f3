// ONNX GlobalMaxPool: the maximum of each [N, C] plane over all spatial dims (NaN propagates).
#include "runtime/kernels/kernels_vision.h"

namespace loom::kernels {

Status GlobalMaxPool(const TensorView& x, const TensorView& y) {
  if (x.dtype != DType::kF32 || y.dtype != DType::kF32) {
    return InvalidArgument("global-max-pool: x and y must be f32");
  }
  if (x.rank < 3 || y.rank != x.rank || y.shape[0] != x.shape[0] || y.shape[1] != x.shape[1]) {
    return InvalidArgument("global-max-pool: x must be [N, C, ...] and y [N, C, 1, ...]");
  }
  int64_t inner = 1;
  for (int i = 2; i < x.rank; ++i) {
    inner *= x.shape[i];
    if (y.shape[i] != 1) return InvalidArgument("global-max-pool: y's spatial dims must be 1");
  }
  if (inner == 0) return InvalidArgument("global-max-pool: empty spatial extent");
  const float* xd = x.As<const float>();
  float* yd = y.As<float>();
  const int64_t planes = x.shape[0] * x.shape[1];
  for (int64_t p = 0; p < planes; ++p) {
    float m = xd[p * inner];
    for (int64_t i = 1; i < inner; ++i) {
      const float v = xd[p * inner + i];
      if (v > m || v != v) m = v;
      if (m != m) break;
    }
    yd[p] = m;
  }
  return Status::Ok();
}

}  // namespace loom::kernels
