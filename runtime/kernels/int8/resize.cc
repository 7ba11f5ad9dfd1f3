// Nearest-neighbour upsampling by integer factors (qops.h ResizeNearest). Each blocked element
// (the B x c vector of one pixel) is copied whole, so padding lanes stay zero.
#include <cstring>

#include "runtime/kernels/int8/internal.h"
#include "runtime/kernels/int8/qops.h"

namespace loom::kernels::q {

Status ResizeNearest(const Blocking& b, const ResizeParams& p, const int8_t* x, int8_t* out) {
  internal::ScaledPlane sp;
  LOOM_RETURN_IF_ERROR(internal::CheckScaledPlaneCall(
      b, p.shape, p.factor_h, p.factor_w, x, out,
      {"ResizeNearest", "ResizeNearest: input", "ResizeNearest: output", "factors"}, &sp));
  body::ResizeNearest(b, p, x, out);
  return Status::Ok();
}

}  // namespace loom::kernels::q
