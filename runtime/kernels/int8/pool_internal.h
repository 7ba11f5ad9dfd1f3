// Shared by max_pool.cc, avg_pool.cc and their fast versions: the window checks (the loop over
// output positions is bodies.h's ForEachWindow). Internal to loom_kernels_int8.
#ifndef LOOM_RUNTIME_KERNELS_INT8_POOL_INTERNAL_H_
#define LOOM_RUNTIME_KERNELS_INT8_POOL_INTERNAL_H_

#include "runtime/kernels/int8/internal.h"
#include "runtime/kernels/int8/qops.h"

namespace loom::kernels::q::internal {

inline Status CheckPool(const Blocking& b, const PoolParams& p, const int8_t* in, const int8_t* out,
                        const char* op) {
  LOOM_RETURN_IF_ERROR(CheckBlocking(b));
  LOOM_RETURN_IF_ERROR(CheckShape(p.in, op));
  LOOM_RETURN_IF_ERROR(CheckWindow(p.in, p.kh, p.kw, p.stride_h, p.stride_w, p.pad_top,
                                   p.pad_left, p.pad_bottom, p.pad_right, op));
  LOOM_RETURN_IF_ERROR(CheckNotNull(in, op));
  LOOM_RETURN_IF_ERROR(CheckNotNull(out, op));
  return CheckNoAlias(in, BlockedBytes(b, p.in), out, BlockedBytes(b, p.out()), op);
}

// AvgPool's checks (avg_pool.cc), shared with fast::AvgPool.
Status CheckAvgPoolCall(const Blocking& b, const AvgPoolParams& p, const int32_t* mult_by_count,
                        const int8_t* in, const int8_t* out);

}  // namespace loom::kernels::q::internal

#endif  // LOOM_RUNTIME_KERNELS_INT8_POOL_INTERNAL_H_
