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
  body::Add(b, p, a, bb, out);
  return Status::Ok();
}

}  // namespace loom::kernels::q
