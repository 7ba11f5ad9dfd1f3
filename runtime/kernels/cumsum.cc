// ONNX CumSum along one axis of [outer, axis, inner]: running sums forwards or backwards, with
// or without the element itself. Sums run in the element type, as ONNX's reference does.
#include <string>

#include "runtime/kernels/kernels_reduce.h"

namespace loom::kernels {
namespace {

template <typename T>
void Run(const T* x, int64_t outer, int64_t len, int64_t inner, bool exclusive, bool reverse,
         T* y) {
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t in = 0; in < inner; ++in) {
      const int64_t base = o * len * inner + in;
      T acc = 0;
      for (int64_t k = 0; k < len; ++k) {
        const int64_t j = reverse ? len - 1 - k : k;
        const T v = x[base + j * inner];
        if (!exclusive) acc += v;
        y[base + j * inner] = acc;
        if (exclusive) acc += v;
      }
    }
  }
}

}  // namespace

Status CumSum(const TensorView& x, int axis, bool exclusive, bool reverse, const TensorView& y) {
  if (x.dtype != y.dtype || !SameShape(x, y)) {
    return InvalidArgument("cumsum: x and y must have one element type and shape");
  }
  if (axis < 0 || axis >= x.rank) return InvalidArgument("cumsum: axis out of range");
  if (x.NumElements() == 0) return Status::Ok();
  int64_t outer = 1, inner = 1;
  for (int i = 0; i < axis; ++i) outer *= x.shape[i];
  for (int i = axis + 1; i < x.rank; ++i) inner *= x.shape[i];
  const int64_t len = x.shape[axis];
  switch (x.dtype) {
    case DType::kF32:
      Run(x.As<const float>(), outer, len, inner, exclusive, reverse, y.As<float>());
      return Status::Ok();
    case DType::kF64:
      Run(x.As<const double>(), outer, len, inner, exclusive, reverse, y.As<double>());
      return Status::Ok();
    case DType::kI32:
      Run(x.As<const int32_t>(), outer, len, inner, exclusive, reverse, y.As<int32_t>());
      return Status::Ok();
    case DType::kI64:
      Run(x.As<const int64_t>(), outer, len, inner, exclusive, reverse, y.As<int64_t>());
      return Status::Ok();
    default:
      return InvalidArgument(std::string("cumsum: element type ") + DTypeName(x.dtype) +
                             " is not supported (f32, f64, i32, i64)");
  }
}

}  // namespace loom::kernels
