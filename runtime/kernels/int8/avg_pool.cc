// Average pooling on a blocked activation (qops.h): the window sum is requantized with the
// multiplier for its divisor, mult_by_count[count - 1].
#include <string>

#include "runtime/kernels/int8/pool_internal.h"

namespace loom::kernels::q {

namespace internal {

Status CheckAvgPoolCall(const Blocking& b, const AvgPoolParams& p, const int32_t* mult_by_count,
                        const int8_t* in, const int8_t* out) {
  LOOM_RETURN_IF_ERROR(internal::CheckPool(b, p.pool, in, out, "AvgPool"));
  LOOM_RETURN_IF_ERROR(internal::CheckRange(p.x_offset, -255, 255, "AvgPool", "x_offset"));
  LOOM_RETURN_IF_ERROR(internal::CheckRange(p.out_offset, -255, 255, "AvgPool", "out_offset"));
  LOOM_RETURN_IF_ERROR(internal::CheckRequant(p.rq, "AvgPool"));
  return internal::CheckNotNull(mult_by_count, "AvgPool: mult_by_count");
}

}  // namespace internal

Status AvgPool(const Blocking& b, const AvgPoolParams& p, const int32_t* mult_by_count,
               const int8_t* in, int8_t* out) {
  LOOM_RETURN_IF_ERROR(internal::CheckAvgPoolCall(b, p, mult_by_count, in, out));
  body::AvgPool(b, p, mult_by_count, in, out);
  return Status::Ok();
}

}  // namespace loom::kernels::q
