#include "runtime/kernels/float_ops_typed.h"

#include <string>

#include "runtime/kernels/math_attrs.h"

namespace loom::kernels::typed {
namespace {

Status Need(bool ok, const char* op, const TensorView& t, const char* role, const char* want) {
  if (ok) return Status::Ok();
  return InvalidArgument(std::string(op) + ": " + role + " is " + DTypeName(t.dtype) +
                         ", must be " + want);
}

// The one element of a Clip bound, as the double ActivationParams holds (exact for i8..i32).
double BoundOf(const TensorView& b) {
  switch (b.dtype) {
    case DType::kI8:
      return b.As<const int8_t>()[0];
    case DType::kU8:
      return b.As<const uint8_t>()[0];
    case DType::kI32:
      return b.As<const int32_t>()[0];
    case DType::kI64:
      return static_cast<double>(b.As<const int64_t>()[0]);
    default:
      return b.As<const float>()[0];
  }
}

}  // namespace

Status PrepClip(const AttrReader&, const TensorView* const* in, size_t n, const TensorView& y,
                FloatOpParams* p) {
  p->act.kind = ActivationKind::kClip;
  LOOM_RETURN_IF_ERROR(Need(in[0]->dtype == y.dtype, "Clip", y, "the output", "x's type"));
  for (size_t i = 1; i < n && i <= 2; ++i) {
    const TensorView* b = in[i];
    if (b == nullptr) continue;
    if (b->NumElements() != 1) {
      return InvalidArgument("Clip: bound " + std::to_string(i) + " (" + (i == 1 ? "min" : "max") +
                             ") has " + std::to_string(b->NumElements()) + " elements, not 1");
    }
    LOOM_RETURN_IF_ERROR(Need(b->dtype == y.dtype, "Clip", *b, i == 1 ? "min" : "max", "x's type"));
  }
  return Status::Ok();
}

Status RunClip(const FloatOpParams& p, const TensorView* const* in, size_t n, const TensorView& y) {
  ActivationParams ap = p.act;
  // No bound: wider than every type the row takes, so nothing is clipped.
  ap.min = -3.4028235e38;
  ap.max = 3.4028235e38;
  if (n > 1 && in[1] != nullptr) ap.min = BoundOf(*in[1]);
  if (n > 2 && in[2] != nullptr) ap.max = BoundOf(*in[2]);
  return Activation(ap, *in[0], y);
}

template <BinaryOp kOp>
Status PrepBinary(const AttrReader& a, const TensorView* const* in, size_t, const TensorView& y,
                  FloatOpParams* p) {
  LOOM_RETURN_IF_ERROR(BinaryOpFrom(a, kOp, &p->binary));
  return BinaryTypes(p->binary, *in[0], *in[1], y);
}
template Status PrepBinary<BinaryOp::kAdd>(const AttrReader&, const TensorView* const*, size_t,
                                           const TensorView&, FloatOpParams*);
template Status PrepBinary<BinaryOp::kSub>(const AttrReader&, const TensorView* const*, size_t,
                                           const TensorView&, FloatOpParams*);
template Status PrepBinary<BinaryOp::kMul>(const AttrReader&, const TensorView* const*, size_t,
                                           const TensorView&, FloatOpParams*);
template Status PrepBinary<BinaryOp::kDiv>(const AttrReader&, const TensorView* const*, size_t,
                                           const TensorView&, FloatOpParams*);
template Status PrepBinary<BinaryOp::kPow>(const AttrReader&, const TensorView* const*, size_t,
                                           const TensorView&, FloatOpParams*);
template Status PrepBinary<BinaryOp::kMod>(const AttrReader&, const TensorView* const*, size_t,
                                           const TensorView&, FloatOpParams*);
template Status PrepBinary<BinaryOp::kMax>(const AttrReader&, const TensorView* const*, size_t,
                                           const TensorView&, FloatOpParams*);
template Status PrepBinary<BinaryOp::kMin>(const AttrReader&, const TensorView* const*, size_t,
                                           const TensorView&, FloatOpParams*);
template Status PrepBinary<BinaryOp::kBitShiftLeft>(const AttrReader&, const TensorView* const*,
                                                    size_t, const TensorView&, FloatOpParams*);
template Status PrepBinary<BinaryOp::kBitwiseAnd>(const AttrReader&, const TensorView* const*,
                                                  size_t, const TensorView&, FloatOpParams*);
template Status PrepBinary<BinaryOp::kBitwiseOr>(const AttrReader&, const TensorView* const*,
                                                 size_t, const TensorView&, FloatOpParams*);
template Status PrepBinary<BinaryOp::kBitwiseXor>(const AttrReader&, const TensorView* const*,
                                                  size_t, const TensorView&, FloatOpParams*);
template Status PrepBinary<BinaryOp::kAnd>(const AttrReader&, const TensorView* const*, size_t,
                                           const TensorView&, FloatOpParams*);
template Status PrepBinary<BinaryOp::kOr>(const AttrReader&, const TensorView* const*, size_t,
                                          const TensorView&, FloatOpParams*);
template Status PrepBinary<BinaryOp::kXor>(const AttrReader&, const TensorView* const*, size_t,
                                           const TensorView&, FloatOpParams*);
template Status PrepBinary<BinaryOp::kEqual>(const AttrReader&, const TensorView* const*, size_t,
                                             const TensorView&, FloatOpParams*);
template Status PrepBinary<BinaryOp::kGreater>(const AttrReader&, const TensorView* const*, size_t,
                                               const TensorView&, FloatOpParams*);
template Status PrepBinary<BinaryOp::kLess>(const AttrReader&, const TensorView* const*, size_t,
                                            const TensorView&, FloatOpParams*);
template Status PrepBinary<BinaryOp::kGreaterOrEqual>(const AttrReader&, const TensorView* const*,
                                                      size_t, const TensorView&, FloatOpParams*);
template Status PrepBinary<BinaryOp::kLessOrEqual>(const AttrReader&, const TensorView* const*,
                                                   size_t, const TensorView&, FloatOpParams*);

Status RunBinary(const FloatOpParams& p, const TensorView* const* in, size_t, const TensorView& y) {
  return Binary(p.binary, *in[0], *in[1], y);
}

// The unary ops of this family and the types each takes: Not on bool, BitwiseNot on integers,
// IsNaN / IsInf from a float type to bool.
template <UnaryOp kOp>
Status PrepUnary(const AttrReader& a, const TensorView* const* in, size_t, const TensorView& y,
                 FloatOpParams* p) {
  LOOM_RETURN_IF_ERROR(UnaryParamsFrom(a, kOp, &p->unary));
  const TensorView& x = *in[0];
  const char* name = UnaryOpName(kOp);
  switch (kOp) {
    case UnaryOp::kNot:
      LOOM_RETURN_IF_ERROR(Need(x.dtype == DType::kBool, name, x, "x", "bool"));
      return Need(y.dtype == DType::kBool, name, y, "y", "bool");
    case UnaryOp::kBitwiseNot:
      LOOM_RETURN_IF_ERROR(
          Need(!IsFloat(x.dtype) && x.dtype != DType::kBool, name, x, "x", "an integer type"));
      return Need(y.dtype == x.dtype, name, y, "y", "x's type");
    default:  // IsNaN, IsInf
      LOOM_RETURN_IF_ERROR(Need(IsFloat(x.dtype), name, x, "x", "a float type"));
      return Need(y.dtype == DType::kBool, name, y, "y", "bool");
  }
}
template Status PrepUnary<UnaryOp::kNot>(const AttrReader&, const TensorView* const*, size_t,
                                         const TensorView&, FloatOpParams*);
template Status PrepUnary<UnaryOp::kBitwiseNot>(const AttrReader&, const TensorView* const*, size_t,
                                                const TensorView&, FloatOpParams*);
template Status PrepUnary<UnaryOp::kIsNaN>(const AttrReader&, const TensorView* const*, size_t,
                                           const TensorView&, FloatOpParams*);
template Status PrepUnary<UnaryOp::kIsInf>(const AttrReader&, const TensorView* const*, size_t,
                                           const TensorView&, FloatOpParams*);

Status RunUnary(const FloatOpParams& p, const TensorView* const* in, size_t, const TensorView& y) {
  return Unary(p.unary, *in[0], y);
}

Status PrepWhere(const AttrReader&, const TensorView* const* in, size_t, const TensorView& y,
                 FloatOpParams*) {
  LOOM_RETURN_IF_ERROR(Need(in[0]->dtype == DType::kBool, "Where", *in[0], "cond", "bool"));
  LOOM_RETURN_IF_ERROR(Need(in[1]->dtype == y.dtype, "Where", *in[1], "a", "y's type"));
  return Need(in[2]->dtype == y.dtype, "Where", *in[2], "b", "y's type");
}
Status RunWhere(const FloatOpParams&, const TensorView* const* in, size_t, const TensorView& y) {
  return Where(*in[0], *in[1], *in[2], y);
}

// Cast converts between any two types the package carries; the target is y's type, which the
// package stores (the IR's `to` attribute says the same and is not written).
Status PrepCast(const AttrReader&, const TensorView* const*, size_t, const TensorView&,
                FloatOpParams*) {
  return Status::Ok();
}
Status RunCast(const FloatOpParams&, const TensorView* const* in, size_t, const TensorView& y) {
  return Cast(*in[0], y);
}

template <bool kMax>
Status PrepArgReduce(const AttrReader& a, const TensorView* const* in, size_t, const TensorView& y,
                     FloatOpParams* p) {
  const char* name = kMax ? "ArgMax" : "ArgMin";
  const int rank = in[0]->rank;
  const int64_t axis = a.GetInt("axis", 0);
  if (axis < -rank || axis >= rank) {
    return InvalidArgument(std::string(name) + ": axis " + std::to_string(axis) +
                           " is outside the input's rank " + std::to_string(rank));
  }
  p->axis = static_cast<int>(axis < 0 ? axis + rank : axis);
  p->select_last = a.GetInt("select_last_index", 0) != 0;
  p->arg_max = kMax;
  return Need(y.dtype == DType::kI64, name, y, "y", "i64");
}
template Status PrepArgReduce<true>(const AttrReader&, const TensorView* const*, size_t,
                                    const TensorView&, FloatOpParams*);
template Status PrepArgReduce<false>(const AttrReader&, const TensorView* const*, size_t,
                                     const TensorView&, FloatOpParams*);

Status RunArgReduce(const FloatOpParams& p, const TensorView* const* in, size_t,
                    const TensorView& y) {
  return ArgReduce(p.arg_max, *in[0], p.axis, p.select_last, y);
}

}  // namespace loom::kernels::typed
