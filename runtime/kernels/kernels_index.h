// The reference kernels of the shape and indexing family (issue 12): Slice, Gather,
// GatherElements, GatherND, ScatterND, ScatterElements, Expand, Tile, Trilu, Range,
// ConstantOfShape, EyeLike, OneHot, NonZero, ReverseSequence, Shape and Size. Same contract as
// kernels.h (caller-provided outputs of their final shape, no allocation, resolved attributes).
//
// Most of them move elements without looking at them, so they take any dtype and copy
// DTypeSize(dtype) bytes per element. Index operands are i32 or i64; negative indices count from
// the end of their axis (as ONNX allows), and an index outside [-dim, dim) is an error naming the
// position, never a read or write out of bounds: indices usually arrive at run time.
#ifndef LOOM_RUNTIME_KERNELS_KERNELS_INDEX_H_
#define LOOM_RUNTIME_KERNELS_KERNELS_INDEX_H_

#include <cstdint>

#include "runtime/core/status.h"
#include "runtime/kernels/tensor.h"

namespace loom::kernels {

// slice.cc — y[i0, i1, ...] = x[starts[0] + i0 * steps[0], ...]: one start (in [0, dim)) and one
// non-zero step per dim; y's shape gives the count. Any dtype.
Status Slice(const TensorView& x, const int64_t* starts, const int64_t* steps, const TensorView& y);

// gather.cc — ONNX Gather: y = data indexed along `axis` by every element of `indices`;
// y.shape = data.shape[:axis] + indices.shape + data.shape[axis+1:]. Any dtype.
Status Gather(const TensorView& data, const TensorView& indices, int axis, const TensorView& y);

// gather_elements.cc — ONNX GatherElements: y has indices' shape, y[i] = data[i with i[axis]
// replaced by indices[i]]. Any dtype.
Status GatherElements(const TensorView& data, const TensorView& indices, int axis,
                      const TensorView& y);

// gather_nd.cc — ONNX GatherND: the last dim of indices (q-1 leading dims, the first batch_dims
// of them shared with data) addresses a slice of data. Any dtype.
Status GatherND(const TensorView& data, const TensorView& indices, int batch_dims,
                const TensorView& y);

enum class ScatterReduction : uint8_t { kNone = 0, kAdd = 1, kMul = 2 };

// scatter_nd.cc — ONNX ScatterND: y = data, then each index tuple (last dim of indices) writes
// (or adds / multiplies, in index order) its slice of updates. kNone takes any dtype; kAdd and
// kMul take f32, f64, i8, u8, i16, i32, i64.
Status ScatterND(const TensorView& data, const TensorView& indices, const TensorView& updates,
                 ScatterReduction reduction, const TensorView& y);

// scatter_elements.cc — ONNX ScatterElements (and Scatter-9/11): y = data, then
// y[i with i[axis] = indices[i]] = updates[i] (or += / *=) for every i of indices' shape.
Status ScatterElements(const TensorView& data, const TensorView& indices, const TensorView& updates,
                       int axis, ScatterReduction reduction, const TensorView& y);

// expand.cc — ONNX Expand: x broadcast (numpy rules) to y's shape. Any dtype.
Status Expand(const TensorView& x, const TensorView& y);

// tile.cc — ONNX Tile: y.shape[i] = x.shape[i] * repeats[i], y[i] = x[i mod x.shape]. Any dtype.
Status Tile(const TensorView& x, const TensorView& y);

// trilu.cc — ONNX Trilu on the last two dims: keeps j - i >= k (upper) or j - i <= k (lower),
// zeroes the rest. Any dtype.
Status Trilu(const TensorView& x, int64_t k, bool upper, const TensorView& y);

// range.cc — ONNX Range: y[i] = start + i * delta for y's length; start and delta are scalars of
// y's dtype (f32, f64, i16, i32, i64).
Status Range(const TensorView& start, const TensorView& delta, const TensorView& y);

// constant_of_shape.cc — every element of y is value's one element (same dtype). Any dtype.
Status ConstantOfShape(const TensorView& value, const TensorView& y);

// eye_like.cc — ONNX EyeLike on a 2-D y: 1 where column - row == k, else 0. Numeric dtypes
// and bool.
Status EyeLike(int64_t k, const TensorView& y);
// Whether EyeLike can write type t (the types that have a 1).
bool EyeLikeTakes(DType t);

// one_hot.cc — ONNX OneHot: y has indices' shape with depth = y.shape[axis] inserted at axis;
// values = [off, on] of y's dtype; indices (any integer or float dtype) outside [-depth, depth)
// give an all-off row, as ONNX specifies.
Status OneHot(const TensorView& indices, const TensorView& values, int axis, const TensorView& y);

// nonzero.cc — ONNX NonZero: y is i64 [rank, count] of the coordinates of x's non-zero elements
// in row-major order. count (y's dim 1) must equal the number of non-zeros: the caller sizes y
// from the data (NonZeroCount).
Status NonZero(const TensorView& x, const TensorView& y);
Status NonZeroCount(const TensorView& x, int64_t* count);

// reverse_sequence.cc — ONNX ReverseSequence: for each batch b, the first sequence_lens[b]
// elements along time_axis are reversed, the rest copied. Any dtype; sequence_lens i32 or i64.
Status ReverseSequence(const TensorView& x, const TensorView& sequence_lens, int batch_axis,
                       int time_axis, const TensorView& y);

// max_unpool.cc — ONNX MaxUnpool: y is zero except at x's elements. indices (x's shape) are flat
// offsets as MaxPool returns them, into a tensor of `index_shape` (y.rank dims: the unpadded
// unpool shape); each lands at the same coordinates in y, which may be larger (output_shape).
// Any dtype.
Status MaxUnpool(const TensorView& x, const TensorView& indices, const int64_t* index_shape,
                 const TensorView& y);

// shape.cc — ONNX Shape: y (i64, 1-D) = x.shape[start, start + y.shape[0]). ONNX Size: y (i64
// scalar) = x's element count. Only x's shape is read.
Status ShapeOf(const TensorView& x, int64_t start, const TensorView& y);
Status SizeOf(const TensorView& x, const TensorView& y);

}  // namespace loom::kernels

#endif  // LOOM_RUNTIME_KERNELS_KERNELS_INDEX_H_
