// Shared by max_pool.cc and avg_pool.cc: the window checks and the loop over output positions of a
// blocked activation. Internal to loom_kernels_int8.
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

// Calls f(in_lane_base, out_index, y0, y1, x0, x1, real) for every output lane, where [y0, y1) x
// [x0, x1) is the part of the window inside the input, in_lane_base the offset of the lane in the
// input's (0, 0) position and the position stride is B*c bytes; real is false for padding lanes.
template <typename F>
void ForEachWindow(const Blocking& b, const PoolParams& p, F&& f) {
  const ActShape os = p.out();
  const uint32_t B = b.batch, C = b.block;
  const uint32_t nbs = CeilDiv(p.in.n, B), cbs = CeilDiv(p.in.c, C);
  size_t oi = 0;
  for (uint32_t nb = 0; nb < nbs; ++nb)
    for (uint32_t cb = 0; cb < cbs; ++cb)
      for (uint32_t y = 0; y < os.h; ++y) {
        const int64_t ys = int64_t{y} * p.stride_h - p.pad_top;
        const uint32_t y0 = static_cast<uint32_t>(ys < 0 ? 0 : ys);
        const uint32_t y1 = static_cast<uint32_t>(
            ys + p.kh > p.in.h ? int64_t{p.in.h} : ys + int64_t{p.kh});
        for (uint32_t x = 0; x < os.w; ++x) {
          const int64_t xs = int64_t{x} * p.stride_w - p.pad_left;
          const uint32_t x0 = static_cast<uint32_t>(xs < 0 ? 0 : xs);
          const uint32_t x1 = static_cast<uint32_t>(
              xs + p.kw > p.in.w ? int64_t{p.in.w} : xs + int64_t{p.kw});
          for (uint32_t bi = 0; bi < B; ++bi)
            for (uint32_t ci = 0; ci < C; ++ci, ++oi) {
              const size_t base = (size_t{nb} * cbs + cb) * p.in.h * p.in.w * B * C + bi * C + ci;
              const bool real = nb * B + bi < p.in.n && cb * C + ci < p.in.c;
              f(base, oi, y0, y1, x0, x1, real);
            }
        }
      }
}

}  // namespace loom::kernels::q::internal

#endif  // LOOM_RUNTIME_KERNELS_INT8_POOL_INTERNAL_H_
