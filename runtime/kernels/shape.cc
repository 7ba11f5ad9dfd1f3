// ONNX Shape and Size: facts about x's shape as i64 tensors; x's data is never read (it may be
// null, as in a view the loader prepares from shapes only).
#include <string>

#include "runtime/kernels/kernels_index.h"

namespace loom::kernels {

Status ShapeOf(const TensorView& x, int64_t start, const TensorView& y) {
  if (y.dtype != DType::kI64 || y.rank != 1 || start < 0 || start + y.shape[0] > x.rank) {
    return InvalidArgument("shape: y must be i64 1-D and [start, start + len) within rank " +
                           std::to_string(x.rank));
  }
  for (int64_t i = 0; i < y.shape[0]; ++i) y.As<int64_t>()[i] = x.shape[start + i];
  return Status::Ok();
}

Status SizeOf(const TensorView& x, const TensorView& y) {
  if (y.dtype != DType::kI64 || y.NumElements() != 1) {
    return InvalidArgument("size: y must be one i64 element");
  }
  y.As<int64_t>()[0] = x.NumElements();
  return Status::Ok();
}

}  // namespace loom::kernels
