// ONNX GlobalAveragePool: the mean of each [N, C] plane over all spatial dims. Sums in double so
// large planes (e.g. 7x7x2048 feature maps) do not lose low bits.
#include "runtime/kernels/kernels.h"

namespace loom::kernels {

Status GlobalAvgPool(const TensorView& x, const TensorView& y) {
  if (x.dtype != DType::kF32 || y.dtype != DType::kF32) {
    return InvalidArgument("global-avg-pool: x and y must be f32");
  }
  if (x.rank < 3 || y.rank != x.rank || y.shape[0] != x.shape[0] || y.shape[1] != x.shape[1]) {
    return InvalidArgument("global-avg-pool: x must be [N, C, ...] and y [N, C, 1, ...]");
  }
  int64_t inner = 1;
  for (int i = 2; i < x.rank; ++i) {
    inner *= x.shape[i];
    if (y.shape[i] != 1) return InvalidArgument("global-avg-pool: y's spatial dims must be 1");
  }
  if (inner == 0) return InvalidArgument("global-avg-pool: empty spatial extent");
  const float* xd = x.As<const float>();
  float* yd = y.As<float>();
  const int64_t planes = x.shape[0] * x.shape[1];
  for (int64_t p = 0; p < planes; ++p) {
    double sum = 0.0;
    for (int64_t i = 0; i < inner; ++i) sum += xd[p * inner + i];
    yd[p] = static_cast<float>(sum / static_cast<double>(inner));
  }
  return Status::Ok();
}

}  // namespace loom::kernels
