// The two ways the axis kernels walk a tensor, written once:
//   - along one axis (softmax, log-softmax, hardmax): the tensor seen as [outer, axis, inner], a
//     callback per line of `axis`;
//   - over a set of reduced dims (reductions, mean-variance normalization): one walker over the
//     kept dims, one over the reduced dims of a group.
#ifndef LOOM_RUNTIME_KERNELS_AXIS_WALK_H_
#define LOOM_RUNTIME_KERNELS_AXIS_WALK_H_

#include <string>

#include "runtime/kernels/tensor.h"

namespace loom::kernels {

// Checks that x and y are f32 of one shape and `axis` is one of their dims, then calls
// line(x_line, y_line, len, stride) for each line along `axis` (element j of a line at
// x_line[j * stride]). `op` names the kernel in the errors.
template <typename Line>
Status ForEachAxisLine(const char* op, const TensorView& x, int axis, const TensorView& y,
                       Line line) {
  if (x.dtype != DType::kF32 || y.dtype != DType::kF32 || !SameShape(x, y)) {
    return InvalidArgument(std::string(op) + ": x and y must be f32 of the same shape");
  }
  if (axis < 0 || axis >= x.rank) return InvalidArgument(std::string(op) + ": axis out of range");
  // Nothing to do; the loops below could otherwise spin over an empty tensor's other dims.
  if (x.NumElements() == 0) return Status::Ok();
  int64_t outer = 1, inner = 1;
  for (int i = 0; i < axis; ++i) outer *= x.shape[i];
  for (int i = axis + 1; i < x.rank; ++i) inner *= x.shape[i];
  const int64_t len = x.shape[axis];
  const float* xd = x.As<const float>();
  float* yd = y.As<float>();
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t in = 0; in < inner; ++in) {
      const int64_t base = o * len * inner + in;
      line(xd + base, yd + base, len, inner);
    }
  }
  return Status::Ok();
}

// Splits x's dims between `outer` (the kept dims; the reduced ones have extent 1) and `inner`
// (the dims whose bit is set in `axes`; the kept ones have extent 1), both over x's strides, and
// returns how many elements one reduced group holds. A group's walk starts from a copy of
// `inner` whose offset is outer's current offset.
inline int64_t SplitReducedDims(const TensorView& x, uint32_t axes, IndexWalker<1>* outer,
                                IndexWalker<1>* inner) {
  outer->rank = inner->rank = x.rank;
  int64_t count = 1;
  for (int d = 0; d < x.rank; ++d) {
    const bool reduced = (axes >> d) & 1u;
    outer->shape[d] = reduced ? 1 : x.shape[d];
    inner->shape[d] = reduced ? x.shape[d] : 1;
    outer->strides[0][d] = inner->strides[0][d] = x.strides[d];
    if (reduced) count *= x.shape[d];
  }
  return count;
}

}  // namespace loom::kernels

#endif  // LOOM_RUNTIME_KERNELS_AXIS_WALK_H_
