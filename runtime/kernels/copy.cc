// A row-major reinterpretation: Reshape, Flatten, Identity and inference-time Dropout move no
// data, they only relabel the shape, so the reference is a byte copy.
#include <cstring>

#include "runtime/kernels/kernels.h"

namespace loom::kernels {

Status Copy(const TensorView& x, const TensorView& y) {
  if (x.dtype != y.dtype || x.NumElements() != y.NumElements()) {
    return InvalidArgument("copy: x and y must have the same dtype and element count");
  }
  const size_t bytes = static_cast<size_t>(x.NumElements()) * DTypeSize(x.dtype);
  if (bytes > 0 && x.data != y.data) std::memmove(y.data, x.data, bytes);
  return Status::Ok();
}

}  // namespace loom::kernels
