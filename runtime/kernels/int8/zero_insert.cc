// Zero insertion (qops.h ZeroInsert): the zero-inserted input of a ConvTranspose that runs as a
// stride-1 convolution. Each blocked element (the B x c vector of one pixel) is copied whole, so
// padding lanes stay zero; every other position is written 0.
#include <cstring>
#include <string>

#include "runtime/kernels/int8/internal.h"
#include "runtime/kernels/int8/qops.h"

namespace loom::kernels::q {

Status ZeroInsert(const Blocking& b, const ZeroInsertParams& p, const int8_t* x, int8_t* out) {
  LOOM_RETURN_IF_ERROR(internal::CheckBlocking(b));
  LOOM_RETURN_IF_ERROR(internal::CheckShape(p.shape, "ZeroInsert: input"));
  LOOM_RETURN_IF_ERROR(internal::CheckNotNull(x, "ZeroInsert: input"));
  LOOM_RETURN_IF_ERROR(internal::CheckNotNull(out, "ZeroInsert: output"));
  if (p.stride_h == 0 || p.stride_w == 0) {
    return InvalidArgument("ZeroInsert: strides " + std::to_string(p.stride_h) + " x " +
                           std::to_string(p.stride_w) + " must be at least 1");
  }
  const uint64_t oh = uint64_t{p.shape.h} * p.stride_h, ow = uint64_t{p.shape.w} * p.stride_w;
  if (oh > UINT32_MAX || ow > UINT32_MAX) {
    return InvalidArgument("ZeroInsert: output " + std::to_string(oh) + " x " + std::to_string(ow) +
                           " exceeds 32-bit dimensions");
  }
  ActShape os = p.shape;
  os.h = static_cast<uint32_t>(oh);
  os.w = static_cast<uint32_t>(ow);
  const size_t in_bytes = BlockedBytes(b, p.shape), out_bytes = BlockedBytes(b, os);
  LOOM_RETURN_IF_ERROR(internal::CheckSize(in_bytes, "ZeroInsert: input"));
  LOOM_RETURN_IF_ERROR(internal::CheckSize(out_bytes, "ZeroInsert: output"));
  LOOM_RETURN_IF_ERROR(internal::CheckNoAlias(x, in_bytes, out, out_bytes, "ZeroInsert"));
  std::memset(out, 0, out_bytes);
  // [N/B][C/c] planes of H x W elements of B * c bytes each, the same count in and out.
  const size_t elem = size_t{b.batch} * b.block;
  const size_t planes = in_bytes / (elem * p.shape.h * p.shape.w);
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
