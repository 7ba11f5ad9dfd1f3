// ONNX GatherElements for any dtype: walks indices' shape; each element reads data at its own
// coordinates with the one on `axis` replaced by the index.
#include <string>

#include "runtime/kernels/index_common.h"

namespace loom::kernels {

Status GatherElements(const TensorView& data, const TensorView& indices, int axis,
                      const TensorView& y) {
  LOOM_RETURN_IF_ERROR(index_detail::CheckIndexType("gather_elements", indices));
  if (data.dtype != y.dtype || axis < 0 || axis >= data.rank || indices.rank != data.rank ||
      !SameShape(indices, y)) {
    return InvalidArgument(
        "gather_elements: indices must have data's rank and y indices' shape and data's dtype");
  }
  for (int d = 0; d < data.rank; ++d) {
    if (d != axis && indices.shape[d] > data.shape[d]) {
      return InvalidArgument("gather_elements: indices dim " + std::to_string(d) +
                             " exceeds data's");
    }
  }
  IndexWalker<1> walk;  // offset into data, without the axis coordinate
  walk.rank = indices.rank;
  for (int d = 0; d < indices.rank; ++d) {
    walk.shape[d] = indices.shape[d];
    walk.strides[0][d] = d == axis ? 0 : data.strides[d];
  }
  const int64_t n = indices.NumElements();
  for (int64_t i = 0; i < n; ++i, walk.Next()) {
    int64_t idx = 0;
    LOOM_RETURN_IF_ERROR(index_detail::Resolve("gather_elements", index_detail::IndexAt(indices, i),
                                               data.shape[axis], i, &idx));
    index_detail::CopyElement(data, walk.offset[0] + idx * data.strides[axis], y, i);
  }
  return Status::Ok();
}

}  // namespace loom::kernels
