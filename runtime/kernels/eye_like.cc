// ONNX EyeLike: a 2-D y of zeros with ones on the diagonal shifted by k (column - row == k).
#include <cstring>
#include <string>

#include "runtime/kernels/kernels_index.h"

namespace loom::kernels {
namespace {

// The bytes of 1 in dtype t; false for a type without a 1.
bool One(DType t, uint8_t* out) {
  switch (t) {
    case DType::kF32: {
      const float v = 1.0f;
      std::memcpy(out, &v, 4);
      return true;
    }
    case DType::kF64: {
      const double v = 1.0;
      std::memcpy(out, &v, 8);
      return true;
    }
    case DType::kF16: {
      const uint16_t v = 0x3c00;  // binary16 1.0
      std::memcpy(out, &v, 2);
      return true;
    }
    case DType::kI8:
    case DType::kU8:
    case DType::kBool:
    case DType::kI16:
    case DType::kI32:
    case DType::kI64:
      // Little-endian integers: 1 is a low byte of 1 and zeros above it.
      std::memset(out, 0, DTypeSize(t));
      out[0] = 1;
      return true;
    default:
      return false;
  }
}

}  // namespace

bool EyeLikeTakes(DType t) {
  uint8_t one[8];
  return One(t, one);
}

Status EyeLike(int64_t k, const TensorView& y) {
  uint8_t one[8];
  if (y.rank != 2 || !One(y.dtype, one)) {
    return InvalidArgument(std::string("eye_like: y must be 2-D and numeric, is ") +
                           DTypeName(y.dtype) + " of rank " + std::to_string(y.rank));
  }
  const size_t es = DTypeSize(y.dtype);
  auto* dst = y.As<uint8_t>();
  const int64_t rows = y.shape[0], cols = y.shape[1];
  if (rows * cols > 0) std::memset(dst, 0, static_cast<size_t>(rows * cols) * es);
  for (int64_t i = 0; i < rows; ++i) {
    const int64_t j = i + k;
    if (j >= 0 && j < cols) std::memcpy(dst + static_cast<size_t>(i * cols + j) * es, one, es);
  }
  return Status::Ok();
}

}  // namespace loom::kernels
