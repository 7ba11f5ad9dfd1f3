// ONNX QuantizeLinear: y = saturate(round_half_even(x / scale) + zero_point), per tensor or per
// axis. The division is a true float division (not a multiply by 1/scale), as the spec writes it;
// the two differ in the last bit for some scales, which decides ties.
#include <cmath>
#include <string>

#include "runtime/kernels/int_common.h"
#include "runtime/kernels/kernels.h"

namespace loom::kernels {

Status QuantizeLinear(const TensorView& x, const TensorView& scale, const TensorView& zero_point,
                      int axis, const TensorView& y) {
  if ((x.dtype != DType::kF32 && x.dtype != DType::kI32) || !internal::IsInt8Like(y.dtype) ||
      scale.dtype != DType::kF32 || zero_point.dtype != y.dtype) {
    return InvalidArgument(
        "quantize-linear: x must be f32 or i32, scale f32, y and zero_point both u8 or i8");
  }
  if (!SameShape(x, y)) return InvalidArgument("quantize-linear: y must have x's shape");
  const int64_t count = scale.NumElements();
  if (zero_point.NumElements() != count) {
    return InvalidArgument("quantize-linear: scale and zero_point must have the same size");
  }
  int64_t channels = 1, inner = 1;
  if (count != 1) {
    if (axis < 0 || axis >= x.rank || x.shape[axis] != count) {
      return InvalidArgument("quantize-linear: per-axis scale needs x.shape[axis] == " +
                             std::to_string(count));
    }
    channels = count;
    for (int i = axis + 1; i < x.rank; ++i) inner *= x.shape[i];
  }
  const float* s = scale.As<const float>();
  const internal::Int8Reader zr(zero_point);
  const int32_t lo = internal::QMin(y.dtype), hi = internal::QMax(y.dtype);
  const int64_t n = x.NumElements();
  for (int64_t i = 0; i < n; ++i) {
    const int64_t c = (i / inner) % channels;
    const float v = x.dtype == DType::kF32 ? x.As<const float>()[i]
                                           : static_cast<float>(x.As<const int32_t>()[i]);
    float q = RoundHalfToEven(v / s[c]) + static_cast<float>(zr(c));
    // Saturate in float first: the int conversion of an out-of-range float is undefined. NaN
    // saturates to the low end.
    if (!(q >= static_cast<float>(lo))) q = static_cast<float>(lo);
    if (q > static_cast<float>(hi)) q = static_cast<float>(hi);
    internal::StoreInt8(y, i, static_cast<int32_t>(q));
  }
  return Status::Ok();
}

}  // namespace loom::kernels
