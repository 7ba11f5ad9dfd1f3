// ONNX QLinearMatMul with per-tensor quantization: integer matmul of (a - a_zp) and (b - b_zp),
// then requantization with the float multiplier a_scale * b_scale / y_scale.
#include "runtime/kernels/int_common.h"
#include "runtime/kernels/kernels.h"
#include "runtime/kernels/matmul_common.h"

namespace loom::kernels {

Status QLinearMatMul(const TensorView& a, QuantOperand aq, const TensorView& b, QuantOperand bq,
                     QuantOperand yq, const TensorView& y) {
  if (!internal::IsInt8Like(a.dtype) || !internal::IsInt8Like(b.dtype) ||
      !internal::IsInt8Like(y.dtype)) {
    return InvalidArgument("qlinear-matmul: a, b and y must be u8 or i8");
  }
  internal::MatMulGeometry g;
  LOOM_RETURN_IF_ERROR(internal::PlanMatMul(a, b, y, &g));
  float a_scale = 0, b_scale = 0, y_scale = 0;
  LOOM_RETURN_IF_ERROR(internal::ScalarScale(aq.scale, "qlinear-matmul a_scale", &a_scale));
  LOOM_RETURN_IF_ERROR(internal::ScalarScale(bq.scale, "qlinear-matmul b_scale", &b_scale));
  LOOM_RETURN_IF_ERROR(internal::ScalarScale(yq.scale, "qlinear-matmul y_scale", &y_scale));
  int32_t az = 0, bz = 0, yz = 0;
  LOOM_RETURN_IF_ERROR(
      internal::ScalarZeroPoint(aq.zero_point, a.dtype, "qlinear-matmul a_zero_point", &az));
  LOOM_RETURN_IF_ERROR(
      internal::ScalarZeroPoint(bq.zero_point, b.dtype, "qlinear-matmul b_zero_point", &bz));
  LOOM_RETURN_IF_ERROR(
      internal::ScalarZeroPoint(yq.zero_point, y.dtype, "qlinear-matmul y_zero_point", &yz));
  const float multiplier = a_scale * b_scale / y_scale;
  const internal::Int8Reader ar(a), br(b);
  internal::MatMulLoop<int64_t>(
      g, [&](int64_t i, int64_t) { return int64_t{ar(i) - az}; },
      [&](int64_t i, int64_t) { return int64_t{br(i) - bz}; },
      [&](int64_t i, int64_t, int64_t, int64_t acc) {
        internal::StoreInt8(y, i, internal::Requantize(acc, multiplier, yz, y.dtype));
      });
  return Status::Ok();
}

}  // namespace loom::kernels
