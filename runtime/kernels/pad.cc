// ONNX Pad (constant, reflect, edge) for any dtype. Each output element maps back to one source
// index per dimension: constant mode fills out-of-range positions, reflect mirrors without
// repeating the border, edge clamps. Negative pads crop.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>

#include "runtime/core/checked_math.h"
#include "runtime/kernels/kernels.h"

namespace loom::kernels {
namespace {

// `value` converted to an integer type, saturating (NaN becomes 0): a float-to-int conversion
// out of range is undefined behaviour, and the value comes from a model or package.
template <typename T>
T SaturateTo(double value) {
  constexpr double kLowest = static_cast<double>(std::numeric_limits<T>::lowest());
  // max + 1, a power of two and so exact in a double (INT64_MAX itself is not).
  constexpr double kPastMax = (static_cast<double>(std::numeric_limits<T>::max() / 2) + 1.0) * 2.0;
  if (std::isnan(value)) return T(0);
  if (value <= kLowest) return std::numeric_limits<T>::lowest();
  if (value >= kPastMax) return std::numeric_limits<T>::max();
  return static_cast<T>(value);
}

// The constant `value` as the bytes of one element of dtype t.
void EncodeValue(DType t, double value, uint8_t* out) {
  switch (t) {
    case DType::kF32: {
      float v = static_cast<float>(value);
      std::memcpy(out, &v, 4);
      break;
    }
    case DType::kI8: {
      int8_t v = SaturateTo<int8_t>(value);
      std::memcpy(out, &v, 1);
      break;
    }
    case DType::kU8: {
      uint8_t v = SaturateTo<uint8_t>(value);
      std::memcpy(out, &v, 1);
      break;
    }
    case DType::kI32: {
      int32_t v = SaturateTo<int32_t>(value);
      std::memcpy(out, &v, 4);
      break;
    }
    case DType::kI64: {
      int64_t v = SaturateTo<int64_t>(value);
      std::memcpy(out, &v, 8);
      break;
    }
    case DType::kBool: {
      out[0] = value != 0.0 ? 1 : 0;
      break;
    }
    case DType::kI16: {
      int16_t v = static_cast<int16_t>(value);
      std::memcpy(out, &v, 2);
      break;
    }
    case DType::kF64:
      std::memcpy(out, &value, 8);
      break;
    case DType::kU16: {
      uint16_t v = SaturateTo<uint16_t>(value);
      std::memcpy(out, &v, 2);
      break;
    }
    case DType::kU32: {
      uint32_t v = SaturateTo<uint32_t>(value);
      std::memcpy(out, &v, 4);
      break;
    }
    case DType::kU64: {
      uint64_t v = SaturateTo<uint64_t>(value);
      std::memcpy(out, &v, 8);
      break;
    }
    case DType::kF16:  // refused by Pad before it gets here
    case DType::kUndefined:
      break;
  }
}

}  // namespace

Status PadShapes(const TensorView& x, const int64_t* pads, PadMode mode, const TensorView& y) {
  if (x.dtype != y.dtype || x.rank != y.rank) {
    return InvalidArgument("pad: x and y must have the same dtype and rank");
  }
  if (DTypeSize(x.dtype) == 0 || (mode == PadMode::kConstant && x.dtype == DType::kF16)) {
    return InvalidArgument(std::string("pad: ") + DTypeName(x.dtype) + " is not supported");
  }
  const int r = x.rank;
  for (int i = 0; i < r; ++i) {
    const int64_t begin = pads[i], end = pads[r + i];
    int64_t padded = 0;
    if (!CheckedAdd(x.shape[i], begin, &padded) || !CheckedAdd(padded, end, &padded) ||
        padded != y.shape[i]) {
      return InvalidArgument("pad: y.shape[" + std::to_string(i) + "] must be x's plus its pads");
    }
    if (mode != PadMode::kConstant && y.shape[i] > 0) {
      if (x.shape[i] == 0) return InvalidArgument("pad: cannot reflect or extend an empty axis");
      // A reflection must stay within one mirror image of the axis.
      if (mode == PadMode::kReflect && (begin > x.shape[i] - 1 || end > x.shape[i] - 1)) {
        return InvalidArgument("pad: reflect pads must be smaller than the axis (" +
                               std::to_string(x.shape[i]) + ")");
      }
    }
  }
  return Status::Ok();
}

namespace {

// The source index along one axis of output index `i` (pad `begin` before an axis of `d`);
// false where constant mode fills.
bool SourceIndex(int64_t i, int64_t begin, int64_t d, PadMode mode, int64_t* s) {
  // A crop (negative begin) near INT64_MIN puts the source index past any axis.
  if (!CheckedSub(i, begin, s)) *s = d;
  if (*s >= 0 && *s < d) return true;
  switch (mode) {
    case PadMode::kConstant:
      return false;
    case PadMode::kReflect:
      *s = *s < 0 ? -*s : 2 * (d - 1) - *s;
      break;
    case PadMode::kEdge:
      *s = *s < 0 ? 0 : d - 1;
      break;
  }
  return true;
}

void FillRun(uint8_t* dst, int64_t count, const uint8_t* fill, size_t es) {
  for (int64_t j = 0; j < count; ++j) std::memcpy(dst + j * es, fill, es);
}

}  // namespace

Status Pad(const TensorView& x, const int64_t* pads, PadMode mode, double value,
           const TensorView& y) {
  LOOM_RETURN_IF_ERROR(PadShapes(x, pads, mode, y));
  const int r = x.rank;
  const size_t es = DTypeSize(x.dtype);
  uint8_t fill[8];
  EncodeValue(x.dtype, value, fill);
  const auto* src = x.As<const uint8_t>();
  auto* dst = y.As<uint8_t>();
  if (y.NumElements() == 0) return Status::Ok();
  if (r == 0) {
    std::memcpy(dst, src, es);
    return Status::Ok();
  }
  // Row by row along the last axis: the other axes map once per row, and in constant mode a row's
  // inside part is one copy (a host-side im2col pads every row of its input this way).
  const int last = r - 1;
  const int64_t w = y.shape[last], d = x.shape[last], begin = pads[last];
  const int64_t rows = y.NumElements() / w;
  int64_t idx[kMaxRank] = {};
  for (int64_t row = 0; row < rows; ++row) {
    uint8_t* out = dst + static_cast<size_t>(row * w) * es;
    int64_t off = 0;
    bool inside = true;
    for (int i = 0; i < last && inside; ++i) {
      int64_t s = 0;
      inside = SourceIndex(idx[i], pads[i], x.shape[i], mode, &s);
      off += s * x.strides[i];
    }
    if (!inside) {
      FillRun(out, w, fill, es);
    } else if (mode == PadMode::kConstant && x.strides[last] == 1) {
      // Output j reads source j - begin: inside for j in [begin, begin + d), clipped to the row.
      const int64_t lo = std::clamp<int64_t>(begin, 0, w);
      int64_t hi = 0;
      if (!CheckedAdd(begin, d, &hi)) hi = w;  // only a begin near INT64_MAX overflows
      hi = std::clamp<int64_t>(hi, lo, w);
      FillRun(out, lo, fill, es);
      if (hi > lo) {
        std::memcpy(out + static_cast<size_t>(lo) * es,
                    src + static_cast<size_t>(off + lo - begin) * es,
                    static_cast<size_t>(hi - lo) * es);
      }
      FillRun(out + static_cast<size_t>(hi) * es, w - hi, fill, es);
    } else {
      for (int64_t j = 0; j < w; ++j) {
        int64_t s = 0;
        const bool in = SourceIndex(j, begin, d, mode, &s);
        std::memcpy(out + static_cast<size_t>(j) * es,
                    in ? src + static_cast<size_t>(off + s * x.strides[last]) * es : fill, es);
      }
    }
    for (int i = last - 1; i >= 0; --i) {
      if (++idx[i] < y.shape[i]) break;
      idx[i] = 0;
    }
  }
  return Status::Ok();
}

}  // namespace loom::kernels
