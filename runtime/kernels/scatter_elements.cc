// ONNX ScatterElements (and the older Scatter) for any dtype (reductions on numeric ones): y
// starts as data; every element of updates then lands at its own coordinates with the one on
// `axis` replaced by the matching index, in row-major order of indices.
#include <cstring>
#include <string>

#include "runtime/kernels/index_common.h"

namespace loom::kernels {

Status ScatterElements(const TensorView& data, const TensorView& indices, const TensorView& updates,
                       int axis, ScatterReduction reduction, const TensorView& y) {
  LOOM_RETURN_IF_ERROR(index_detail::CheckIndexType("scatter_elements", indices));
  LOOM_RETURN_IF_ERROR(index_detail::ReductionType("scatter_elements", reduction, data.dtype));
  if (!SameShape(data, y) || data.dtype != y.dtype || updates.dtype != data.dtype ||
      !SameShape(indices, updates) || indices.rank != data.rank || axis < 0 || axis >= data.rank) {
    return InvalidArgument(
        "scatter_elements: y must match data, updates indices' shape and data's dtype, ranks "
        "equal");
  }
  for (int d = 0; d < data.rank; ++d) {
    if (d != axis && indices.shape[d] > data.shape[d]) {
      return InvalidArgument("scatter_elements: indices dim " + std::to_string(d) +
                             " exceeds data's");
    }
  }
  const size_t es = DTypeSize(data.dtype);
  if (y.NumElements() > 0 && y.data != data.data) {
    std::memcpy(y.data, data.data, static_cast<size_t>(y.NumElements()) * es);
  }
  IndexWalker<1> walk;
  walk.rank = indices.rank;
  for (int d = 0; d < indices.rank; ++d) {
    walk.shape[d] = indices.shape[d];
    walk.strides[0][d] = d == axis ? 0 : y.strides[d];
  }
  const int64_t n = indices.NumElements();
  for (int64_t i = 0; i < n; ++i, walk.Next()) {
    int64_t idx = 0;
    LOOM_RETURN_IF_ERROR(index_detail::Resolve(
        "scatter_elements", index_detail::IndexAt(indices, i), data.shape[axis], i, &idx));
    index_detail::Apply(reduction, updates, i, y, walk.offset[0] + idx * y.strides[axis]);
  }
  return Status::Ok();
}

}  // namespace loom::kernels
