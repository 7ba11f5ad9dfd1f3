// ONNX Tile for any dtype: the repeats are y's dims over x's, and every output coordinate reads
// x at the coordinate modulo x's dim.
#include <cstring>
#include <string>

#include "runtime/kernels/kernels_index.h"

namespace loom::kernels {

Status Tile(const TensorView& x, const TensorView& y) {
  if (x.dtype != y.dtype || x.rank != y.rank) {
    return InvalidArgument("tile: x and y must have the same dtype and rank");
  }
  for (int i = 0; i < x.rank; ++i) {
    const bool whole = x.shape[i] == 0 ? y.shape[i] == 0 : y.shape[i] % x.shape[i] == 0;
    if (!whole) {
      return InvalidArgument("tile: y.shape[" + std::to_string(i) +
                             "] = " + std::to_string(y.shape[i]) + " is not a multiple of x's " +
                             std::to_string(x.shape[i]));
    }
  }
  const size_t es = DTypeSize(x.dtype);
  const auto* src = x.As<const uint8_t>();
  auto* dst = y.As<uint8_t>();
  const int64_t n = y.NumElements();
  int64_t idx[kMaxRank] = {};
  for (int64_t o = 0; o < n; ++o) {
    int64_t off = 0;
    for (int i = 0; i < y.rank; ++i) off += (idx[i] % x.shape[i]) * x.strides[i];
    std::memcpy(dst + static_cast<size_t>(o) * es, src + static_cast<size_t>(off) * es, es);
    for (int i = y.rank - 1; i >= 0; --i) {
      if (++idx[i] < y.shape[i]) break;
      idx[i] = 0;
    }
  }
  return Status::Ok();
}

}  // namespace loom::kernels
