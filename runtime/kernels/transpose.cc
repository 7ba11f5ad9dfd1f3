// ONNX Transpose for any dtype: walks the output in order and reads the input through permuted
// strides, one element-size memcpy per element (the dtype only matters for its size).
#include <cstring>

#include "runtime/kernels/kernels.h"

namespace loom::kernels {

Status Transpose(const TensorView& x, const int64_t* perm, const TensorView& y) {
  if (x.dtype != y.dtype || x.rank != y.rank) {
    return InvalidArgument("transpose: x and y must have the same dtype and rank");
  }
  bool seen[kMaxRank] = {};
  IndexWalker<1> walk;
  walk.rank = y.rank;
  for (int i = 0; i < y.rank; ++i) {
    if (perm[i] < 0 || perm[i] >= x.rank || seen[perm[i]]) {
      return InvalidArgument("transpose: perm is not a permutation of the axes");
    }
    seen[perm[i]] = true;
    if (y.shape[i] != x.shape[perm[i]]) {
      return InvalidArgument("transpose: y.shape[i] must equal x.shape[perm[i]]");
    }
    walk.shape[i] = y.shape[i];
    walk.strides[0][i] = x.strides[perm[i]];
  }
  const size_t es = DTypeSize(x.dtype);
  const auto* src = x.As<const uint8_t>();
  auto* dst = y.As<uint8_t>();
  const int64_t n = y.NumElements();
  for (int64_t i = 0; i < n; ++i, walk.Next()) {
    std::memcpy(dst + i * es, src + walk.offset[0] * es, es);
  }
  return Status::Ok();
}

}  // namespace loom::kernels
