// ONNX NonZero: the coordinates of x's non-zero elements, one column per element in row-major
// order. An element is non-zero when any of its bytes is, except that floating-point -0.0 is
// zero (its sign bit is set) and NaN is non-zero, as numpy.nonzero decides.
#include <cstring>
#include <string>

#include "runtime/kernels/kernels_index.h"

namespace loom::kernels {
namespace {

bool IsNonZero(const TensorView& x, int64_t i) {
  switch (x.dtype) {
    case DType::kF32:
      return x.As<const float>()[i] != 0.0f || x.As<const float>()[i] != x.As<const float>()[i];
    case DType::kF64:
      return x.As<const double>()[i] != 0.0 || x.As<const double>()[i] != x.As<const double>()[i];
    case DType::kF16:
      return (x.As<const uint16_t>()[i] & 0x7fff) != 0;  // +-0 are the only zeros
    default: {
      const size_t es = DTypeSize(x.dtype);
      const auto* p = x.As<const uint8_t>() + static_cast<size_t>(i) * es;
      for (size_t b = 0; b < es; ++b) {
        if (p[b] != 0) return true;
      }
      return false;
    }
  }
}

}  // namespace

Status NonZeroCount(const TensorView& x, int64_t* count) {
  if (DTypeSize(x.dtype) == 0) return InvalidArgument("nonzero: x has no element type");
  *count = 0;
  const int64_t n = x.NumElements();
  for (int64_t i = 0; i < n; ++i) *count += IsNonZero(x, i) ? 1 : 0;
  return Status::Ok();
}

Status NonZero(const TensorView& x, const TensorView& y) {
  int64_t count = 0;
  LOOM_RETURN_IF_ERROR(NonZeroCount(x, &count));
  // A rank-0 x has one coordinate-less entry per non-zero: y is [0, count].
  if (y.dtype != DType::kI64 || y.rank != 2 || y.shape[0] != x.rank || y.shape[1] != count) {
    return InvalidArgument("nonzero: y must be i64 [" + std::to_string(x.rank) + ", " +
                           std::to_string(count) + "]");
  }
  auto* out = y.As<int64_t>();
  int64_t idx[kMaxRank] = {};
  int64_t col = 0;
  const int64_t n = x.NumElements();
  for (int64_t i = 0; i < n; ++i) {
    if (IsNonZero(x, i)) {
      for (int d = 0; d < x.rank; ++d) out[d * count + col] = idx[d];
      ++col;
    }
    for (int d = x.rank - 1; d >= 0; --d) {
      if (++idx[d] < x.shape[d]) break;
      idx[d] = 0;
    }
  }
  return Status::Ok();
}

}  // namespace loom::kernels
