// ONNX GatherND for any dtype. indices [b..., n..., k] with the first batch_dims dims shared with
// data: each index tuple of length k selects data[b..., i1..ik, :], a contiguous block of the
// remaining data dims, which is copied whole.
#include <cstring>
#include <string>

#include "runtime/kernels/index_common.h"

namespace loom::kernels {

Status GatherND(const TensorView& data, const TensorView& indices, int batch_dims,
                const TensorView& y) {
  LOOM_RETURN_IF_ERROR(index_detail::CheckIndexType("gather_nd", indices));
  if (indices.rank < 1 || data.dtype != y.dtype || batch_dims < 0 || batch_dims >= indices.rank ||
      batch_dims >= data.rank) {
    return InvalidArgument(
        "gather_nd: needs rank(indices) >= 1, batch_dims < both ranks, y of "
        "data's dtype");
  }
  const int64_t k = indices.shape[indices.rank - 1];
  if (k < 1 || batch_dims + k > data.rank) {
    return InvalidArgument("gather_nd: index tuples of length " + std::to_string(k) +
                           " do not fit data of rank " + std::to_string(data.rank) + " after " +
                           std::to_string(batch_dims) + " batch dims");
  }
  int64_t batch = 1, per_batch = 1, block = 1;
  for (int d = 0; d < batch_dims; ++d) {
    if (indices.shape[d] != data.shape[d]) {
      return InvalidArgument("gather_nd: batch dim " + std::to_string(d) + " differs");
    }
    batch *= data.shape[d];
  }
  for (int d = batch_dims; d < indices.rank - 1; ++d) per_batch *= indices.shape[d];
  for (int d = batch_dims + static_cast<int>(k); d < data.rank; ++d) block *= data.shape[d];
  if (y.NumElements() != batch * per_batch * block) {
    return InvalidArgument("gather_nd: y must hold " + std::to_string(batch * per_batch * block) +
                           " elements");
  }
  // Elements per batch of data: the product of data's dims after the batch dims.
  int64_t data_batch = 1;
  for (int d = batch_dims; d < data.rank; ++d) data_batch *= data.shape[d];
  const size_t es = DTypeSize(data.dtype), bytes = static_cast<size_t>(block) * es;
  auto* dst = y.As<uint8_t>();
  const auto* src = data.As<const uint8_t>();
  for (int64_t b = 0; b < batch; ++b) {
    for (int64_t t = 0; t < per_batch; ++t) {
      const int64_t tuple = (b * per_batch + t) * k;
      int64_t off = b * data_batch;
      for (int64_t j = 0; j < k; ++j) {
        const int d = batch_dims + static_cast<int>(j);
        int64_t idx = 0;
        LOOM_RETURN_IF_ERROR(index_detail::Resolve("gather_nd",
                                                   index_detail::IndexAt(indices, tuple + j),
                                                   data.shape[d], tuple + j, &idx));
        off += idx * data.strides[d];
      }
      if (bytes > 0) std::memcpy(dst, src + static_cast<size_t>(off) * es, bytes);
      dst += bytes;
    }
  }
  return Status::Ok();
}

}  // namespace loom::kernels
