// Shared by max_pool.cc and avg_pool.cc: validation and the walk over output positions and their
// windows. Internal to the kernels library.
#ifndef LOOM_RUNTIME_KERNELS_POOL_COMMON_H_
#define LOOM_RUNTIME_KERNELS_POOL_COMMON_H_

#include <cstdint>
#include <string>

#include "runtime/core/checked_math.h"
#include "runtime/kernels/kernels.h"

namespace loom::kernels::internal {

// y's spatial dims are taken as given (the caller chose floor or ceil mode); they only need to be
// reachable: every output window must start inside the padded input. Checked in 64 bits without
// wrapping, so the positions the pools form below all lie in [-pads_begin, input + pads_end).
inline Status CheckPoolShapes(const PoolParams& p, const TensorView& x, const TensorView& y,
                              const char* what) {
  const int s = p.spatial;
  if (s < 1 || s > kMaxSpatial || x.rank != s + 2 || y.rank != s + 2) {
    return InvalidArgument(std::string(what) + ": x and y must have rank spatial + 2");
  }
  if (x.shape[0] != y.shape[0] || x.shape[1] != y.shape[1]) {
    return InvalidArgument(std::string(what) + ": batch and channels must match");
  }
  for (int i = 0; i < s; ++i) {
    if (p.kernel[i] < 1 || p.strides[i] < 1 || p.dilations[i] < 1) {
      return InvalidArgument(std::string(what) + ": kernel, strides and dilations must be >= 1");
    }
    if (p.pads_begin[i] < 0 || p.pads_end[i] < 0) {
      return InvalidArgument(std::string(what) + ": pads must be >= 0");
    }
    int64_t padded = 0, last = 0;
    if (!CheckedAdd(x.shape[2 + i], p.pads_begin[i], &padded) ||
        !CheckedAdd(padded, p.pads_end[i], &padded)) {
      return InvalidArgument(std::string(what) + ": spatial dim " + std::to_string(i) +
                             ": input plus pads overflows 64 bits");
    }
    if (y.shape[2 + i] < 1 || !CheckedMul(y.shape[2 + i] - 1, p.strides[i], &last) ||
        last >= padded) {
      return InvalidArgument(std::string(what) + ": output spatial dim " + std::to_string(i) +
                             " reaches past the padded input");
    }
  }
  return Status::Ok();
}

// The taps k of one spatial dim of a window starting at `start` (dilation `dil`, `kernel` taps)
// whose positions start + k * dil lie inside [0, size): k in [*lo, *hi), empty when *lo >= *hi.
// Computed, not searched, so a kernel far larger than the input costs nothing extra.
inline void InsideTaps(int64_t start, int64_t dil, int64_t kernel, int64_t size, int64_t* lo,
                       int64_t* hi) {
  *lo = start >= 0 ? 0 : (-start) / dil + ((-start) % dil != 0 ? 1 : 0);
  *hi = size - 1 - start < 0 ? 0 : (size - 1 - start) / dil + 1;
  if (*hi > kernel) *hi = kernel;
  if (*lo > *hi) *lo = *hi;
}

// Calls visit(pos) for each tap of the window at output coordinates oidx that lies inside x, in
// window (row-major tap) order; pos[i] is the tap's input coordinate along spatial dim i.
template <typename Visit>
void ForEachInsideTap(const PoolParams& p, const TensorView& x, const int64_t* oidx, Visit visit) {
  const int s = p.spatial;
  int64_t lo[kMaxSpatial], hi[kMaxSpatial], k[kMaxSpatial], pos[kMaxSpatial];
  for (int i = 0; i < s; ++i) {
    InsideTaps(oidx[i] * p.strides[i] - p.pads_begin[i], p.dilations[i], p.kernel[i],
               x.shape[2 + i], &lo[i], &hi[i]);
    if (lo[i] >= hi[i]) return;
    k[i] = lo[i];
  }
  for (;;) {
    for (int i = 0; i < s; ++i)
      pos[i] = oidx[i] * p.strides[i] - p.pads_begin[i] + k[i] * p.dilations[i];
    visit(static_cast<const int64_t*>(pos));
    int i = s - 1;
    for (; i >= 0; --i) {
      if (++k[i] < hi[i]) break;
      k[i] = lo[i];
    }
    if (i < 0) return;
  }
}

// For each (plane = n * C + c, output position o) calls visit(plane, o, oidx) where oidx holds the
// output coordinates. Window iteration is left to the caller (it differs per pool).
template <typename Visit>
void ForEachPoolOutput(const PoolParams& p, const TensorView& y, Visit visit) {
  const int s = p.spatial;
  int64_t out_size = 1;
  for (int i = 0; i < s; ++i) out_size *= y.shape[2 + i];
  const int64_t planes = y.shape[0] * y.shape[1];
  int64_t oidx[kMaxSpatial];
  for (int64_t plane = 0; plane < planes; ++plane) {
    for (int64_t o = 0; o < out_size; ++o) {
      int64_t r = o;
      for (int i = s - 1; i >= 0; --i) {
        oidx[i] = r % y.shape[2 + i];
        r /= y.shape[2 + i];
      }
      visit(plane, plane * out_size + o, oidx);
    }
  }
}

}  // namespace loom::kernels::internal

#endif  // LOOM_RUNTIME_KERNELS_POOL_COMMON_H_
