// Cast: every element converted to y's dtype, as ONNX Cast (and CastLike) define it for the
// numeric types. Integer and bool sources are read as int64 and float sources as double, both
// exact, so each conversion rounds once. Float to integer truncates toward zero; ONNX leaves
// out-of-range values undefined, so they saturate to the type's range and NaN becomes 0 (a
// defined answer instead of C++'s undefined behaviour). Integer to narrower integer wraps, as in
// NumPy. Anything to bool is "!= 0" (NaN is true, as in NumPy).
#include <cmath>
#include <cstring>
#include <limits>

#include "runtime/kernels/kernels.h"

namespace loom::kernels {
namespace {

// One element, read exactly: `is_float` says which of the two fields holds it.
struct Scalar {
  bool is_float = false;
  bool is_u64 = false;  // i holds a uint64's bits (values past INT64_MAX read negative)
  double f = 0.0;
  int64_t i = 0;
};

// The integer as a double, uint64 read as unsigned.
double IntToDouble(const Scalar& s) {
  return s.is_u64 ? static_cast<double>(static_cast<uint64_t>(s.i)) : static_cast<double>(s.i);
}

Scalar Load(DType t, const void* data, int64_t k) {
  Scalar s;
  const size_t at = static_cast<size_t>(k);
  switch (t) {
    case DType::kF32:
      s.is_float = true;
      s.f = static_cast<const float*>(data)[at];
      break;
    case DType::kF64:
      s.is_float = true;
      s.f = static_cast<const double*>(data)[at];
      break;
    case DType::kF16:
      s.is_float = true;
      s.f = F16ToF32(static_cast<const uint16_t*>(data)[at]);
      break;
    case DType::kI8:
      s.i = static_cast<const int8_t*>(data)[at];
      break;
    case DType::kU8:
      s.i = static_cast<const uint8_t*>(data)[at];
      break;
    case DType::kI16:
      s.i = static_cast<const int16_t*>(data)[at];
      break;
    case DType::kI32:
      s.i = static_cast<const int32_t*>(data)[at];
      break;
    case DType::kI64:
      s.i = static_cast<const int64_t*>(data)[at];
      break;
    case DType::kBool:
      s.i = static_cast<const uint8_t*>(data)[at] != 0 ? 1 : 0;
      break;
    case DType::kU16:
      s.i = static_cast<const uint16_t*>(data)[at];
      break;
    case DType::kU32:
      s.i = static_cast<const uint32_t*>(data)[at];
      break;
    case DType::kU64:
      s.is_u64 = true;
      s.i = static_cast<int64_t>(static_cast<const uint64_t*>(data)[at]);
      break;
    case DType::kUndefined:
      break;
  }
  return s;
}

// Float to integer type T: truncated, saturated, NaN -> 0.
template <typename T>
T FloatToInt(double v) {
  if (std::isnan(v)) return T(0);
  const double t = std::trunc(v);
  // Compare in double against bounds double holds exactly (int64's max is not one of them).
  if (t <= static_cast<double>(std::numeric_limits<T>::min())) return std::numeric_limits<T>::min();
  if (t >= std::ldexp(1.0, std::numeric_limits<T>::digits)) return std::numeric_limits<T>::max();
  return static_cast<T>(t);
}

template <typename T>
void StoreInt(const Scalar& s, void* data, size_t at) {
  // Integer narrowing wraps (two's complement, as C++17 compilers and NumPy do).
  static_cast<T*>(data)[at] = s.is_float ? FloatToInt<T>(s.f) : static_cast<T>(s.i);
}

void Store(DType t, const Scalar& s, void* data, int64_t k) {
  const size_t at = static_cast<size_t>(k);
  switch (t) {
    case DType::kF32:
      // From int64 directly: through double could round twice.
      static_cast<float*>(data)[at] =
          s.is_float ? static_cast<float>(s.f)
                     : (s.is_u64 ? static_cast<float>(static_cast<uint64_t>(s.i))
                                 : static_cast<float>(s.i));
      break;
    case DType::kF64:
      static_cast<double*>(data)[at] = s.is_float ? s.f : IntToDouble(s);
      break;
    case DType::kF16:
      static_cast<uint16_t*>(data)[at] = F64ToF16(s.is_float ? s.f : IntToDouble(s));
      break;
    case DType::kI8:
      StoreInt<int8_t>(s, data, at);
      break;
    case DType::kU8:
      StoreInt<uint8_t>(s, data, at);
      break;
    case DType::kI16:
      StoreInt<int16_t>(s, data, at);
      break;
    case DType::kI32:
      StoreInt<int32_t>(s, data, at);
      break;
    case DType::kI64:
      StoreInt<int64_t>(s, data, at);
      break;
    case DType::kBool:
      static_cast<uint8_t*>(data)[at] = (s.is_float ? s.f != 0.0 : s.i != 0) ? 1 : 0;
      break;
    case DType::kU16:
      StoreInt<uint16_t>(s, data, at);
      break;
    case DType::kU32:
      StoreInt<uint32_t>(s, data, at);
      break;
    case DType::kU64:
      StoreInt<uint64_t>(s, data, at);
      break;
    case DType::kUndefined:
      break;
  }
}

}  // namespace

Status Cast(const TensorView& x, const TensorView& y) {
  if (DTypeSize(x.dtype) == 0 || DTypeSize(y.dtype) == 0) {
    return InvalidArgument("cast: x and y need defined element types");
  }
  if (x.NumElements() != y.NumElements()) {
    return InvalidArgument("cast: x has " + std::to_string(x.NumElements()) + " elements, y " +
                           std::to_string(y.NumElements()));
  }
  const int64_t n = x.NumElements();
  if (x.dtype == y.dtype) {
    if (n > 0 && x.data != y.data) {
      std::memmove(y.data, x.data, static_cast<size_t>(n) * DTypeSize(x.dtype));
    }
    return Status::Ok();
  }
  for (int64_t k = 0; k < n; ++k) Store(y.dtype, Load(x.dtype, x.data, k), y.data, k);
  return Status::Ok();
}

}  // namespace loom::kernels
