// Conv2d on blocked layouts (qops.h): groups == 1 as c x c GEMM tiles per kernel tap, or depthwise
// (one filter per channel). Accumulates in wrapping int32 as the accelerator's ACC does, then
// requantizes per output channel.
#include <cstring>
#include <string>

#include "runtime/kernels/int8/internal.h"
#include "runtime/kernels/int8/qops.h"

namespace loom::kernels::q {

Status Conv2d(const Blocking& b, const Conv2dParams& p, const int8_t* in, const int8_t* weights,
              const int32_t* bias, const int32_t* mult, int8_t* out) {
  LOOM_RETURN_IF_ERROR(internal::CheckConv2dCall(b, p, in, weights, mult, out));
  body::Conv2d(b, p, in, weights, bias, mult, out);
  return Status::Ok();
}

}  // namespace loom::kernels::q
