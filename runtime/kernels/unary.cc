// Elementwise unary math and activations, one table row per op: its name and the function on each
// kind of element (double for the float types, int64 for the integer types). A float element is
// widened to double and the result rounded once to the output type, so f32, f64 and f16 share one
// function and f32 results are the correctly rounded value of the double computation. Integer
// results are narrowed by truncation, which wraps exactly as two's complement arithmetic in the
// narrow type would (Abs(-128) is -128 in i8, as in NumPy).
#include <cmath>

#include "runtime/kernels/kernels_math.h"

namespace loom::kernels {
namespace {

using FloatFn = double (*)(double x, const UnaryParams& p);
using IntFn = int64_t (*)(int64_t x, const UnaryParams& p);

// Negation without signed overflow: INT64_MIN maps to itself.
int64_t WrapNeg(int64_t x) { return static_cast<int64_t>(0 - static_cast<uint64_t>(x)); }

double RoundHalfEven(double x) {
  const double r = std::round(x);  // halves away from zero
  return std::fabs(x - std::trunc(x)) == 0.5 ? 2.0 * std::round(x / 2.0) : r;
}

double Softplus(double x) {
  // log(1 + e^x) without overflow: for x > 0 it is x + log(1 + e^-x).
  return x > 0 ? x + std::log1p(std::exp(-x)) : std::log1p(std::exp(x));
}

double Shrink(double x, const UnaryParams& p) {
  if (x < -p.alpha) return x + p.beta;
  if (x > p.alpha) return x - p.beta;
  return 0.0;
}

struct Row {
  UnaryOp op;
  const char* name;
  FloatFn f;  // null: no float types
  IntFn i;    // null: no integer types
};

// clang-format off
const Row kRows[] = {
    {UnaryOp::kAbs, "Abs", [](double x, const UnaryParams&) { return std::fabs(x); },
     [](int64_t x, const UnaryParams&) { return x < 0 ? WrapNeg(x) : x; }},
    {UnaryOp::kNeg, "Neg", [](double x, const UnaryParams&) { return -x; },
     [](int64_t x, const UnaryParams&) { return WrapNeg(x); }},
    {UnaryOp::kSign, "Sign",
     [](double x, const UnaryParams&) { return std::isnan(x) ? x : double((x > 0) - (x < 0)); },
     [](int64_t x, const UnaryParams&) { return int64_t{(x > 0) - (x < 0)}; }},
    {UnaryOp::kShrink, "Shrink", Shrink,
     // Integer Shrink: the float thresholds compare exactly in double; the result wraps.
     [](int64_t x, const UnaryParams& p) {
       const double d = static_cast<double>(x);
       if (d < -p.alpha) return x + static_cast<int64_t>(p.beta);
       if (d > p.alpha) return x - static_cast<int64_t>(p.beta);
       return int64_t{0};
     }},
    {UnaryOp::kCeil, "Ceil", [](double x, const UnaryParams&) { return std::ceil(x); }, nullptr},
    {UnaryOp::kFloor, "Floor", [](double x, const UnaryParams&) { return std::floor(x); }, nullptr},
    {UnaryOp::kRound, "Round", [](double x, const UnaryParams&) { return RoundHalfEven(x); },
     nullptr},
    {UnaryOp::kReciprocal, "Reciprocal", [](double x, const UnaryParams&) { return 1.0 / x; },
     nullptr},
    {UnaryOp::kExp, "Exp", [](double x, const UnaryParams&) { return std::exp(x); }, nullptr},
    {UnaryOp::kLog, "Log", [](double x, const UnaryParams&) { return std::log(x); }, nullptr},
    {UnaryOp::kSqrt, "Sqrt", [](double x, const UnaryParams&) { return std::sqrt(x); }, nullptr},
    {UnaryOp::kTanh, "Tanh", [](double x, const UnaryParams&) { return std::tanh(x); }, nullptr},
    {UnaryOp::kSin, "Sin", [](double x, const UnaryParams&) { return std::sin(x); }, nullptr},
    {UnaryOp::kCos, "Cos", [](double x, const UnaryParams&) { return std::cos(x); }, nullptr},
    {UnaryOp::kTan, "Tan", [](double x, const UnaryParams&) { return std::tan(x); }, nullptr},
    {UnaryOp::kAsin, "Asin", [](double x, const UnaryParams&) { return std::asin(x); }, nullptr},
    {UnaryOp::kAcos, "Acos", [](double x, const UnaryParams&) { return std::acos(x); }, nullptr},
    {UnaryOp::kAtan, "Atan", [](double x, const UnaryParams&) { return std::atan(x); }, nullptr},
    {UnaryOp::kSinh, "Sinh", [](double x, const UnaryParams&) { return std::sinh(x); }, nullptr},
    {UnaryOp::kCosh, "Cosh", [](double x, const UnaryParams&) { return std::cosh(x); }, nullptr},
    {UnaryOp::kAsinh, "Asinh", [](double x, const UnaryParams&) { return std::asinh(x); }, nullptr},
    {UnaryOp::kAcosh, "Acosh", [](double x, const UnaryParams&) { return std::acosh(x); }, nullptr},
    {UnaryOp::kAtanh, "Atanh", [](double x, const UnaryParams&) { return std::atanh(x); }, nullptr},
    {UnaryOp::kErf, "Erf", [](double x, const UnaryParams&) { return std::erf(x); }, nullptr},
    {UnaryOp::kSoftsign, "Softsign",
     [](double x, const UnaryParams&) { return x / (1.0 + std::fabs(x)); }, nullptr},
    {UnaryOp::kSoftplus, "Softplus", [](double x, const UnaryParams&) { return Softplus(x); },
     nullptr},
    {UnaryOp::kElu, "Elu",
     [](double x, const UnaryParams& p) { return x < 0 ? p.alpha * std::expm1(x) : x; }, nullptr},
    {UnaryOp::kSelu, "Selu",
     [](double x, const UnaryParams& p) {
       return p.gamma * (x <= 0 ? p.alpha * std::expm1(x) : x);
     }, nullptr},
    {UnaryOp::kCelu, "Celu",
     [](double x, const UnaryParams& p) {
       return std::fmax(0.0, x) + std::fmin(0.0, p.alpha * std::expm1(x / p.alpha));
     }, nullptr},
    {UnaryOp::kHardSigmoid, "HardSigmoid",
     [](double x, const UnaryParams& p) {
       return std::fmax(0.0, std::fmin(1.0, double{p.alpha} * x + double{p.beta}));
     }, nullptr},
    {UnaryOp::kHardSwish, "HardSwish",
     [](double x, const UnaryParams&) {
       return x * std::fmax(0.0, std::fmin(1.0, x / 6.0 + 0.5));
     }, nullptr},
    {UnaryOp::kThresholdedRelu, "ThresholdedRelu",
     [](double x, const UnaryParams& p) { return x > p.alpha ? x : 0.0; }, nullptr},
    {UnaryOp::kIsNaN, "IsNaN", [](double x, const UnaryParams&) { return std::isnan(x) ? 1.0 : 0.0; },
     nullptr},
    {UnaryOp::kIsInf, "IsInf",
     [](double x, const UnaryParams& p) {
       return std::isinf(x) && (x > 0 ? p.detect_positive : p.detect_negative) ? 1.0 : 0.0;
     }, nullptr},
    {UnaryOp::kNot, "Not", nullptr, [](int64_t x, const UnaryParams&) { return int64_t{x == 0}; }},
    {UnaryOp::kBitwiseNot, "BitwiseNot", nullptr,
     [](int64_t x, const UnaryParams&) { return ~x; }},
};
// clang-format on

const Row* FindRow(UnaryOp op) {
  for (const Row& r : kRows) {
    if (r.op == op) return &r;
  }
  return nullptr;
}

double LoadFloat(DType t, const void* d, int64_t i) {
  switch (t) {
    case DType::kF32:
      return static_cast<const float*>(d)[i];
    case DType::kF64:
      return static_cast<const double*>(d)[i];
    default:
      return F16ToF32(static_cast<const uint16_t*>(d)[i]);
  }
}

void StoreFloat(DType t, void* d, int64_t i, double v) {
  switch (t) {
    case DType::kF32:
      static_cast<float*>(d)[i] = static_cast<float>(v);
      break;
    case DType::kF64:
      static_cast<double*>(d)[i] = v;
      break;
    default:
      static_cast<uint16_t*>(d)[i] = F64ToF16(v);
      break;
  }
}

template <typename T>
void RunInt(const Row& r, const UnaryParams& p, const TensorView& x, const TensorView& y,
            int64_t n) {
  const T* xd = x.As<const T>();
  T* yd = y.As<T>();
  for (int64_t i = 0; i < n; ++i) yd[i] = static_cast<T>(r.i(static_cast<int64_t>(xd[i]), p));
}

}  // namespace

const char* UnaryOpName(UnaryOp op) {
  const Row* r = FindRow(op);
  return r != nullptr ? r->name : "?";
}

bool UnaryOpByName(std::string_view name, UnaryOp* out) {
  for (const Row& r : kRows) {
    if (name == r.name) {
      *out = r.op;
      return true;
    }
  }
  return false;
}

Status Unary(const UnaryParams& p, const TensorView& x, const TensorView& y) {
  const Row* r = FindRow(p.op);
  if (r == nullptr) return InvalidArgument("unary: unknown op");
  const bool to_bool = p.op == UnaryOp::kIsNaN || p.op == UnaryOp::kIsInf;
  if (!SameShape(x, y) || y.dtype != (to_bool ? DType::kBool : x.dtype)) {
    char sx[96], sy[96];
    return InvalidArgument(std::string(r->name) + ": output " + FormatShape(y, sy, sizeof sy) +
                           " does not fit input " + FormatShape(x, sx, sizeof sx) +
                           (to_bool ? " (the output is bool of the input's shape)"
                                    : " (the output has the input's shape and type)"));
  }
  const int64_t n = x.NumElements();
  if (IsFloat(x.dtype) && r->f != nullptr) {
    for (int64_t i = 0; i < n; ++i) {
      const double v = r->f(LoadFloat(x.dtype, x.data, i), p);
      if (to_bool) {
        y.As<uint8_t>()[i] = v != 0.0 ? 1 : 0;
      } else {
        StoreFloat(y.dtype, y.data, i, v);
      }
    }
    return Status::Ok();
  }
  if (r->i != nullptr) {
    switch (x.dtype) {
      case DType::kBool:
        if (p.op != UnaryOp::kNot) break;
        RunInt<uint8_t>(*r, p, x, y, n);
        return Status::Ok();
      case DType::kI8:
        if (p.op == UnaryOp::kNot) break;
        RunInt<int8_t>(*r, p, x, y, n);
        return Status::Ok();
      case DType::kU8:
        if (p.op == UnaryOp::kNot) break;
        RunInt<uint8_t>(*r, p, x, y, n);
        return Status::Ok();
      case DType::kI16:
        if (p.op == UnaryOp::kNot) break;
        RunInt<int16_t>(*r, p, x, y, n);
        return Status::Ok();
      case DType::kI32:
        if (p.op == UnaryOp::kNot) break;
        RunInt<int32_t>(*r, p, x, y, n);
        return Status::Ok();
      case DType::kI64:
        if (p.op == UnaryOp::kNot) break;
        RunInt<int64_t>(*r, p, x, y, n);
        return Status::Ok();
      case DType::kU16:
        if (p.op == UnaryOp::kNot) break;
        RunInt<uint16_t>(*r, p, x, y, n);
        return Status::Ok();
      case DType::kU32:
        if (p.op == UnaryOp::kNot) break;
        RunInt<uint32_t>(*r, p, x, y, n);
        return Status::Ok();
      case DType::kU64:
        if (p.op == UnaryOp::kNot) break;
        RunInt<uint64_t>(*r, p, x, y, n);
        return Status::Ok();
      default:
        break;
    }
  }
  const char* want = r->f == nullptr   ? (p.op == UnaryOp::kNot ? "bool" : "an integer type")
                     : r->i != nullptr ? "a float or integer type"
                                       : "a float type (f32, f64, f16)";
  return InvalidArgument(std::string(r->name) + ": input type " + DTypeName(x.dtype) +
                         " is not supported (needs " + want + ")");
}

}  // namespace loom::kernels
