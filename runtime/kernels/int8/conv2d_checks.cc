// Conv2d's parameter and buffer checks (internal.h), shared by conv2d.cc and fast/.
#include <string>

#include "runtime/kernels/int8/internal.h"
#include "runtime/kernels/int8/qops.h"

namespace loom::kernels::q::internal {

namespace {

Status CheckConv(const Blocking& b, const Conv2dParams& p) {
  LOOM_RETURN_IF_ERROR(CheckBlocking(b));
  if (!ConvTileFits(b)) {
    return InvalidArgument("Conv2d: blocking " + std::to_string(b.batch) + "x" +
                           std::to_string(b.block) + " exceeds the supported tile of " +
                           std::to_string(kConvMaxTile) + " accumulators");
  }
  LOOM_RETURN_IF_ERROR(CheckShape(p.in, "Conv2d: input"));
  if (p.out_c == 0) return InvalidArgument("Conv2d: out_c must be at least 1");
  if (p.depthwise && p.out_c != p.in.c) {
    return InvalidArgument("Conv2d: depthwise needs out_c (" + std::to_string(p.out_c) +
                           ") == input channels (" + std::to_string(p.in.c) + ")");
  }
  if (!p.GroupsCover()) {
    return InvalidArgument("Conv2d: groups " + std::to_string(p.groups) + " of " +
                           std::to_string(p.groups == 0 ? 0 : p.GroupChannels()) + " input and " +
                           std::to_string(p.groups == 0 ? 0 : p.GroupOutChannels()) +
                           " output channels do not cover the input channels (" +
                           std::to_string(p.in.c) + ") and out_c (" + std::to_string(p.out_c) +
                           ") with at most a short last group");
  }
  if (p.depthwise && p.groups != 1) {
    return InvalidArgument("Conv2d: a depthwise convolution has groups 1, not " +
                           std::to_string(p.groups));
  }
  LOOM_RETURN_IF_ERROR(CheckWindow(p.in, p.kh, p.kw, p.stride_h, p.stride_w, p.pad_top, p.pad_left,
                                   p.pad_bottom, p.pad_right, "Conv2d"));
  LOOM_RETURN_IF_ERROR(CheckRange(p.pad_value, -128, 127, "Conv2d", "pad_value"));
  return CheckRequant(p.rq, "Conv2d");
}

}  // namespace

Status CheckConv2dCall(const Blocking& b, const Conv2dParams& p, const void* in,
                       const void* weights, const void* mult, const void* out) {
  LOOM_RETURN_IF_ERROR(CheckConv(b, p));
  LOOM_RETURN_IF_ERROR(CheckNotNull(in, "Conv2d: input"));
  LOOM_RETURN_IF_ERROR(CheckNotNull(weights, "Conv2d: weights"));
  LOOM_RETURN_IF_ERROR(CheckNotNull(mult, "Conv2d: mult"));
  LOOM_RETURN_IF_ERROR(CheckNotNull(out, "Conv2d: output"));
  const size_t out_bytes = BlockedBytes(b, p.out());
  LOOM_RETURN_IF_ERROR(CheckNoAlias(in, BlockedBytes(b, p.in), out, out_bytes, "Conv2d input"));
  const size_t wbytes = p.depthwise ? DepthwiseWeightBytes(b, p.in.c, p.kh, p.kw)
                                    : ConvWeightBytes(b, p.out_c, p.GroupChannels(), p.kh, p.kw);
  return CheckNoAlias(weights, wbytes, out, out_bytes, "Conv2d weights");
}

}  // namespace loom::kernels::q::internal
