// Max pooling on a blocked activation (qops.h); padded positions never take part.
#include "runtime/kernels/int8/pool_internal.h"

namespace loom::kernels::q {

Status MaxPool(const Blocking& b, const PoolParams& p, const int8_t* in, int8_t* out) {
  LOOM_RETURN_IF_ERROR(internal::CheckPool(b, p, in, out, "MaxPool"));
  body::MaxPool(b, p, in, out);
  return Status::Ok();
}

}  // namespace loom::kernels::q
