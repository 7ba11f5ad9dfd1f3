// Nearest-neighbour upsampling by integer factors (qops.h ResizeNearest). Each blocked element
// (the B x c vector of one pixel) is copied whole, so padding lanes stay zero.
#include <cstring>
#include <string>

#include "runtime/kernels/int8/internal.h"
#include "runtime/kernels/int8/qops.h"

namespace loom::kernels::q {

Status ResizeNearest(const Blocking& b, const ResizeParams& p, const int8_t* x, int8_t* out) {
  LOOM_RETURN_IF_ERROR(internal::CheckBlocking(b));
  LOOM_RETURN_IF_ERROR(internal::CheckShape(p.shape, "ResizeNearest: input"));
  LOOM_RETURN_IF_ERROR(internal::CheckNotNull(x, "ResizeNearest: input"));
  LOOM_RETURN_IF_ERROR(internal::CheckNotNull(out, "ResizeNearest: output"));
  if (p.factor_h == 0 || p.factor_w == 0) {
    return InvalidArgument("ResizeNearest: factors " + std::to_string(p.factor_h) + " x " +
                           std::to_string(p.factor_w) + " must be at least 1");
  }
  const uint64_t oh = uint64_t{p.shape.h} * p.factor_h, ow = uint64_t{p.shape.w} * p.factor_w;
  if (oh > UINT32_MAX || ow > UINT32_MAX) {
    return InvalidArgument("ResizeNearest: output " + std::to_string(oh) + " x " +
                           std::to_string(ow) + " exceeds 32-bit dimensions");
  }
  ActShape os = p.shape;
  os.h = static_cast<uint32_t>(oh);
  os.w = static_cast<uint32_t>(ow);
  const size_t in_bytes = BlockedBytes(b, p.shape), out_bytes = BlockedBytes(b, os);
  LOOM_RETURN_IF_ERROR(internal::CheckSize(in_bytes, "ResizeNearest: input"));
  LOOM_RETURN_IF_ERROR(internal::CheckSize(out_bytes, "ResizeNearest: output"));
  LOOM_RETURN_IF_ERROR(internal::CheckNoAlias(x, in_bytes, out, out_bytes, "ResizeNearest"));
  // [N/B][C/c] planes of H x W elements of B * c bytes each, the same count in and out.
  const size_t elem = size_t{b.batch} * b.block;
  const size_t planes = in_bytes / (elem * p.shape.h * p.shape.w);
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
