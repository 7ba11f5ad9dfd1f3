// The output positions of a pooling on the blocked layout, one window at a time, for the fast
// pools (max_pool_fast.cc, avg_pool_fast.cc), which take every lane of a position at once.
#ifndef LOOM_RUNTIME_KERNELS_INT8_FAST_POOL_WINDOWS_H_
#define LOOM_RUNTIME_KERNELS_INT8_FAST_POOL_WINDOWS_H_

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "runtime/core/blocked_layout.h"
#include "runtime/kernels/int8/fast/padding_lanes.h"
#include "runtime/kernels/int8/qops.h"

namespace loom::kernels::q::fast {

// One output position's window: its real positions (padding left out).
struct PoolWindow {
  const int8_t* first = nullptr;  // the window's real top-left position
  size_t row_step = 0;            // bytes between input rows
  size_t pos_step = 0;            // bytes between input positions (B x c)
  uint32_t rows = 0, cols = 0;    // real positions of the window
};

// Calls fn(v) for each of w's real positions in row order, v pointing at lane `lane` of it. Forced
// inline, as the vector kernels hold their sums in registers across the calls; an fn that uses
// an instruction set's intrinsics carries that set's target attribute itself.
template <typename Fn>
inline __attribute__((always_inline)) void ForEachWindowPosition(const PoolWindow& w, size_t lane,
                                                                 Fn&& fn) {
  for (uint32_t y = 0; y < w.rows; ++y) {
    const int8_t* row = w.first + y * w.row_step + lane;
    for (uint32_t x = 0; x < w.cols; ++x) fn(row + x * w.pos_step);
  }
}

// Calls fn(window, out) for every output position in layout order, `out` pointing at its B x c
// lanes, then writes the padding lanes (channels past C, batch rows past N) as 0, as the
// reference writes them, whatever fn left there. The caller has checked p (CheckPool: every
// window holds a real row and column).
template <typename Fn>
void ForEachPoolWindow(const Blocking& b, const PoolParams& p, const int8_t* in, int8_t* out,
                       Fn&& fn) {
  const ActShape os = p.out();
  const uint32_t B = b.batch, C = b.block;
  const uint32_t nbs = CeilDiv(p.in.n, B), cbs = CeilDiv(p.in.c, C);
  const size_t lanes = size_t{B} * C;
  const size_t in_plane = size_t{p.in.h} * p.in.w * lanes;
  PoolWindow w;
  w.pos_step = lanes;
  w.row_step = size_t{p.in.w} * lanes;
  for (uint32_t nb = 0; nb < nbs; ++nb) {
    const uint32_t real_b = std::min(B, p.in.n - nb * B);
    for (uint32_t cb = 0; cb < cbs; ++cb) {
      const uint32_t real_c = std::min(C, p.in.c - cb * C);
      const int8_t* plane = in + (size_t{nb} * cbs + cb) * in_plane;
      for (uint32_t y = 0; y < os.h; ++y) {
        const int64_t ys = int64_t{y} * p.stride_h - p.pad_top;
        const int64_t y0 = std::max<int64_t>(ys, 0), y1 = std::min<int64_t>(ys + p.kh, p.in.h);
        w.rows = static_cast<uint32_t>(y1 - y0);
        for (uint32_t x = 0; x < os.w; ++x, out += lanes) {
          const int64_t xs = int64_t{x} * p.stride_w - p.pad_left;
          const int64_t x0 = std::max<int64_t>(xs, 0), x1 = std::min<int64_t>(xs + p.kw, p.in.w);
          w.cols = static_cast<uint32_t>(x1 - x0);
          w.first = plane + static_cast<size_t>(y0) * w.row_step + static_cast<size_t>(x0) * lanes;
          fn(static_cast<const PoolWindow&>(w), out);
          ZeroPaddingLanes(out, 1, B, C, real_b, real_c);
        }
      }
    }
  }
}

}  // namespace loom::kernels::q::fast

#endif  // LOOM_RUNTIME_KERNELS_INT8_FAST_POOL_WINDOWS_H_
