// ONNX TopK along one axis of [outer, axis, inner]. Elements are ranked by (value, index): larger
// values first for `largest` (smaller first otherwise), the lower index first among equals, as
// ONNX specifies. The j-th pick is the best element ranked after the (j-1)-th, found by one scan,
// so a line costs O(k * n) and nothing is allocated or reordered in place. NaN ranks above every
// number for `largest` and below for smallest (NumPy's sort order puts it last either way).
#include <cmath>
#include <string>

#include "runtime/kernels/kernels_reduce.h"

namespace loom::kernels {
namespace {

// Whether (a, ia) ranks before (b, ib).
bool Before(float a, int64_t ia, float b, int64_t ib, bool largest) {
  const bool an = std::isnan(a), bn = std::isnan(b);
  if (an || bn) {
    if (an && bn) return ia < ib;
    return largest ? an : bn;
  }
  if (a != b) return largest ? a > b : a < b;
  return ia < ib;
}

}  // namespace

Status TopK(const TensorView& x, int axis, bool largest, const TensorView& values,
            const TensorView& indices) {
  if (x.dtype != DType::kF32 || values.dtype != DType::kF32 || indices.dtype != DType::kI64) {
    return InvalidArgument("topk: x and values must be f32, indices i64");
  }
  if (axis < 0 || axis >= x.rank) return InvalidArgument("topk: axis out of range");
  if (!SameShape(values, indices) || values.rank != x.rank) {
    return InvalidArgument("topk: values and indices must have x's rank and one shape");
  }
  for (int d = 0; d < x.rank; ++d) {
    if (d != axis && values.shape[d] != x.shape[d]) {
      return InvalidArgument("topk: outputs differ from x outside the axis (dim " +
                             std::to_string(d) + ")");
    }
  }
  const int64_t len = x.shape[axis], k = values.shape[axis];
  if (k > len) {
    return InvalidArgument("topk: k " + std::to_string(k) + " exceeds the axis length " +
                           std::to_string(len));
  }
  if (values.NumElements() == 0) return Status::Ok();
  int64_t outer = 1, inner = 1;
  for (int i = 0; i < axis; ++i) outer *= x.shape[i];
  for (int i = axis + 1; i < x.rank; ++i) inner *= x.shape[i];
  const float* xd = x.As<const float>();
  float* vd = values.As<float>();
  int64_t* id = indices.As<int64_t>();
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t in = 0; in < inner; ++in) {
      const float* line = xd + o * len * inner + in;
      const int64_t out = o * k * inner + in;
      int64_t prev = -1;
      for (int64_t j = 0; j < k; ++j) {
        int64_t best = -1;
        for (int64_t i = 0; i < len; ++i) {
          if (prev >= 0 && !Before(line[prev * inner], prev, line[i * inner], i, largest)) continue;
          if (best < 0 || Before(line[i * inner], i, line[best * inner], best, largest)) best = i;
        }
        vd[out + j * inner] = line[best * inner];
        id[out + j * inner] = best;
        prev = best;
      }
    }
  }
  return Status::Ok();
}

}  // namespace loom::kernels
