// ONNX Concat for any dtype: the output is [outer, sum of axis dims, inner]; each input
// contributes one contiguous chunk of axis_dim * inner elements per outer index.
#include <cstring>

#include "runtime/core/checked_math.h"
#include "runtime/kernels/kernels.h"

namespace loom::kernels {

Status Concat(const TensorView* const* inputs, int count, int axis, const TensorView& y) {
  if (count < 1) return InvalidArgument("concat: needs at least one input");
  if (axis < 0 || axis >= y.rank) return InvalidArgument("concat: axis out of range");
  int64_t total = 0;
  for (int k = 0; k < count; ++k) {
    const TensorView& in = *inputs[k];
    if (in.dtype != y.dtype || in.rank != y.rank) {
      return InvalidArgument("concat: inputs must match y's dtype and rank");
    }
    for (int i = 0; i < y.rank; ++i) {
      if (i != axis && in.shape[i] != y.shape[i]) {
        return InvalidArgument("concat: inputs differ from y outside the concat axis");
      }
    }
    if (!CheckedAdd(total, in.shape[axis], &total)) {
      return InvalidArgument("concat: axis dims add up past 64 bits");
    }
  }
  if (total != y.shape[axis]) return InvalidArgument("concat: axis dims do not add up to y's");
  // Nothing to copy; the outer loop below could otherwise spin over an empty tensor's other dims.
  if (y.NumElements() == 0) return Status::Ok();
  int64_t outer = 1, inner = 1;
  for (int i = 0; i < axis; ++i) outer *= y.shape[i];
  for (int i = axis + 1; i < y.rank; ++i) inner *= y.shape[i];
  const size_t es = DTypeSize(y.dtype);
  auto* dst = y.As<uint8_t>();
  for (int64_t o = 0; o < outer; ++o) {
    for (int k = 0; k < count; ++k) {
      const TensorView& in = *inputs[k];
      const size_t chunk = static_cast<size_t>(in.shape[axis] * inner) * es;
      if (chunk == 0) continue;
      std::memcpy(dst, in.As<const uint8_t>() + o * chunk, chunk);
      dst += chunk;
    }
  }
  return Status::Ok();
}

}  // namespace loom::kernels
