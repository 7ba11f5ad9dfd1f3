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
  const ActShape& os = sp.out;
  std::memset(out, 0, sp.out_bytes);
  // [N/B][C/c] planes of H x W elements of B * c bytes each, the same count in and out.
  const size_t elem = size_t{b.batch} * b.block;
  const size_t planes = sp.in_bytes / (elem * p.shape.h * p.shape.w);
  for (size_t pl = 0; pl < planes; ++pl) {
    const int8_t* src = x + pl * p.shape.h * p.shape.w * elem;
    int8_t* dst = out + pl * os.h * os.w * elem;
    for (uint32_t y = 0; y < p.shape.h; ++y)
      for (uint32_t xi = 0; xi < p.shape.w; ++xi) {
        std::memcpy(dst + (size_t{y} * p.stride_h * os.w + size_t{xi} * p.stride_w) * elem,
                    src + (size_t{y} * p.shape.w + xi) * elem, elem);
      }
  }
  return Status::Ok();
}

}  // namespace loom::kernels::q
