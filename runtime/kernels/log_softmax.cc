// LogSoftmax along one axis: x - max - log(sum(exp(x - max))) per line of [outer, axis, inner],
// the maximum subtracted first so large inputs neither overflow nor lose the small terms.
#include <cmath>

#include "runtime/kernels/axis_walk.h"
#include "runtime/kernels/kernels_reduce.h"

namespace loom::kernels {

Status LogSoftmax(const TensorView& x, int axis, const TensorView& y) {
  return ForEachAxisLine("log-softmax", x, axis, y,
                         [](const float* xl, float* yl, int64_t len, int64_t stride) {
                           float mx = -INFINITY;
                           for (int64_t j = 0; j < len; ++j) mx = std::fmax(mx, xl[j * stride]);
                           double sum = 0.0;
                           for (int64_t j = 0; j < len; ++j)
                             sum += std::exp(double(xl[j * stride]) - mx);
                           const double lse = std::log(sum);
                           for (int64_t j = 0; j < len; ++j) {
                             yl[j * stride] = static_cast<float>(double(xl[j * stride]) - mx - lse);
                           }
                         });
}

}  // namespace loom::kernels
