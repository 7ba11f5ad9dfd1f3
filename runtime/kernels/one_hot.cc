// ONNX OneHot: y is indices' shape with depth inserted at `axis`; every cell is values[0] (off)
// except where the cell's depth coordinate equals its index, which gets values[1] (on). Indices
// may be any numeric type (float ones are truncated, as ONNX's reference casts them) and negative
// ones count from depth; out-of-range ones leave their row all off.
#include <cmath>
#include <cstring>
#include <string>

#include "runtime/kernels/kernels_index.h"

namespace loom::kernels {
namespace {

bool IndexValue(const TensorView& t, int64_t i, int64_t* out) {
  switch (t.dtype) {
    case DType::kI8:
      *out = t.As<const int8_t>()[i];
      return true;
    case DType::kU8:
      *out = t.As<const uint8_t>()[i];
      return true;
    case DType::kI16:
      *out = t.As<const int16_t>()[i];
      return true;
    case DType::kI32:
      *out = t.As<const int32_t>()[i];
      return true;
    case DType::kI64:
      *out = t.As<const int64_t>()[i];
      return true;
    case DType::kF32:
    case DType::kF64: {
      const double v = t.dtype == DType::kF32 ? t.As<const float>()[i] : t.As<const double>()[i];
      // Out of int64's range (or NaN) can only be out of [-depth, depth): mark it so.
      *out = std::isfinite(v) && std::fabs(v) < 9.0e18 ? static_cast<int64_t>(v) : INT64_MIN;
      return true;
    }
    default:
      return false;
  }
}

}  // namespace

Status OneHot(const TensorView& indices, const TensorView& values, int axis, const TensorView& y) {
  int64_t probe = 0;
  if (indices.NumElements() > 0 && !IndexValue(indices, 0, &probe)) {
    return InvalidArgument(std::string("one_hot: indices of type ") + DTypeName(indices.dtype) +
                           " are not supported");
  }
  if (values.dtype != y.dtype || values.NumElements() != 2 || y.rank != indices.rank + 1 ||
      axis < 0 || axis >= y.rank) {
    return InvalidArgument(
        "one_hot: values must be [off, on] of y's dtype, y one rank above "
        "indices");
  }
  for (int d = 0, s = 0; d < y.rank; ++d) {
    if (d == axis) continue;
    if (y.shape[d] != indices.shape[s++]) {
      return InvalidArgument("one_hot: y's dims other than axis must be indices' dims");
    }
  }
  const int64_t depth = y.shape[axis];
  int64_t inner = 1;
  for (int d = axis + 1; d < y.rank; ++d) inner *= y.shape[d];
  const size_t es = DTypeSize(y.dtype);
  const auto* off_bytes = values.As<const uint8_t>();
  const uint8_t* on_bytes = off_bytes + es;
  auto* dst = y.As<uint8_t>();
  const int64_t n = y.NumElements();
  for (int64_t e = 0; e < n; ++e) std::memcpy(dst + static_cast<size_t>(e) * es, off_bytes, es);
  const int64_t count = indices.NumElements();
  for (int64_t i = 0; i < count; ++i) {
    int64_t idx = 0;
    IndexValue(indices, i, &idx);
    if (idx < -depth || idx >= depth) continue;
    if (idx < 0) idx += depth;
    // indices element i = (outer o, inner r); y cell = (o, idx, r).
    const int64_t o = i / inner, r = i % inner;
    std::memcpy(dst + static_cast<size_t>((o * depth + idx) * inner + r) * es, on_bytes, es);
  }
  return Status::Ok();
}

}  // namespace loom::kernels
