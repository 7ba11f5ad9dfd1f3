// Hardmax along one axis: a one-hot line marking the first maximum of each line of
// [outer, axis, inner].
#include "runtime/kernels/axis_walk.h"
#include "runtime/kernels/kernels_reduce.h"

namespace loom::kernels {

Status Hardmax(const TensorView& x, int axis, const TensorView& y) {
  return ForEachAxisLine("hardmax", x, axis, y,
                         [](const float* xl, float* yl, int64_t len, int64_t stride) {
                           int64_t best = 0;
                           for (int64_t j = 1; j < len; ++j) {
                             if (xl[j * stride] > xl[best * stride]) best = j;
                           }
                           for (int64_t j = 0; j < len; ++j)
                             yl[j * stride] = j == best ? 1.0f : 0.0f;
                         });
}

}  // namespace loom::kernels
