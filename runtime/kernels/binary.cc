// Every two-operand elementwise op with numpy broadcasting, on one loop (IndexWalker): arithmetic,
// Pow, Mod, Max/Min, PRelu, bit shifts and bitwise ops, logic on bool and comparisons. Integer
// types wrap on overflow (computed in the unsigned type of the same width), which is what ONNX
// backends produce for the uint8 tests and avoids signed-overflow undefined behaviour; the cases
// ONNX leaves undefined (integer division by zero, shifts past the width) get a fixed answer, not
// C++'s undefined behaviour. f16 is computed in float and rounded once per result.
#include <algorithm>
#include <cmath>
#include <limits>
#include <type_traits>

#include "runtime/kernels/kernels_math.h"

namespace loom::kernels {
namespace {

// How an element type is stored and computed: Plain<T> computes in T itself, Half in float.
template <typename T>
struct Plain {
  using S = T;
  using C = T;
  static C Get(const void* d, int64_t i) { return static_cast<const S*>(d)[i]; }
  static void Put(void* d, int64_t i, C v) { static_cast<S*>(d)[i] = v; }
};
struct Half {
  using S = uint16_t;
  using C = float;
  static C Get(const void* d, int64_t i) { return F16ToF32(static_cast<const S*>(d)[i]); }
  static void Put(void* d, int64_t i, C v) { static_cast<S*>(d)[i] = F64ToF16(v); }
};

bool IsCompare(BinaryOp op) {
  return op == BinaryOp::kEqual || op == BinaryOp::kGreater || op == BinaryOp::kLess ||
         op == BinaryOp::kGreaterOrEqual || op == BinaryOp::kLessOrEqual;
}
bool IsLogic(BinaryOp op) {
  return op == BinaryOp::kAnd || op == BinaryOp::kOr || op == BinaryOp::kXor;
}
bool IsIntegerOnly(BinaryOp op) {
  return op == BinaryOp::kBitShiftLeft || op == BinaryOp::kBitShiftRight ||
         op == BinaryOp::kBitwiseAnd || op == BinaryOp::kBitwiseOr || op == BinaryOp::kBitwiseXor;
}

// v < 0 without -Wtype-limits noise for unsigned types.
template <typename C>
bool Negative(C v) {
  if constexpr (std::is_signed_v<C>) {
    return v < 0;
  } else {
    return false;
  }
}

template <typename C>
C IntArith(BinaryOp op, C a, C b) {
  using U = std::make_unsigned_t<C>;
  constexpr int kBits = std::numeric_limits<U>::digits;
  const U ua = static_cast<U>(a), ub = static_cast<U>(b);
  // Narrow unsigned types promote to int, where products overflow; uint64 arithmetic truncated to
  // U is the same modular result without that.
  const uint64_t wa = ua, wb = ub;
  switch (op) {
    case BinaryOp::kAdd:
      return static_cast<C>(static_cast<U>(wa + wb));
    case BinaryOp::kSub:
      return static_cast<C>(static_cast<U>(wa - wb));
    case BinaryOp::kMul:
      return static_cast<C>(static_cast<U>(wa * wb));
    case BinaryOp::kDiv:
      if (b == 0) return C(0);
      // MIN / -1 overflows; its wrapped result is MIN, i.e. the negation in U.
      if (std::is_signed_v<C> && b == C(-1)) return static_cast<C>(static_cast<U>(0 - wa));
      return static_cast<C>(a / b);
    case BinaryOp::kMod:
    case BinaryOp::kFmod: {
      if (b == 0) return C(0);
      if (std::is_signed_v<C> && b == C(-1)) return C(0);  // MIN % -1 overflows; it is 0
      C r = static_cast<C>(a % b);
      if (op == BinaryOp::kMod && r != 0 && Negative(r) != Negative(b)) r = static_cast<C>(r + b);
      return r;
    }
    case BinaryOp::kMax:
      return a > b ? a : b;
    case BinaryOp::kMin:
      return a < b ? a : b;
    case BinaryOp::kPRelu:
      return Negative(a) ? static_cast<C>(static_cast<U>(wa * wb)) : a;
    case BinaryOp::kBitShiftLeft:
      return ub >= U(kBits) ? C(0) : static_cast<C>(static_cast<U>(wa << wb));
    case BinaryOp::kBitShiftRight:
      if (ub >= U(kBits)) return Negative(a) ? C(-1) : C(0);
      return static_cast<C>(a >> ub);
    case BinaryOp::kBitwiseAnd:
      return static_cast<C>(ua & ub);
    case BinaryOp::kBitwiseOr:
      return static_cast<C>(ua | ub);
    case BinaryOp::kBitwiseXor:
      return static_cast<C>(ua ^ ub);
    case BinaryOp::kAnd:
      return C(a != 0 && b != 0);
    case BinaryOp::kOr:
      return C(a != 0 || b != 0);
    case BinaryOp::kXor:
      return C((a != 0) != (b != 0));
    default:
      return C(0);
  }
}

template <typename C>
C FloatArith(BinaryOp op, C a, C b) {
  switch (op) {
    case BinaryOp::kAdd:
      return a + b;
    case BinaryOp::kSub:
      return a - b;
    case BinaryOp::kMul:
      return a * b;
    case BinaryOp::kDiv:
      return a / b;
    case BinaryOp::kFmod:
      return std::fmod(a, b);
    case BinaryOp::kMod: {
      C r = std::fmod(a, b);
      if (r != 0 && ((r < 0) != (b < 0))) r += b;
      return r;
    }
    case BinaryOp::kMax:
      return std::isnan(a) || std::isnan(b) ? std::numeric_limits<C>::quiet_NaN() : a > b ? a : b;
    case BinaryOp::kMin:
      return std::isnan(a) || std::isnan(b) ? std::numeric_limits<C>::quiet_NaN() : a < b ? a : b;
    case BinaryOp::kPRelu:
      return a < 0 ? a * b : a;
    default:
      return C(0);
  }
}

template <typename C>
bool Compare(BinaryOp op, C a, C b) {
  switch (op) {
    case BinaryOp::kEqual:
      return a == b;
    case BinaryOp::kGreater:
      return a > b;
    case BinaryOp::kLess:
      return a < b;
    case BinaryOp::kGreaterOrEqual:
      return a >= b;
    default:
      return a <= b;
  }
}

// Pow's exponent, of any numeric type, read exactly: integers as int64, floats as double.
struct Exponent {
  bool is_float;
  int64_t i;
  double f;
};
Exponent LoadExponent(DType t, const void* d, int64_t k) {
  switch (t) {
    case DType::kF32:
      return {true, 0, static_cast<const float*>(d)[k]};
    case DType::kF64:
      return {true, 0, static_cast<const double*>(d)[k]};
    case DType::kF16:
      return {true, 0, F16ToF32(static_cast<const uint16_t*>(d)[k])};
    case DType::kI8:
      return {false, static_cast<const int8_t*>(d)[k], 0};
    case DType::kU8:
      return {false, static_cast<const uint8_t*>(d)[k], 0};
    case DType::kI16:
      return {false, static_cast<const int16_t*>(d)[k], 0};
    case DType::kI32:
      return {false, static_cast<const int32_t*>(d)[k], 0};
    case DType::kU16:
      return {false, static_cast<const uint16_t*>(d)[k], 0};
    case DType::kU32:
      return {false, static_cast<const uint32_t*>(d)[k], 0};
    case DType::kU64: {
      // Past INT64_MAX only the exponent's magnitude matters (the result wraps or saturates).
      const uint64_t u = static_cast<const uint64_t*>(d)[k];
      return {false, static_cast<int64_t>(std::min<uint64_t>(u, INT64_MAX)), 0};
    }
    default:
      return {false, static_cast<const int64_t*>(d)[k], 0};
  }
}

template <typename C>
C Pow(C base, const Exponent& e) {
  if constexpr (std::is_floating_point_v<C>) {
    return static_cast<C>(std::pow(static_cast<double>(base), e.is_float ? e.f : double(e.i)));
  } else {
    using U = std::make_unsigned_t<C>;
    if (e.is_float) {
      // As onnxruntime: the double result truncated, saturated here instead of undefined.
      const double r = std::trunc(std::pow(static_cast<double>(base), e.f));
      if (std::isnan(r)) return C(0);
      if (r <= static_cast<double>(std::numeric_limits<C>::min()))
        return std::numeric_limits<C>::min();
      if (r >= std::ldexp(1.0, std::numeric_limits<C>::digits))
        return std::numeric_limits<C>::max();
      return static_cast<C>(r);
    }
    if (e.i < 0) {
      // Integer reciprocal powers truncate to 0 except for bases 1 and -1 (and 0: undefined, 0).
      if (base == C(1)) return C(1);
      if (std::is_signed_v<C> && base == C(-1)) return (e.i & 1) ? base : C(1);
      return C(0);
    }
    U result = 1, b = static_cast<U>(base);
    for (uint64_t n = static_cast<uint64_t>(e.i); n != 0; n >>= 1) {
      if (n & 1) result = static_cast<U>(result * b);
      b = static_cast<U>(b * b);
    }
    return static_cast<C>(result);
  }
}

template <typename N>
void Run(BinaryOp op, const TensorView& a, const TensorView& b, const TensorView& y) {
  using C = typename N::C;
  IndexWalker<2> walk;
  walk.rank = y.rank;
  for (int i = 0; i < y.rank; ++i) walk.shape[i] = y.shape[i];
  BroadcastStrides(a, y.rank, walk.strides[0]);
  BroadcastStrides(b, y.rank, walk.strides[1]);
  const int64_t n = y.NumElements();
  if (IsCompare(op)) {
    uint8_t* yd = y.As<uint8_t>();
    for (int64_t i = 0; i < n; ++i, walk.Next()) {
      yd[i] = Compare(op, N::Get(a.data, walk.offset[0]), N::Get(b.data, walk.offset[1])) ? 1 : 0;
    }
    return;
  }
  if (op == BinaryOp::kPow) {
    for (int64_t i = 0; i < n; ++i, walk.Next()) {
      N::Put(y.data, i,
             Pow<C>(N::Get(a.data, walk.offset[0]), LoadExponent(b.dtype, b.data, walk.offset[1])));
    }
    return;
  }
  for (int64_t i = 0; i < n; ++i, walk.Next()) {
    const C va = N::Get(a.data, walk.offset[0]), vb = N::Get(b.data, walk.offset[1]);
    if constexpr (std::is_floating_point_v<C>) {
      N::Put(y.data, i, FloatArith(op, va, vb));
    } else {
      N::Put(y.data, i, IntArith(op, va, vb));
    }
  }
}

const char* const kNames[] = {"Add",          "Sub",
                              "Mul",          "Div",
                              "Pow",          "Mod",
                              "Fmod",         "Max",
                              "Min",          "PRelu",
                              "BitShiftLeft", "BitShiftRight",
                              "BitwiseAnd",   "BitwiseOr",
                              "BitwiseXor",   "And",
                              "Or",           "Xor",
                              "Equal",        "Greater",
                              "Less",         "GreaterOrEqual",
                              "LessOrEqual"};

static_assert(sizeof(kNames) / sizeof(kNames[0]) == static_cast<size_t>(BinaryOp::kLessOrEqual) + 1,
              "one name per BinaryOp, in enum order");

// The dtypes the op allows for a (and y, unless a comparison).
Status CheckTypes(BinaryOp op, const TensorView& a, const TensorView& b, const TensorView& y) {
  const std::string name = BinaryOpName(op);
  const DType t = a.dtype;
  if (op != BinaryOp::kPow && b.dtype != t) {
    return InvalidArgument(name + ": a is " + DTypeName(t) + ", b " + DTypeName(b.dtype) +
                           "; both must have the same type");
  }
  if (op == BinaryOp::kPow && (b.dtype == DType::kBool || b.dtype == DType::kUndefined)) {
    return InvalidArgument(name + ": the exponent must be numeric, is " + DTypeName(b.dtype));
  }
  const DType want_y = IsCompare(op) ? DType::kBool : t;
  if (y.dtype != want_y) {
    return InvalidArgument(name + ": y is " + DTypeName(y.dtype) + ", must be " +
                           DTypeName(want_y));
  }
  const bool is_bool = t == DType::kBool;
  const bool ok = IsLogic(op)         ? is_bool
                  : IsCompare(op)     ? op == BinaryOp::kEqual || !is_bool
                  : IsIntegerOnly(op) ? !is_bool && !IsFloat(t)
                                      : !is_bool;
  if (!ok || t == DType::kUndefined) {
    return InvalidArgument(name + ": " + DTypeName(t) + " is not supported" +
                           (IsLogic(op) ? " (needs bool)" : ""));
  }
  return Status::Ok();
}

}  // namespace

const char* BinaryOpName(BinaryOp op) {
  const size_t i = static_cast<size_t>(op);
  return i < sizeof(kNames) / sizeof(kNames[0]) ? kNames[i] : "?";
}

bool BinaryOpByName(std::string_view name, BinaryOp* out) {
  if (name == "BitShift") {
    *out = BinaryOp::kBitShiftLeft;
    return true;
  }
  if (name == "Fmod" || name == "BitShiftLeft" || name == "BitShiftRight") return false;
  for (size_t i = 0; i < sizeof(kNames) / sizeof(kNames[0]); ++i) {
    if (name == kNames[i]) {
      *out = static_cast<BinaryOp>(i);
      return true;
    }
  }
  return false;
}

Status BinaryTypes(BinaryOp op, const TensorView& a, const TensorView& b, const TensorView& y) {
  return CheckTypes(op, a, b, y);
}

Status Binary(BinaryOp op, const TensorView& a, const TensorView& b, const TensorView& y) {
  LOOM_RETURN_IF_ERROR(CheckTypes(op, a, b, y));
  int64_t dims[kMaxRank];
  int rank = 0;
  LOOM_RETURN_IF_ERROR(BroadcastShapes(a, b, dims, &rank));
  bool ok = rank == y.rank;
  for (int i = 0; ok && i < rank; ++i) ok = dims[i] == y.shape[i];
  if (!ok) {
    return InvalidArgument(std::string(BinaryOpName(op)) +
                           ": y must have the broadcast shape of a and b");
  }
  switch (a.dtype) {
    case DType::kF32:
      Run<Plain<float>>(op, a, b, y);
      break;
    case DType::kF64:
      Run<Plain<double>>(op, a, b, y);
      break;
    case DType::kF16:
      Run<Half>(op, a, b, y);
      break;
    case DType::kI8:
      Run<Plain<int8_t>>(op, a, b, y);
      break;
    case DType::kU8:
    case DType::kBool:  // 0 / 1 bytes; only logic and Equal reach here
      Run<Plain<uint8_t>>(op, a, b, y);
      break;
    case DType::kI16:
      Run<Plain<int16_t>>(op, a, b, y);
      break;
    case DType::kI32:
      Run<Plain<int32_t>>(op, a, b, y);
      break;
    case DType::kI64:
      Run<Plain<int64_t>>(op, a, b, y);
      break;
    case DType::kU16:
      Run<Plain<uint16_t>>(op, a, b, y);
      break;
    case DType::kU32:
      Run<Plain<uint32_t>>(op, a, b, y);
      break;
    case DType::kU64:
      Run<Plain<uint64_t>>(op, a, b, y);
      break;
    case DType::kUndefined:
      break;
  }
  return Status::Ok();
}

}  // namespace loom::kernels
