// ONNX ConstantOfShape for any dtype: the one element of `value` repeated over y.
#include <cstring>

#include "runtime/kernels/kernels_index.h"

namespace loom::kernels {

Status ConstantOfShape(const TensorView& value, const TensorView& y) {
  if (value.dtype != y.dtype || value.NumElements() != 1) {
    return InvalidArgument("constant_of_shape: value must be one element of y's dtype");
  }
  const size_t es = DTypeSize(y.dtype);
  auto* dst = y.As<uint8_t>();
  const int64_t n = y.NumElements();
  for (int64_t i = 0; i < n; ++i) std::memcpy(dst + static_cast<size_t>(i) * es, value.data, es);
  return Status::Ok();
}

}  // namespace loom::kernels
