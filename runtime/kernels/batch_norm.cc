// Inference BatchNormalization over axis 1. The per-channel affine form (a = scale / sqrt(var +
// eps), b = bias - mean * a) is what batchnorm-folding bakes into Conv/Gemm weights; this kernel
// evaluates the textbook expression instead, so folding is checked against an independent formula.
#include <cmath>

#include "runtime/kernels/kernels.h"

namespace loom::kernels {

Status BatchNorm(const TensorView& x, const TensorView& scale, const TensorView& bias,
                 const TensorView& mean, const TensorView& var, float epsilon,
                 const TensorView& y) {
  if (x.dtype != DType::kF32 || y.dtype != DType::kF32) {
    return InvalidArgument("batch-norm: x and y must be f32");
  }
  if (x.rank < 2 || !SameShape(x, y)) {
    return InvalidArgument("batch-norm: x must have rank >= 2 and y its shape");
  }
  const int64_t channels = x.shape[1];
  for (const TensorView* p : {&scale, &bias, &mean, &var}) {
    if (p->dtype != DType::kF32 || p->NumElements() != channels) {
      return InvalidArgument("batch-norm: scale, bias, mean and var must be f32 [C]");
    }
  }
  int64_t inner = 1;
  for (int i = 2; i < x.rank; ++i) inner *= x.shape[i];
  const float* xd = x.As<const float>();
  float* yd = y.As<float>();
  const float *s = scale.As<const float>(), *b = bias.As<const float>();
  const float *mu = mean.As<const float>(), *v = var.As<const float>();
  for (int64_t n = 0; n < x.shape[0]; ++n) {
    for (int64_t c = 0; c < channels; ++c) {
      const float denom = std::sqrt(v[c] + epsilon);
      const int64_t base = (n * channels + c) * inner;
      for (int64_t i = 0; i < inner; ++i) {
        yd[base + i] = (xd[base + i] - mu[c]) / denom * s[c] + b[c];
      }
    }
  }
  return Status::Ok();
}

}  // namespace loom::kernels
