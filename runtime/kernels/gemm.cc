// ONNX Gemm: Y = alpha * op(A) * op(B) + beta * C with op = optional transpose and C
// unidirectionally broadcast to [M, N] (scalar, [N], [M, 1], [1, N] or [M, N]).
#include <string>

#include "runtime/kernels/kernels.h"

namespace loom::kernels {

Status Gemm(const GemmParams& p, const TensorView& a, const TensorView& b, const TensorView* c,
            const TensorView& y) {
  if (a.dtype != DType::kF32 || b.dtype != DType::kF32 || y.dtype != DType::kF32 ||
      (c != nullptr && c->dtype != DType::kF32)) {
    return InvalidArgument("gemm: all operands must be f32");
  }
  if (a.rank != 2 || b.rank != 2 || y.rank != 2) {
    return InvalidArgument("gemm: A, B and Y must be 2-D");
  }
  const int64_t m = p.trans_a ? a.shape[1] : a.shape[0];
  const int64_t k = p.trans_a ? a.shape[0] : a.shape[1];
  const int64_t kb = p.trans_b ? b.shape[1] : b.shape[0];
  const int64_t n = p.trans_b ? b.shape[0] : b.shape[1];
  if (k != kb) {
    return InvalidArgument("gemm: inner dimensions differ (" + std::to_string(k) + " vs " +
                           std::to_string(kb) + ")");
  }
  if (y.shape[0] != m || y.shape[1] != n) return InvalidArgument("gemm: Y must be [M, N]");
  // C's strides over [M, N]: 0 along broadcast dimensions.
  int64_t c_rs = 0, c_cs = 0;
  if (c != nullptr) {
    if (c->rank > 2) return InvalidArgument("gemm: C must have rank <= 2");
    TensorView mn;
    mn.rank = 2;
    mn.shape[0] = m;
    mn.shape[1] = n;
    int64_t dims[kMaxRank];
    int rank = 0;
    LOOM_RETURN_IF_ERROR(BroadcastShapes(*c, mn, dims, &rank));
    if (dims[0] != m || dims[1] != n) {
      return InvalidArgument("gemm: C does not broadcast to [M, N]");
    }
    int64_t st[kMaxRank];
    BroadcastStrides(*c, 2, st);
    c_rs = st[0];
    c_cs = st[1];
  }
  const float* ad = a.As<const float>();
  const float* bd = b.As<const float>();
  const float* cd = c ? c->As<const float>() : nullptr;
  float* yd = y.As<float>();
  // Element (i, kk) of op(A) and (kk, j) of op(B) in the stored row-major layouts.
  const int64_t a_is = p.trans_a ? 1 : k, a_ks = p.trans_a ? m : 1;
  const int64_t b_ks = p.trans_b ? 1 : n, b_js = p.trans_b ? k : 1;
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < n; ++j) {
      float acc = 0.0f;
      for (int64_t kk = 0; kk < k; ++kk) acc += ad[i * a_is + kk * a_ks] * bd[kk * b_ks + j * b_js];
      float v = p.alpha * acc;
      if (cd != nullptr) v += p.beta * cd[i * c_rs + j * c_cs];
      yd[i * n + j] = v;
    }
  }
  return Status::Ok();
}

}  // namespace loom::kernels
