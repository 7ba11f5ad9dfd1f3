// ONNX QLinearConv: the ConvInteger accumulation (conv_common.h) plus an optional i32 bias, then
// requantization to the output's u8/i8 with the per-output-channel multiplier
// x_scale * w_scale[oc] / y_scale (w_scale and w_zero_point may be per channel).
#include "runtime/kernels/conv_common.h"
#include "runtime/kernels/int_common.h"
#include "runtime/kernels/kernels.h"

namespace loom::kernels {

Status QLinearConv(const ConvParams& p, const TensorView& x, QuantOperand xq, const TensorView& w,
                   QuantOperand wq, QuantOperand yq, const TensorView* bias, const TensorView& y) {
  if (!internal::IsInt8Like(x.dtype) || !internal::IsInt8Like(w.dtype) ||
      !internal::IsInt8Like(y.dtype)) {
    return InvalidArgument("qlinear-conv: x, w and y must be u8 or i8");
  }
  LOOM_RETURN_IF_ERROR(internal::CheckConvShapes(p, x, w, y));
  const int64_t m = w.shape[0];
  float x_scale = 0, y_scale = 0;
  LOOM_RETURN_IF_ERROR(internal::ScalarScale(xq.scale, "qlinear-conv x_scale", &x_scale));
  LOOM_RETURN_IF_ERROR(internal::ScalarScale(yq.scale, "qlinear-conv y_scale", &y_scale));
  if (wq.scale == nullptr || wq.scale->dtype != DType::kF32 ||
      (wq.scale->NumElements() != 1 && wq.scale->NumElements() != m)) {
    return InvalidArgument("qlinear-conv: w_scale must be f32 with 1 or " + std::to_string(m) +
                           " values");
  }
  int32_t xz = 0, yz = 0;
  LOOM_RETURN_IF_ERROR(
      internal::ScalarZeroPoint(xq.zero_point, x.dtype, "qlinear-conv x_zero_point", &xz));
  LOOM_RETURN_IF_ERROR(
      internal::ScalarZeroPoint(yq.zero_point, y.dtype, "qlinear-conv y_zero_point", &yz));
  internal::ZeroPoints wz;
  LOOM_RETURN_IF_ERROR(
      internal::ChannelZeroPoints(wq.zero_point, w.dtype, m, "qlinear-conv w_zero_point", &wz));
  const int32_t* b = nullptr;
  if (bias != nullptr) {
    if (bias->dtype != DType::kI32 || bias->NumElements() != m) {
      return InvalidArgument("qlinear-conv: bias must be i32 with one value per output channel");
    }
    b = bias->As<const int32_t>();
  }
  const float* ws = wq.scale->As<const float>();
  const bool per_channel_scale = wq.scale->NumElements() != 1;
  const internal::Int8Reader xr(x), wr(w);
  internal::ConvLoop<int64_t>(
      p, x, w, y, [&](int64_t i) { return int64_t{xr(i) - xz}; },
      [&](int64_t i, int64_t oc) { return int64_t{wr(i) - wz(oc)}; },
      [&](int64_t i, int64_t oc, int64_t acc) {
        const float multiplier = x_scale * ws[per_channel_scale ? oc : 0] / y_scale;
        const int64_t total = int64_t{internal::WrapToI32(acc + (b ? b[oc] : 0))};
        internal::StoreInt8(y, i, internal::Requantize(total, multiplier, yz, y.dtype));
      });
  return Status::Ok();
}

}  // namespace loom::kernels
