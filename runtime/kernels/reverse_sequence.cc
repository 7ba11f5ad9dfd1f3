// ONNX ReverseSequence for any dtype: along time_axis, batch b's first sequence_lens[b] steps are
// reversed and the rest copied. Each output element reads the input at its own coordinates with
// the time coordinate mirrored when it falls within its batch's length.
#include <cstring>
#include <string>

#include "runtime/kernels/index_common.h"

namespace loom::kernels {

Status ReverseSequence(const TensorView& x, const TensorView& sequence_lens, int batch_axis,
                       int time_axis, const TensorView& y) {
  LOOM_RETURN_IF_ERROR(index_detail::CheckIndexType("reverse_sequence", sequence_lens));
  if (x.dtype != y.dtype || !SameShape(x, y) || x.rank < 2 || batch_axis < 0 ||
      batch_axis >= x.rank || time_axis < 0 || time_axis >= x.rank || batch_axis == time_axis) {
    return InvalidArgument("reverse_sequence: y must match x (rank >= 2), distinct axes in range");
  }
  const int64_t batches = x.shape[batch_axis], steps = x.shape[time_axis];
  if (sequence_lens.rank != 1 || sequence_lens.shape[0] != batches) {
    return InvalidArgument(
        "reverse_sequence: sequence_lens must be 1-D with one entry per batch (" +
        std::to_string(batches) + ")");
  }
  for (int64_t b = 0; b < batches; ++b) {
    const int64_t len = index_detail::IndexAt(sequence_lens, b);
    if (len < 0 || len > steps) {
      return InvalidArgument("reverse_sequence: sequence_lens[" + std::to_string(b) +
                             "] = " + std::to_string(len) + " is outside [0, " +
                             std::to_string(steps) + "]");
    }
  }
  int64_t idx[kMaxRank] = {};
  const int64_t n = x.NumElements();
  for (int64_t o = 0; o < n; ++o) {
    const int64_t len = index_detail::IndexAt(sequence_lens, idx[batch_axis]);
    int64_t off = 0;
    for (int d = 0; d < x.rank; ++d) {
      const int64_t c = d == time_axis && idx[d] < len ? len - 1 - idx[d] : idx[d];
      off += c * x.strides[d];
    }
    index_detail::CopyElement(x, off, y, o);
    for (int d = x.rank - 1; d >= 0; --d) {
      if (++idx[d] < x.shape[d]) break;
      idx[d] = 0;
    }
  }
  return Status::Ok();
}

}  // namespace loom::kernels
