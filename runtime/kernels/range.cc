// ONNX Range: y[i] = start + i * delta, the element count fixed by y (the shape function computed
// max(ceil((limit - start) / delta), 0) from constant inputs). Computed in the output type, as
// the ONNX reference (numpy.arange) does for each type.
#include <string>

#include "runtime/kernels/kernels_index.h"

namespace loom::kernels {
namespace {

template <typename T>
void Fill(const TensorView& start, const TensorView& delta, const TensorView& y) {
  const T s = start.As<const T>()[0], d = delta.As<const T>()[0];
  T* out = y.As<T>();
  const int64_t n = y.NumElements();
  for (int64_t i = 0; i < n; ++i) out[i] = static_cast<T>(s + static_cast<T>(i) * d);
}

}  // namespace

Status Range(const TensorView& start, const TensorView& delta, const TensorView& y) {
  if (start.dtype != y.dtype || delta.dtype != y.dtype || y.rank != 1 || start.NumElements() != 1 ||
      delta.NumElements() != 1) {
    return InvalidArgument("range: start and delta must be scalars of y's dtype, y 1-D");
  }
  switch (y.dtype) {
    case DType::kF32:
      Fill<float>(start, delta, y);
      break;
    case DType::kF64:
      Fill<double>(start, delta, y);
      break;
    case DType::kI16:
      Fill<int16_t>(start, delta, y);
      break;
    case DType::kI32:
      Fill<int32_t>(start, delta, y);
      break;
    case DType::kI64:
      Fill<int64_t>(start, delta, y);
      break;
    default:
      return InvalidArgument(std::string("range: ") + DTypeName(y.dtype) + " is not supported");
  }
  return Status::Ok();
}

}  // namespace loom::kernels
