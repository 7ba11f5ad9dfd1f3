// ONNX ConvInteger: u8/i8 inputs and weights with zero points, exact i32 accumulation. The
// accumulator is 64-bit and wrapped to 32 bits on store, so a sum that overflows i32 wraps the way
// an i32 accumulator on the accelerator would, instead of being undefined behaviour.
#include "runtime/kernels/conv_common.h"
#include "runtime/kernels/int_common.h"
#include "runtime/kernels/kernels.h"

namespace loom::kernels {

Status ConvInteger(const ConvParams& p, const TensorView& x, const TensorView& w,
                   const TensorView* x_zp, const TensorView* w_zp, const TensorView& y) {
  if (!internal::IsInt8Like(x.dtype) || !internal::IsInt8Like(w.dtype) || y.dtype != DType::kI32) {
    return InvalidArgument("conv-integer: x and w must be u8 or i8, y i32");
  }
  LOOM_RETURN_IF_ERROR(internal::CheckConvShapes(p, x, w, y));
  int32_t xz = 0;
  LOOM_RETURN_IF_ERROR(internal::ScalarZeroPoint(x_zp, x.dtype, "conv-integer x_zero_point", &xz));
  internal::ZeroPoints wz;
  LOOM_RETURN_IF_ERROR(
      internal::ChannelZeroPoints(w_zp, w.dtype, w.shape[0], "conv-integer w_zero_point", &wz));
  const internal::Int8Reader xr(x), wr(w);
  int32_t* yd = y.As<int32_t>();
  internal::ConvLoop<int64_t>(
      p, x, w, y, [&](int64_t i) { return int64_t{xr(i) - xz}; },
      [&](int64_t i, int64_t oc) { return int64_t{wr(i) - wz(oc)}; },
      [yd](int64_t i, int64_t, int64_t acc) { yd[i] = internal::WrapToI32(acc); });
  return Status::Ok();
}

}  // namespace loom::kernels
