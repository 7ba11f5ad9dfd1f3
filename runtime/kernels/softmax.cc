// Softmax along one axis (opset-13 semantics): the tensor is seen as [outer, axis, inner] and each
// of the outer * inner lines is normalised. The line maximum is subtracted before exp so large
// inputs do not overflow.
#include <cmath>

#include "runtime/kernels/axis_walk.h"
#include "runtime/kernels/kernels.h"

namespace loom::kernels {

Status Softmax(const TensorView& x, int axis, const TensorView& y) {
  return ForEachAxisLine("softmax", x, axis, y,
                         [](const float* xl, float* yl, int64_t len, int64_t stride) {
                           float mx = -INFINITY;
                           for (int64_t j = 0; j < len; ++j) mx = std::fmax(mx, xl[j * stride]);
                           float sum = 0.0f;
                           for (int64_t j = 0; j < len; ++j) {
                             const float e = std::exp(xl[j * stride] - mx);
                             yl[j * stride] = e;
                             sum += e;
                           }
                           for (int64_t j = 0; j < len; ++j) yl[j * stride] /= sum;
                         });
}

}  // namespace loom::kernels
