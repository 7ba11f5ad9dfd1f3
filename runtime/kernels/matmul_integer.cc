// ONNX MatMulInteger: u8/i8 operands minus their zero points (A's per row, B's per column, or
// scalars), exact accumulation wrapped to i32.
#include "runtime/kernels/int_common.h"
#include "runtime/kernels/kernels.h"
#include "runtime/kernels/matmul_common.h"

namespace loom::kernels {

Status MatMulInteger(const TensorView& a, const TensorView& b, const TensorView* a_zp,
                     const TensorView* b_zp, const TensorView& y) {
  if (!internal::IsInt8Like(a.dtype) || !internal::IsInt8Like(b.dtype) || y.dtype != DType::kI32) {
    return InvalidArgument("matmul-integer: a and b must be u8 or i8, y i32");
  }
  internal::MatMulGeometry g;
  LOOM_RETURN_IF_ERROR(internal::PlanMatMul(a, b, y, &g));
  internal::ZeroPoints az, bz;
  LOOM_RETURN_IF_ERROR(
      internal::ChannelZeroPoints(a_zp, a.dtype, g.m, "matmul-integer a_zero_point", &az));
  LOOM_RETURN_IF_ERROR(
      internal::ChannelZeroPoints(b_zp, b.dtype, g.n, "matmul-integer b_zero_point", &bz));
  const internal::Int8Reader ar(a), br(b);
  int32_t* yd = y.As<int32_t>();
  internal::MatMulLoop<int64_t>(
      g, [&](int64_t i, int64_t row) { return int64_t{ar(i) - az(row)}; },
      [&](int64_t i, int64_t col) { return int64_t{br(i) - bz(col)}; },
      [yd](int64_t i, int64_t, int64_t, int64_t acc) { yd[i] = internal::WrapToI32(acc); });
  return Status::Ok();
}

}  // namespace loom::kernels
