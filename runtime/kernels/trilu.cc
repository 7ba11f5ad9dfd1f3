// ONNX Trilu for any dtype: over each matrix of the last two dims, element (i, j) is kept when
// j - i >= k (upper) or j - i <= k (lower), else zero (all-zero bytes are 0 in every dtype).
#include <cstring>

#include "runtime/kernels/kernels_index.h"

namespace loom::kernels {

Status Trilu(const TensorView& x, int64_t k, bool upper, const TensorView& y) {
  if (x.dtype != y.dtype || !SameShape(x, y) || x.rank < 2) {
    return InvalidArgument("trilu: x and y must match and have rank >= 2");
  }
  const int64_t rows = x.shape[x.rank - 2], cols = x.shape[x.rank - 1];
  const int64_t n = x.NumElements();
  const size_t es = DTypeSize(x.dtype);
  const auto* src = x.As<const uint8_t>();
  auto* dst = y.As<uint8_t>();
  for (int64_t e = 0; e < n; ++e) {
    const int64_t i = (e / cols) % rows, j = e % cols;
    const bool keep = upper ? j - i >= k : j - i <= k;
    if (keep) {
      std::memcpy(dst + static_cast<size_t>(e) * es, src + static_cast<size_t>(e) * es, es);
    } else {
      std::memset(dst + static_cast<size_t>(e) * es, 0, es);
    }
  }
  return Status::Ok();
}

}  // namespace loom::kernels
