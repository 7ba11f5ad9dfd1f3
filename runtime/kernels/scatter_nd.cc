// ONNX ScatterND for any dtype (reductions on numeric ones): y starts as data; each index tuple
// (the last dim of indices, length k) then writes, adds or multiplies its block of updates into
// y[i1..ik, :]. Duplicate tuples apply in index order, as the ONNX reference does.
#include <cstring>
#include <string>

#include "runtime/kernels/index_common.h"

namespace loom::kernels {

Status ScatterND(const TensorView& data, const TensorView& indices, const TensorView& updates,
                 ScatterReduction reduction, const TensorView& y) {
  LOOM_RETURN_IF_ERROR(index_detail::CheckIndexType("scatter_nd", indices));
  LOOM_RETURN_IF_ERROR(index_detail::ReductionType("scatter_nd", reduction, data.dtype));
  if (!SameShape(data, y) || data.dtype != y.dtype || updates.dtype != data.dtype ||
      indices.rank < 1) {
    return InvalidArgument("scatter_nd: y and updates must match data's dtype (y its shape too)");
  }
  const int64_t k = indices.shape[indices.rank - 1];
  if (k < 1 || k > data.rank) {
    return InvalidArgument("scatter_nd: index tuples of length " + std::to_string(k) +
                           " for data of rank " + std::to_string(data.rank));
  }
  // updates.shape == indices.shape[:-1] + data.shape[k:]
  const int want_rank = indices.rank - 1 + data.rank - static_cast<int>(k);
  bool shape_ok = updates.rank == want_rank;
  for (int d = 0; shape_ok && d < want_rank; ++d) {
    const int64_t want =
        d < indices.rank - 1 ? indices.shape[d] : data.shape[d - (indices.rank - 1) + k];
    shape_ok = updates.shape[d] == want;
  }
  if (!shape_ok) {
    return InvalidArgument(
        "scatter_nd: updates must have shape indices.shape[:-1] + "
        "data.shape[k:]");
  }
  int64_t block = 1;
  for (int d = static_cast<int>(k); d < data.rank; ++d) block *= data.shape[d];
  const int64_t tuples = indices.NumElements() / k;
  const size_t es = DTypeSize(data.dtype);
  if (y.NumElements() > 0 && y.data != data.data) {
    std::memcpy(y.data, data.data, static_cast<size_t>(y.NumElements()) * es);
  }
  for (int64_t t = 0; t < tuples; ++t) {
    int64_t off = 0;
    for (int64_t j = 0; j < k; ++j) {
      int64_t idx = 0;
      LOOM_RETURN_IF_ERROR(index_detail::Resolve(
          "scatter_nd", index_detail::IndexAt(indices, t * k + j), data.shape[j], t * k + j, &idx));
      off += idx * data.strides[j];
    }
    for (int64_t e = 0; e < block; ++e) {
      index_detail::Apply(reduction, updates, t * block + e, y, off + e);
    }
  }
  return Status::Ok();
}

}  // namespace loom::kernels
