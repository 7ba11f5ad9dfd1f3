// Average pooling on a blocked activation (qops.h): the window sum is requantized with the
// multiplier for its divisor, mult_by_count[count - 1].
#include <string>

#include "runtime/kernels/int8/pool_internal.h"

namespace loom::kernels::q {

Status AvgPool(const Blocking& b, const AvgPoolParams& p, const int32_t* mult_by_count,
               const int8_t* in, int8_t* out) {
  LOOM_RETURN_IF_ERROR(internal::CheckPool(b, p.pool, in, out, "AvgPool"));
  LOOM_RETURN_IF_ERROR(internal::CheckRequant(p.rq, "AvgPool"));
  LOOM_RETURN_IF_ERROR(internal::CheckNotNull(mult_by_count, "AvgPool: mult_by_count"));
  const PoolParams& pp = p.pool;
  const size_t pos = size_t{b.batch} * b.block;
  const uint32_t full = pp.kh * pp.kw;
  internal::ForEachWindow(b, pp, [&](size_t base, size_t oi, uint32_t y0, uint32_t y1,
                                     uint32_t x0, uint32_t x1, bool real) {
    if (!real) {
      out[oi] = 0;
      return;
    }
    int32_t sum = 0;  // even a 4096x4096 window of |v| <= 128 fits int32
    for (uint32_t y = y0; y < y1; ++y)
      for (uint32_t x = x0; x < x1; ++x) sum += in[base + (size_t{y} * pp.in.w + x) * pos];
    const uint32_t count = p.count_include_pad ? full : (y1 - y0) * (x1 - x0);
    out[oi] = Requantize(sum, mult_by_count[count - 1], p.rq);
  });
  return Status::Ok();
}

}  // namespace loom::kernels::q
