// ONNX ArgMax / ArgMin: x seen as [outer, len, inner]; each of the outer * inner lines reports the
// position of its extreme element as int64.
#include <cmath>
#include <string>
#include <type_traits>

#include "runtime/kernels/kernels_reduce.h"

namespace loom::kernels {
namespace {

template <typename T>
bool IsNan(T v) {
  if constexpr (std::is_floating_point_v<T>) return std::isnan(v);
  return false;
}

template <typename T>
void Run(bool max, const T* x, int64_t outer, int64_t len, int64_t inner, bool last, int64_t* y) {
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t in = 0; in < inner; ++in) {
      const T* line = x + o * len * inner + in;
      int64_t best = 0;
      for (int64_t j = 1; j < len && !IsNan(line[best * inner]); ++j) {
        const T v = line[j * inner], b = line[best * inner];
        const bool better = max ? v > b : v < b;
        if (better || IsNan(v) || (last && v == b)) best = j;
      }
      y[o * inner + in] = best;
    }
  }
}

}  // namespace

Status ArgReduce(bool max, const TensorView& x, int axis, bool select_last_index,
                 const TensorView& y) {
  const char* name = max ? "argmax" : "argmin";
  if (y.dtype != DType::kI64) return InvalidArgument(std::string(name) + ": y must be i64");
  if (axis < 0 || axis >= x.rank) return InvalidArgument(std::string(name) + ": axis out of range");
  int64_t outer = 1, inner = 1;
  for (int i = 0; i < axis; ++i) outer *= x.shape[i];
  for (int i = axis + 1; i < x.rank; ++i) inner *= x.shape[i];
  const int64_t len = x.shape[axis];
  if (y.NumElements() != outer * inner) {
    return InvalidArgument(std::string(name) + ": y must have x's shape without the axis");
  }
  if (outer * inner == 0) return Status::Ok();
  if (len == 0) return InvalidArgument(std::string(name) + ": the reduced axis is empty");
  int64_t* yd = y.As<int64_t>();
  switch (x.dtype) {
    case DType::kF32:
      Run(max, x.As<const float>(), outer, len, inner, select_last_index, yd);
      return Status::Ok();
    case DType::kF64:
      Run(max, x.As<const double>(), outer, len, inner, select_last_index, yd);
      return Status::Ok();
    case DType::kI32:
      Run(max, x.As<const int32_t>(), outer, len, inner, select_last_index, yd);
      return Status::Ok();
    case DType::kI64:
      Run(max, x.As<const int64_t>(), outer, len, inner, select_last_index, yd);
      return Status::Ok();
    default:
      return InvalidArgument(std::string(name) + ": element type " + DTypeName(x.dtype) +
                             " is not supported (f32, f64, i32, i64)");
  }
}

}  // namespace loom::kernels
