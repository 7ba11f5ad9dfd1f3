// Float numpy-style matmul (ONNX MatMul). Shape rules and the batched loop are in
// matmul_common.h, shared with the integer variants.
#include "runtime/kernels/kernels.h"
#include "runtime/kernels/matmul_common.h"

namespace loom::kernels {

Status MatMul(const TensorView& a, const TensorView& b, const TensorView& y) {
  if (a.dtype != DType::kF32 || b.dtype != DType::kF32 || y.dtype != DType::kF32) {
    return InvalidArgument("matmul: a, b and y must be f32");
  }
  internal::MatMulGeometry g;
  LOOM_RETURN_IF_ERROR(internal::PlanMatMul(a, b, y, &g));
  const float* ad = a.As<const float>();
  const float* bd = b.As<const float>();
  float* yd = y.As<float>();
  internal::MatMulLoop<float>(
      g, [ad](int64_t i, int64_t) { return ad[i]; }, [bd](int64_t i, int64_t) { return bd[i]; },
      [yd](int64_t i, int64_t, int64_t, float acc) { yd[i] = acc; });
  return Status::Ok();
}

}  // namespace loom::kernels
