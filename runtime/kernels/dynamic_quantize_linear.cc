// ONNX DynamicQuantizeLinear, in float32 as the ONNX reference and ONNX Runtime compute it, so
// the rounding of x / scale lands on the same integers: scale = (max(0, x) - min(0, x)) / 255
// (1 / 255 for an all-zero x), zero point = round(clamp(-min / scale, 0, 255)).
#include <cmath>
#include <string>

#include "runtime/kernels/kernels_seq.h"

namespace loom::kernels {

Status DynamicQuantizeLinear(const TensorView& x, const TensorView& y, const TensorView& y_scale,
                             const TensorView& y_zero_point) {
  if (x.dtype != DType::kF32 || y.dtype != DType::kU8 || !SameShape(x, y) ||
      y_scale.dtype != DType::kF32 || y_scale.NumElements() != 1 ||
      y_zero_point.dtype != DType::kU8 || y_zero_point.NumElements() != 1) {
    return InvalidArgument(
        "dynamic_quantize_linear: x must be f32, y u8 of x's shape, y_scale one f32 and "
        "y_zero_point one u8");
  }
  const float* src = x.As<float>();
  const int64_t n = x.NumElements();
  float lo = 0.0f, hi = 0.0f;
  for (int64_t i = 0; i < n; ++i) {
    if (std::isnan(src[i])) {
      return InvalidArgument("dynamic_quantize_linear: x[" + std::to_string(i) +
                             "] is NaN; its range has no quantization");
    }
    lo = std::fmin(lo, src[i]);
    hi = std::fmax(hi, src[i]);
  }
  const float scale = (hi == lo ? 1.0f : hi - lo) / 255.0f;
  const float zp = std::nearbyint(std::fmax(0.0f, std::fmin(255.0f, 0.0f - lo / scale)));
  uint8_t* dst = y.As<uint8_t>();
  for (int64_t i = 0; i < n; ++i) {
    const float q = std::nearbyint(src[i] / scale) + zp;
    dst[i] = static_cast<uint8_t>(std::fmax(0.0f, std::fmin(255.0f, q)));
  }
  y_scale.As<float>()[0] = scale;
  y_zero_point.As<uint8_t>()[0] = static_cast<uint8_t>(zp);
  return Status::Ok();
}

}  // namespace loom::kernels
