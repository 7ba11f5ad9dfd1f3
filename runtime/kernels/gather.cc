// ONNX Gather for any dtype: y viewed as [outer, count(indices), inner] copies, per index, one
// contiguous block of `inner` elements from data viewed as [outer, data.shape[axis], inner].
#include <cstring>
#include <string>

#include "runtime/kernels/index_common.h"

namespace loom::kernels {

using index_detail::IndexAt;

Status Gather(const TensorView& data, const TensorView& indices, int axis, const TensorView& y) {
  LOOM_RETURN_IF_ERROR(index_detail::CheckIndexType("gather", indices));
  if (data.dtype != y.dtype || axis < 0 || axis >= data.rank ||
      y.rank != data.rank - 1 + indices.rank) {
    return InvalidArgument("gather: y must have data's dtype and rank(data) - 1 + rank(indices)");
  }
  int64_t outer = 1, inner = 1;
  for (int i = 0; i < axis; ++i) outer *= data.shape[i];
  for (int i = axis + 1; i < data.rank; ++i) inner *= data.shape[i];
  for (int i = 0; i < y.rank; ++i) {
    const int64_t want = i < axis                  ? data.shape[i]
                         : i < axis + indices.rank ? indices.shape[i - axis]
                                                   : data.shape[i - indices.rank + 1];
    if (y.shape[i] != want) {
      return InvalidArgument("gather: y.shape[" + std::to_string(i) + "] must be " +
                             std::to_string(want));
    }
  }
  const int64_t count = indices.NumElements(), dim = data.shape[axis];
  const size_t block = static_cast<size_t>(inner) * DTypeSize(data.dtype);
  const auto* src = data.As<const uint8_t>();
  auto* dst = y.As<uint8_t>();
  for (int64_t k = 0; k < count; ++k) {  // validate once, before any write
    int64_t idx = 0;
    LOOM_RETURN_IF_ERROR(index_detail::Resolve("gather", IndexAt(indices, k), dim, k, &idx));
  }
  if (block == 0) return Status::Ok();
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t k = 0; k < count; ++k) {
      int64_t idx = IndexAt(indices, k);
      if (idx < 0) idx += dim;
      std::memcpy(dst, src + static_cast<size_t>(o * dim + idx) * block, block);
      dst += block;
    }
  }
  return Status::Ok();
}

}  // namespace loom::kernels
