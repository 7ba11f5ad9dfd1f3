// Zero insertion (qops.h ZeroInsert): the zero-inserted input of a ConvTranspose that runs as a
// stride-1 convolution. Each blocked element (the B x c vector of one pixel) is copied whole, so
// padding lanes stay zero; every other position is written 0.
#include <cstring>

#include "runtime/kernels/int8/internal.h"
#include "runtime/kernels/int8/qops.h"

namespace loom::kernels::q {

Status ZeroInsert(const Blocking& b, const ZeroInsertParams& p, const int8_t* x, int8_t* out) {
  internal::ScaledPlane sp;
  LOOM_RETURN_IF_ERROR(internal::CheckScaledPlaneCall(
      b, p.shape, p.stride_h, p.stride_w, x, out,
      {"ZeroInsert", "ZeroInsert: input", "ZeroInsert: output", "strides"}, &sp));
  body::ZeroInsert(b, p, x, out);
  return Status::Ok();
}

}  // namespace loom::kernels::q
