// ONNX DequantizeLinear: y = (x - zero_point) * scale, per tensor or per axis. The subtraction is
// done in integers (exact), then converted and scaled in float.
#include <string>

#include "runtime/kernels/int_common.h"
#include "runtime/kernels/kernels.h"

namespace loom::kernels {

Status DequantizeLinear(const TensorView& x, const TensorView& scale, const TensorView& zero_point,
                        int axis, const TensorView& y) {
  const bool int8_like = internal::IsInt8Like(x.dtype);
  if ((!int8_like && x.dtype != DType::kI32) || scale.dtype != DType::kF32 ||
      zero_point.dtype != x.dtype || y.dtype != DType::kF32) {
    return InvalidArgument(
        "dequantize-linear: x and zero_point must be u8, i8 or i32, scale and y f32");
  }
  if (!SameShape(x, y)) return InvalidArgument("dequantize-linear: y must have x's shape");
  const int64_t count = scale.NumElements();
  if (zero_point.NumElements() != count) {
    return InvalidArgument("dequantize-linear: scale and zero_point must have the same size");
  }
  int64_t channels = 1, inner = 1;
  if (count != 1) {
    if (axis < 0 || axis >= x.rank || x.shape[axis] != count) {
      return InvalidArgument("dequantize-linear: per-axis scale needs x.shape[axis] == " +
                             std::to_string(count));
    }
    channels = count;
    for (int i = axis + 1; i < x.rank; ++i) inner *= x.shape[i];
  }
  const float* s = scale.As<const float>();
  float* yd = y.As<float>();
  const int64_t n = x.NumElements();
  auto read = [&](const TensorView& v, int64_t i) -> int64_t {
    return int8_like ? internal::Int8Reader(v)(i) : v.As<const int32_t>()[i];
  };
  for (int64_t i = 0; i < n; ++i) {
    const int64_t c = (i / inner) % channels;
    yd[i] = static_cast<float>(read(x, i) - read(zero_point, c)) * s[c];
  }
  return Status::Ok();
}

}  // namespace loom::kernels
