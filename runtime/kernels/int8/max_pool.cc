// Max pooling on a blocked activation (qops.h); padded positions never take part.
#include "runtime/kernels/int8/pool_internal.h"

namespace loom::kernels::q {

Status MaxPool(const Blocking& b, const PoolParams& p, const int8_t* in, int8_t* out) {
  LOOM_RETURN_IF_ERROR(internal::CheckPool(b, p, in, out, "MaxPool"));
  const size_t pos = size_t{b.batch} * b.block;
  internal::ForEachWindow(b, p, [&](size_t base, size_t oi, uint32_t y0, uint32_t y1, uint32_t x0,
                                    uint32_t x1, bool real) {
    int8_t m = -128;
    if (real) {
      for (uint32_t y = y0; y < y1; ++y)
        for (uint32_t x = x0; x < x1; ++x) {
          const int8_t v = in[base + (size_t{y} * p.in.w + x) * pos];
          m = v > m ? v : m;
        }
    }
    out[oi] = real ? m : 0;
  });
  return Status::Ok();
}

}  // namespace loom::kernels::q
