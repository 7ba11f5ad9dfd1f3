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
  const ActShape& os = sp.out;
  // [N/B][C/c] planes of H x W elements of B * c bytes each, the same count in and out.
  const size_t elem = size_t{b.batch} * b.block;
  const size_t planes = sp.in_bytes / (elem * p.shape.h * p.shape.w);
  for (size_t pl = 0; pl < planes; ++pl) {
    const int8_t* src = x + pl * p.shape.h * p.shape.w * elem;
    int8_t* dst = out + pl * os.h * os.w * elem;
    for (uint32_t y = 0; y < os.h; ++y)
      for (uint32_t xo = 0; xo < os.w; ++xo) {
        const int8_t* from = src + (size_t{y / p.factor_h} * p.shape.w + xo / p.factor_w) * elem;
        std::memcpy(dst + (size_t{y} * os.w + xo) * elem, from, elem);
      }
  }
  return Status::Ok();
}

}  // namespace loom::kernels::q
