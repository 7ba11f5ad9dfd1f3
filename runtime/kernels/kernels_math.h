// The elementwise math, logic and activation family (issue 12): unary functions and activations
// (unary.cc), the three-operand select Where (where.cc). The binary ops of the family extend
// BinaryOp in kernels.h (binary.cc), so every two-operand elementwise op shares one broadcasting
// loop. Contract as in kernels.h: the caller provides outputs, kernels never allocate.
//
// Element types: the float functions run on f32, f64 and f16 (computed in double, rounded once to
// the output type); the integer-capable ops (Abs, Neg, Sign, Shrink, BitwiseNot) also on i8, u8,
// i16, i32 and i64, wrapping as two's complement does; Not on bool.
#ifndef LOOM_RUNTIME_KERNELS_KERNELS_MATH_H_
#define LOOM_RUNTIME_KERNELS_KERNELS_MATH_H_

#include <cstdint>
#include <string_view>

#include "runtime/core/status.h"
#include "runtime/kernels/kernels.h"
#include "runtime/kernels/tensor.h"

namespace loom::kernels {

enum class UnaryOp : uint8_t {
  // Any numeric type.
  kAbs,
  kNeg,
  kSign,
  kShrink,  // x < -lambd ? x + bias : x > lambd ? x - bias : 0 (alpha = lambd, beta = bias)
  // Float types only.
  kCeil,
  kFloor,
  kRound,  // half to even
  kReciprocal,
  kExp,
  kLog,
  kSqrt,
  kTanh,
  kSin,
  kCos,
  kTan,
  kAsin,
  kAcos,
  kAtan,
  kSinh,
  kCosh,
  kAsinh,
  kAcosh,
  kAtanh,
  kErf,
  kSoftsign,         // x / (1 + |x|)
  kSoftplus,         // log(1 + e^x)
  kElu,              // x < 0 ? alpha * (e^x - 1) : x
  kSelu,             // gamma * (x <= 0 ? alpha * (e^x - 1) : x)
  kCelu,             // max(0, x) + min(0, alpha * (e^(x / alpha) - 1))
  kHardSigmoid,      // max(0, min(1, alpha * x + beta))
  kHardSwish,        // x * max(0, min(1, x / 6 + 1 / 2))
  kThresholdedRelu,  // x > alpha ? x : 0
  // Float input, bool output.
  kIsNaN,
  kIsInf,  // detect_negative / detect_positive select the signs
  // Bool only.
  kNot,
  // Integer types only.
  kBitwiseNot,
};

struct UnaryParams {
  UnaryOp op = UnaryOp::kAbs;
  float alpha = 0.0f;
  float beta = 0.0f;
  float gamma = 0.0f;
  bool detect_negative = true;
  bool detect_positive = true;
};

// unary.cc — y = op(x) elementwise; same shape. y's dtype is x's, except bool for IsNaN / IsInf.
// y may alias x.
Status Unary(const UnaryParams& p, const TensorView& x, const TensorView& y);
// The op's ONNX name ("Abs", ...), for messages and tables, and back; false for another name.
const char* UnaryOpName(UnaryOp op);
bool UnaryOpByName(std::string_view name, UnaryOp* out);
// The binary op an IR op name maps to: "Div" -> kDiv, "Mod" -> kMod and "BitShift" ->
// kBitShiftLeft (their attributes refine them, math_attrs.h); false for another name.
bool BinaryOpByName(std::string_view name, BinaryOp* out);

// where.cc — y = cond ? a : b with numpy broadcasting of all three; cond is bool, a, b and y share
// any dtype.
Status Where(const TensorView& cond, const TensorView& a, const TensorView& b, const TensorView& y);

}  // namespace loom::kernels

#endif  // LOOM_RUNTIME_KERNELS_KERNELS_MATH_H_
