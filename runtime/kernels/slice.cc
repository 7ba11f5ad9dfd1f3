// ONNX Slice for any dtype, after the importer resolved starts/ends/axes/steps into one start and
// one step per dim (negative steps walk backwards): the output is walked in order and the source
// offset follows per-dim strides of step * x.stride.
#include <cstring>
#include <string>

#include "runtime/kernels/kernels_index.h"

namespace loom::kernels {

Status Slice(const TensorView& x, const int64_t* starts, const int64_t* steps,
             const TensorView& y) {
  if (x.dtype != y.dtype || x.rank != y.rank) {
    return InvalidArgument("slice: x and y must have the same dtype and rank");
  }
  IndexWalker<1> walk;
  walk.rank = y.rank;
  int64_t base = 0;
  for (int i = 0; i < y.rank; ++i) {
    if (steps[i] == 0) return InvalidArgument("slice: step of dim " + std::to_string(i) + " is 0");
    if (y.shape[i] == 0) return Status::Ok();  // nothing to read, starts may be anything
    // The first and the last element read must lie inside the dim.
    const int64_t last = starts[i] + (y.shape[i] - 1) * steps[i];
    if (starts[i] < 0 || starts[i] >= x.shape[i] || last < 0 || last >= x.shape[i]) {
      return InvalidArgument("slice: dim " + std::to_string(i) + " reads [" +
                             std::to_string(starts[i]) + " .. " + std::to_string(last) +
                             "] of an axis of " + std::to_string(x.shape[i]));
    }
    walk.shape[i] = y.shape[i];
    walk.strides[0][i] = steps[i] * x.strides[i];
    base += starts[i] * x.strides[i];
  }
  const size_t es = DTypeSize(x.dtype);
  const auto* src = x.As<const uint8_t>() + base * static_cast<int64_t>(es);
  auto* dst = y.As<uint8_t>();
  const int64_t n = y.NumElements();
  for (int64_t i = 0; i < n; ++i, walk.Next()) {
    std::memcpy(dst + i * static_cast<int64_t>(es), src + walk.offset[0] * static_cast<int64_t>(es),
                es);
  }
  return Status::Ok();
}

}  // namespace loom::kernels
