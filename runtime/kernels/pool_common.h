// Shared by max_pool.cc and avg_pool.cc: validation and the walk over output positions and their
// windows. Internal to the kernels library.
#ifndef LOOM_RUNTIME_KERNELS_POOL_COMMON_H_
#define LOOM_RUNTIME_KERNELS_POOL_COMMON_H_

#include <cstdint>
#include <string>

#include "runtime/kernels/kernels.h"

namespace loom::kernels::internal {

// y's spatial dims are taken as given (the caller chose floor or ceil mode); they only need to be
// reachable: every output window must start inside the padded input.
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
    if (y.shape[2 + i] < 1 ||
        (y.shape[2 + i] - 1) * p.strides[i] >= x.shape[2 + i] + p.pads_begin[i] + p.pads_end[i]) {
      return InvalidArgument(std::string(what) + ": output spatial dim " + std::to_string(i) +
                             " reaches past the padded input");
    }
  }
  return Status::Ok();
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
