// Elementwise add of two blocked tensors with per-operand multipliers (qops.h). Padding lanes of
// the output stay zero even when clip_lo > 0.
#include <string>

#include "runtime/kernels/int8/internal.h"
#include "runtime/kernels/int8/qops.h"

namespace loom::kernels::q {

namespace internal {

Status CheckAddCall(const Blocking& b, const AddParams& p, const int8_t* a, const int8_t* bb,
                    const int8_t* out) {
  LOOM_RETURN_IF_ERROR(internal::CheckBlocking(b));
  LOOM_RETURN_IF_ERROR(internal::CheckShape(p.shape, "Add"));
  for (int32_t m : {p.mult_a, p.mult_b}) {
    if (m < -32768 || m > 32767) {
      return InvalidArgument("Add: multiplier " + std::to_string(m) +
                             " is outside the 16-bit immediate range [-32768, 32767]");
    }
  }
  LOOM_RETURN_IF_ERROR(internal::CheckShift(p.shift, "Add", "shift"));
  LOOM_RETURN_IF_ERROR(internal::CheckClip(p.clip_lo, p.clip_hi, "Add"));
  LOOM_RETURN_IF_ERROR(internal::CheckNotNull(a, "Add: input a"));
  LOOM_RETURN_IF_ERROR(internal::CheckNotNull(bb, "Add: input b"));
  LOOM_RETURN_IF_ERROR(internal::CheckNotNull(out, "Add: output"));
  const size_t bytes = BlockedBytes(b, p.shape);
  LOOM_RETURN_IF_ERROR(internal::CheckNoAlias(a, bytes, out, bytes, "Add input a"));
  LOOM_RETURN_IF_ERROR(internal::CheckNoAlias(bb, bytes, out, bytes, "Add input b"));
  return Status::Ok();
}

}  // namespace internal

Status Add(const Blocking& b, const AddParams& p, const int8_t* a, const int8_t* bb, int8_t* out) {
  LOOM_RETURN_IF_ERROR(internal::CheckAddCall(b, p, a, bb, out));
  const uint32_t B = b.batch, C = b.block;
  const uint32_t nbs = CeilDiv(p.shape.n, B), cbs = CeilDiv(p.shape.c, C);
  const size_t hw = size_t{p.shape.h} * p.shape.w;
  size_t i = 0;
  for (uint32_t nb = 0; nb < nbs; ++nb)
    for (uint32_t cb = 0; cb < cbs; ++cb)
      for (size_t pos = 0; pos < hw; ++pos)
        for (uint32_t bi = 0; bi < B; ++bi)
          for (uint32_t ci = 0; ci < C; ++ci, ++i) {
            if (nb * B + bi >= p.shape.n || cb * C + ci >= p.shape.c) {
              out[i] = 0;
              continue;
            }
            // |a * mult| <= 2^22, so the sum of two fits int32.
            int32_t v = ShrRnd(int32_t{a[i]} * p.mult_a + int32_t{bb[i]} * p.mult_b, p.shift);
            v = v < p.clip_lo ? p.clip_lo : (v > p.clip_hi ? p.clip_hi : v);
            out[i] = Saturate8(v);
          }
  return Status::Ok();
}

}  // namespace loom::kernels::q
