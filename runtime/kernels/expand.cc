// ONNX Expand for any dtype: y's shape is the broadcast of x's with the target (the importer
// resolved it), and x is read through broadcast strides (0 on the dims it repeats).
#include <cstring>

#include "runtime/kernels/kernels_index.h"

namespace loom::kernels {

Status Expand(const TensorView& x, const TensorView& y) {
  if (x.dtype != y.dtype || x.rank > y.rank) {
    return InvalidArgument("expand: y must have x's dtype and at least its rank");
  }
  for (int i = 0; i < x.rank; ++i) {
    const int64_t d = x.shape[i], o = y.shape[y.rank - x.rank + i];
    if (d != o && d != 1) return InvalidArgument("expand: x does not broadcast to y's shape");
  }
  IndexWalker<1> walk;
  walk.rank = y.rank;
  for (int i = 0; i < y.rank; ++i) walk.shape[i] = y.shape[i];
  BroadcastStrides(x, y.rank, walk.strides[0]);
  const size_t es = DTypeSize(x.dtype);
  const auto* src = x.As<const uint8_t>();
  auto* dst = y.As<uint8_t>();
  const int64_t n = y.NumElements();
  for (int64_t i = 0; i < n; ++i, walk.Next()) {
    std::memcpy(dst + static_cast<size_t>(i) * es, src + static_cast<size_t>(walk.offset[0]) * es,
                es);
  }
  return Status::Ok();
}

}  // namespace loom::kernels
