// ONNX BatchNormalization with training_mode=1 (opset 14+): normalizes with the batch's own
// statistics -- per channel, mean and population variance over N and the spatial dims, in
// double -- and returns the running statistics updated with `momentum`. Deterministic: the
// same input gives the same bits (no dropout-like randomness in this op).
#include <cmath>

#include "runtime/kernels/kernels_vision2.h"

namespace loom::kernels {

Status BatchNormTraining(const TensorView& x, const TensorView& scale, const TensorView& bias,
                         const TensorView& mean, const TensorView& var, float epsilon,
                         float momentum, const TensorView& y, const TensorView* running_mean,
                         const TensorView* running_var) {
  const TensorView* params[] = {&scale, &bias, &mean, &var, running_mean, running_var};
  if (x.dtype != DType::kF32 || y.dtype != DType::kF32 || x.rank < 2 || !SameShape(x, y)) {
    return InvalidArgument("batch-norm-training: x and y must be f32 [N, C, ...] of one shape");
  }
  const int64_t n = x.shape[0], c = x.shape[1];
  for (const TensorView* v : params) {
    if (v != nullptr && (v->dtype != DType::kF32 || v->rank != 1 || v->shape[0] != c)) {
      return InvalidArgument(
          "batch-norm-training: scale, bias, mean, var and the running "
          "statistics must be f32 [" +
          std::to_string(c) + "]");
    }
  }
  int64_t inner = 1;
  for (int i = 2; i < x.rank; ++i) inner *= x.shape[i];
  const int64_t count = n * inner;
  if (count == 0) return InvalidArgument("batch-norm-training: no elements per channel");
  const float* xd = x.As<const float>();
  float* yd = y.As<float>();
  for (int64_t ch = 0; ch < c; ++ch) {
    double sum = 0.0;
    for (int64_t b = 0; b < n; ++b) {
      const float* p = xd + (b * c + ch) * inner;
      for (int64_t i = 0; i < inner; ++i) sum += p[i];
    }
    const double mu = sum / static_cast<double>(count);
    double sq = 0.0;
    for (int64_t b = 0; b < n; ++b) {
      const float* p = xd + (b * c + ch) * inner;
      for (int64_t i = 0; i < inner; ++i) sq += (p[i] - mu) * (p[i] - mu);
    }
    const double variance = sq / static_cast<double>(count);
    const double k = scale.As<const float>()[ch] / std::sqrt(variance + epsilon);
    const double shift = bias.As<const float>()[ch];
    for (int64_t b = 0; b < n; ++b) {
      const float* p = xd + (b * c + ch) * inner;
      float* q = yd + (b * c + ch) * inner;
      for (int64_t i = 0; i < inner; ++i) q[i] = static_cast<float>((p[i] - mu) * k + shift);
    }
    if (running_mean != nullptr) {
      running_mean->As<float>()[ch] = static_cast<float>(
          mean.As<const float>()[ch] * static_cast<double>(momentum) + mu * (1.0 - momentum));
    }
    if (running_var != nullptr) {
      running_var->As<float>()[ch] = static_cast<float>(
          var.As<const float>()[ch] * static_cast<double>(momentum) + variance * (1.0 - momentum));
    }
  }
  return Status::Ok();
}

}  // namespace loom::kernels
