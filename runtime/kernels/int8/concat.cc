// Channel concatenation of blocked activations (qops.h): each input is rescaled to the output
// scale with its own multiplier and rounding shift. Channel offsets need not be block aligned.
#include <cstring>
#include <string>

#include "runtime/kernels/int8/internal.h"
#include "runtime/kernels/int8/qops.h"

namespace loom::kernels::q {

Status Concat(const Blocking& b, const ConcatInput* inputs, size_t count, int8_t* out) {
  LOOM_RETURN_IF_ERROR(internal::CheckBlocking(b));
  if (count == 0) return InvalidArgument("Concat: needs at least one input");
  LOOM_RETURN_IF_ERROR(internal::CheckNotNull(inputs, "Concat: inputs"));
  LOOM_RETURN_IF_ERROR(internal::CheckNotNull(out, "Concat: output"));
  ActShape os = inputs[0].shape;
  os.c = 0;
  for (size_t i = 0; i < count; ++i) {
    const ConcatInput& in = inputs[i];
    auto check = [&](const std::string& what) -> Status {
      LOOM_RETURN_IF_ERROR(internal::CheckShape(in.shape, what.c_str()));
      LOOM_RETURN_IF_ERROR(internal::CheckNotNull(in.data, what.c_str()));
      if (in.shape.n != os.n || in.shape.h != os.h || in.shape.w != os.w) {
        return InvalidArgument(what + " has N, H, W " + std::to_string(in.shape.n) + ", " +
                               std::to_string(in.shape.h) + ", " + std::to_string(in.shape.w) +
                               " but input 0 has " + std::to_string(os.n) + ", " +
                               std::to_string(os.h) + ", " + std::to_string(os.w));
      }
      return internal::CheckShift(in.shift, what.c_str(), "shift");
    };
    // The input's name with its index is built only to report a failure (an empty name fits the
    // string's inline buffer, so the passing check allocates nothing).
    if (!check(std::string()).ok()) return check("Concat: input " + std::to_string(i));
    os.c += in.shape.c;
  }
  const size_t out_bytes = BlockedBytes(b, os);
  for (size_t i = 0; i < count; ++i) {
    LOOM_RETURN_IF_ERROR(internal::CheckNoAlias(inputs[i].data, BlockedBytes(b, inputs[i].shape),
                                                out, out_bytes, "Concat"));
  }
  std::memset(out, 0, out_bytes);
  uint32_t c_off = 0;
  for (size_t i = 0; i < count; ++i) {
    body::ConcatInto(b, os, c_off, inputs[i], out);
    c_off += inputs[i].shape.c;
  }
  return Status::Ok();
}

}  // namespace loom::kernels::q
