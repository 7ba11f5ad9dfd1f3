// ONNX MaxUnpool for any dtype: zeros, then each input element written at the coordinates its
// flat MaxPool index names in the unpool shape (a later duplicate wins, as in the ONNX reference).
// With an explicit, larger output_shape the coordinates stay and only the strides change.
#include <cstring>
#include <string>

#include "runtime/kernels/index_common.h"

namespace loom::kernels {

Status MaxUnpool(const TensorView& x, const TensorView& indices, const int64_t* index_shape,
                 const TensorView& y) {
  LOOM_RETURN_IF_ERROR(index_detail::CheckIndexType("max_unpool", indices));
  if (x.dtype != y.dtype || !SameShape(x, indices) || x.rank != y.rank) {
    return InvalidArgument("max_unpool: indices must have x's shape, y x's dtype and rank");
  }
  int64_t span = 1;
  for (int d = 0; d < y.rank; ++d) {
    if (index_shape[d] < 0 || index_shape[d] > y.shape[d]) {
      return InvalidArgument("max_unpool: the unpool shape exceeds y in dim " + std::to_string(d));
    }
    span *= index_shape[d];
  }
  const int64_t total = y.NumElements(), n = x.NumElements();
  const size_t es = DTypeSize(y.dtype);
  if (total > 0) std::memset(y.data, 0, static_cast<size_t>(total) * es);
  for (int64_t i = 0; i < n; ++i) {
    int64_t at = index_detail::IndexAt(indices, i);
    if (at < 0 || at >= span) {
      return InvalidArgument("max_unpool: index " + std::to_string(at) + " at position " +
                             std::to_string(i) + " is outside the unpool shape's " +
                             std::to_string(span) + " elements");
    }
    int64_t off = 0;
    for (int d = y.rank - 1; d >= 0; --d) {
      off += (at % index_shape[d]) * y.strides[d];
      at /= index_shape[d];
    }
    index_detail::CopyElement(x, i, y, off);
  }
  return Status::Ok();
}

}  // namespace loom::kernels
