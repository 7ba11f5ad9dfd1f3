// ONNX MaxUnpool for any dtype: zeros, then each input element written at the flat output offset
// MaxPool recorded for it (a later duplicate offset wins, as in the ONNX reference).
#include <cstring>
#include <string>

#include "runtime/kernels/index_common.h"

namespace loom::kernels {

Status MaxUnpool(const TensorView& x, const TensorView& indices, const TensorView& y) {
  LOOM_RETURN_IF_ERROR(index_detail::CheckIndexType("max_unpool", indices));
  if (x.dtype != y.dtype || !SameShape(x, indices) || x.rank != y.rank) {
    return InvalidArgument("max_unpool: indices must have x's shape, y x's dtype and rank");
  }
  const int64_t total = y.NumElements(), n = x.NumElements();
  const size_t es = DTypeSize(y.dtype);
  if (total > 0) std::memset(y.data, 0, static_cast<size_t>(total) * es);
  for (int64_t i = 0; i < n; ++i) {
    const int64_t at = index_detail::IndexAt(indices, i);
    if (at < 0 || at >= total) {
      return InvalidArgument("max_unpool: index " + std::to_string(at) + " at position " +
                             std::to_string(i) + " is outside the output's " +
                             std::to_string(total) + " elements");
    }
    index_detail::CopyElement(x, i, y, at);
  }
  return Status::Ok();
}

}  // namespace loom::kernels
