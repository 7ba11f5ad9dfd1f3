// Elementwise product of two blocked tensors, the second optionally one value per channel and
// optionally clamped first (qops.h Mul: squeeze-excitation scales, hard-sigmoid, hard-swish).
// Padding lanes of the output stay zero whatever the clip.
#include <string>

#include "runtime/kernels/int8/internal.h"
#include "runtime/kernels/int8/qops.h"

namespace loom::kernels::q {

namespace internal {

Status CheckMulCall(const Blocking& b, const MulParams& p, const int8_t* a, const int8_t* bb,
                    const int8_t* out) {
  LOOM_RETURN_IF_ERROR(internal::CheckBlocking(b));
  LOOM_RETURN_IF_ERROR(internal::CheckShape(p.shape, "Mul"));
  for (int32_t v : {p.mult, p.b_mult, p.b_offset, p.b_lo, p.b_hi}) {
    if (v < -32768 || v > 32767) {
      return InvalidArgument("Mul: multiplier or clamp of b " + std::to_string(v) +
                             " is outside the 16-bit immediate range [-32768, 32767]");
    }
  }
  if (p.b_lo > p.b_hi) {
    return InvalidArgument("Mul: clamp of b [" + std::to_string(p.b_lo) + ", " +
                           std::to_string(p.b_hi) + "] is empty");
  }
  LOOM_RETURN_IF_ERROR(internal::CheckRange(p.a_offset, -255, 255, "Mul", "a_offset"));
  LOOM_RETURN_IF_ERROR(internal::CheckRange(p.out_offset, -255, 255, "Mul", "out_offset"));
  LOOM_RETURN_IF_ERROR(internal::CheckRequant(p.rq, "Mul"));
  LOOM_RETURN_IF_ERROR(internal::CheckNotNull(a, "Mul: input a"));
  LOOM_RETURN_IF_ERROR(internal::CheckNotNull(bb, "Mul: input b"));
  LOOM_RETURN_IF_ERROR(internal::CheckNotNull(out, "Mul: output"));
  const size_t bytes = BlockedBytes(b, p.shape);
  const ActShape b_shape = p.b_per_channel ? ActShape{p.shape.n, p.shape.c, 1, 1} : p.shape;
  LOOM_RETURN_IF_ERROR(internal::CheckNoAlias(a, bytes, out, bytes, "Mul input a"));
  LOOM_RETURN_IF_ERROR(
      internal::CheckNoAlias(bb, BlockedBytes(b, b_shape), out, bytes, "Mul input b"));
  return Status::Ok();
}

}  // namespace internal

Status Mul(const Blocking& b, const MulParams& p, const int8_t* a, const int8_t* bb, int8_t* out) {
  LOOM_RETURN_IF_ERROR(internal::CheckMulCall(b, p, a, bb, out));
  body::Mul(b, p, a, bb, out);
  return Status::Ok();
}

}  // namespace loom::kernels::q
