// ONNX InstanceNormalization on f32: per [n, c] plane, mean and variance over the spatial dims
// (in double), then (x - mean) / sqrt(var + epsilon) * scale[c] + bias[c].
#include <cmath>

#include "runtime/kernels/kernels_vision.h"

namespace loom::kernels {

Status InstanceNorm(const TensorView& x, const TensorView& scale, const TensorView& bias,
                    float epsilon, const TensorView& y) {
  if (x.dtype != DType::kF32 || y.dtype != DType::kF32 || !SameShape(x, y) || x.rank < 3) {
    return InvalidArgument("instance-norm: x and y must be f32 [N, C, D1, ...] of the same shape");
  }
  const int64_t channels = x.shape[1];
  if (scale.dtype != DType::kF32 || bias.dtype != DType::kF32 || scale.NumElements() != channels ||
      bias.NumElements() != channels) {
    return InvalidArgument(
        "instance-norm: scale and bias must be f32 with one value per channel (" +
        std::to_string(channels) + ")");
  }
  int64_t inner = 1;
  for (int i = 2; i < x.rank; ++i) inner *= x.shape[i];
  const float* xd = x.As<const float>();
  float* yd = y.As<float>();
  const float* sd = scale.As<const float>();
  const float* bd = bias.As<const float>();
  const int64_t planes = x.shape[0] * channels;
  for (int64_t p = 0; p < planes; ++p) {
    const float* xp = xd + p * inner;
    float* yp = yd + p * inner;
    double sum = 0, sq = 0;
    for (int64_t i = 0; i < inner; ++i) sum += xp[i];
    const double mu = inner > 0 ? sum / static_cast<double>(inner) : 0.0;
    for (int64_t i = 0; i < inner; ++i) sq += (xp[i] - mu) * (xp[i] - mu);
    const double var = inner > 0 ? sq / static_cast<double>(inner) : 0.0;
    const double inv = 1.0 / std::sqrt(var + static_cast<double>(epsilon));
    const int64_t c = p % channels;
    for (int64_t i = 0; i < inner; ++i) {
      yp[i] = static_cast<float>((xp[i] - mu) * inv) * sd[c] + bd[c];
    }
  }
  return Status::Ok();
}

}  // namespace loom::kernels
