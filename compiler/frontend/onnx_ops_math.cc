// Mappers of the elementwise math, logic and activation family (issue 12). Defaults become
// explicit attributes (Elu's alpha, Selu's alpha and gamma, ...), BitShift's direction string an
// integer code (a package's CPU-segment attributes are numbers), and the variadic Max / Min / Sum
// / Mean chains of the binary IR ops (Mean divides the sum by the input count), so every kernel
// of the family takes one or two operands.
#include "compiler/frontend/onnx_internal.h"

namespace loom::frontend {
namespace {

using ir::Attribute;

// ONNX's defaults (the kernels' math_attrs.h holds the same for hand-written IR; the frontend may
// not include the runtime's kernels).
constexpr float kSeluAlpha = 1.67326319217681884765625f;
constexpr float kSeluGamma = 1.05070102214813232421875f;
constexpr float kHardSigmoidAlpha = 0.2f;
constexpr float kHardSigmoidBeta = 0.5f;
constexpr float kShrinkLambd = 0.5f;

// The scalar `v` as a tensor of the float type `t`.
Status FloatScalar(DType t, double v, ir::Tensor* out) {
  switch (t) {
    case DType::kF32:
      *out = ir::Tensor::FromVector<float>(t, {}, {static_cast<float>(v)});
      return Status::Ok();
    case DType::kF64:
      *out = ir::Tensor::FromVector<double>(t, {}, {v});
      return Status::Ok();
    case DType::kF16:
      *out = ir::Tensor::FromVector<uint16_t>(t, {}, {F64ToF16(v)});
      return Status::Ok();
    default:
      return InvalidArgument(std::string("Mean needs float inputs, got ") + DTypeName(t));
  }
}

}  // namespace

Status MapMathUnary(ImportContext& ctx, const onnx::NodeProto& n, int) {
  ir::ValueId x;
  LOOM_RETURN_IF_ERROR(ctx.Input(n, 0, &x));
  const std::string& op = n.op_type();
  ir::AttributeMap attrs;
  auto put = [&](const char* name, float fallback) {
    attrs[name] = Attribute::Float(AttrFloat(n, name, fallback));
  };
  if (op == "Elu" || op == "Celu" || op == "ThresholdedRelu") {
    put("alpha", 1.0f);
  } else if (op == "Selu") {
    put("alpha", kSeluAlpha);
    put("gamma", kSeluGamma);
  } else if (op == "HardSigmoid") {
    put("alpha", kHardSigmoidAlpha);
    put("beta", kHardSigmoidBeta);
  } else if (op == "Shrink") {
    put("lambd", kShrinkLambd);
    put("bias", 0.0f);
  } else if (op == "IsInf") {
    attrs["detect_negative"] = Attribute::Int(AttrInt(n, "detect_negative", 1) != 0);
    attrs["detect_positive"] = Attribute::Int(AttrInt(n, "detect_positive", 1) != 0);
  }
  if (op == "Celu" && AttrFloat(n, "alpha", 1.0f) == 0.0f) {
    return ctx.Invalid(n, "alpha must not be 0 (Celu divides by it)");
  }
  return ctx.Emit(n, op, {x}, std::move(attrs));
}

Status MapMod(ImportContext& ctx, const onnx::NodeProto& n, int) {
  ir::ValueId a, b;
  LOOM_RETURN_IF_ERROR(ctx.Input(n, 0, &a));
  LOOM_RETURN_IF_ERROR(ctx.Input(n, 1, &b));
  const int64_t fmod = AttrInt(n, "fmod", 0);
  if (fmod != 0 && fmod != 1) {
    return ctx.Invalid(n, "fmod must be 0 or 1, is " + std::to_string(fmod));
  }
  if (fmod == 0 && IsFloat(ctx.graph().value(a).dtype)) {
    return ctx.Invalid(n, "fmod=0 (integer modulus) on a float input; ONNX requires fmod=1 there");
  }
  ir::AttributeMap attrs;
  attrs["fmod"] = Attribute::Int(fmod);
  return ctx.Emit(n, "Mod", {a, b}, std::move(attrs));
}

Status MapBitShift(ImportContext& ctx, const onnx::NodeProto& n, int) {
  ir::ValueId a, b;
  LOOM_RETURN_IF_ERROR(ctx.Input(n, 0, &a));
  LOOM_RETURN_IF_ERROR(ctx.Input(n, 1, &b));
  const std::string dir = AttrString(n, "direction", "");
  if (dir != "LEFT" && dir != "RIGHT") {
    return ctx.Invalid(n, "direction must be \"LEFT\" or \"RIGHT\", is \"" + dir + "\"");
  }
  ir::AttributeMap attrs;
  attrs["direction"] = Attribute::Int(dir == "RIGHT" ? 1 : 0);
  return ctx.Emit(n, "BitShift", {a, b}, std::move(attrs));
}

Status MapPRelu(ImportContext& ctx, const onnx::NodeProto& n, int since) {
  ir::ValueId x, slope;
  LOOM_RETURN_IF_ERROR(ctx.Input(n, 0, &x));
  LOOM_RETURN_IF_ERROR(ctx.Input(n, 1, &slope));
  const ir::Shape xs = ctx.graph().value(x).shape;
  const ir::Shape ss = ctx.graph().value(slope).shape;
  if (since < 7 && xs.size() > 2 && ss.size() == 1 && ss[0] == xs[1] && ss[0] != 1) {
    // PRelu-6 applies a 1-D slope per channel (axis 1), as PyTorch exports it; numpy
    // broadcasting needs it as [C, 1, ...].
    ir::Shape target(xs.size() - 1, 1);
    target[0] = ss[0];
    ir::AttributeMap attrs;
    attrs["shape"] = Attribute::Ints(target);
    LOOM_RETURN_IF_ERROR(
        ctx.EmitInternal(n, "Reshape", {slope}, std::move(attrs), "channel_slope", &slope));
  }
  return ctx.Emit(n, "PRelu", {x, slope}, {});
}

Status MapVariadic(ImportContext& ctx, const onnx::NodeProto& n, int) {
  std::vector<ir::ValueId> ins(static_cast<size_t>(n.input_size()));
  for (int i = 0; i < n.input_size(); ++i) {
    LOOM_RETURN_IF_ERROR(ctx.Input(n, i, &ins[static_cast<size_t>(i)]));
  }
  if (ins.empty()) return ctx.Invalid(n, "needs at least one input");
  const std::string& op = n.op_type();
  const bool mean = op == "Mean";
  const std::string pairwise = op == "Sum" || mean ? "Add" : op;
  if (ins.size() == 1) return ctx.Emit(n, "Identity", {ins[0]}, {});
  // Left to right, as the ONNX reference sums: ((a + b) + c) + ...
  ir::ValueId acc = ins[0];
  for (size_t i = 1; i < ins.size(); ++i) {
    if (i + 1 == ins.size() && !mean) return ctx.Emit(n, pairwise, {acc, ins[i]}, {});
    LOOM_RETURN_IF_ERROR(
        ctx.EmitInternal(n, pairwise, {acc, ins[i]}, {}, "acc" + std::to_string(i), &acc));
  }
  ir::Tensor count;
  LOOM_RETURN_IF_ERROR(
      FloatScalar(ctx.graph().value(ins[0]).dtype, static_cast<double>(ins.size()), &count)
          .WithContext(ctx.Label(n)));
  const ir::ValueId c = ctx.AddConstant(n.output(0) + "/count", std::move(count));
  return ctx.Emit(n, "Div", {acc, c}, {});
}

Status MapWhere(ImportContext& ctx, const onnx::NodeProto& n, int) {
  std::vector<ir::ValueId> ins(3);
  for (int i = 0; i < 3; ++i) LOOM_RETURN_IF_ERROR(ctx.Input(n, i, &ins[static_cast<size_t>(i)]));
  return ctx.Emit(n, "Where", ins, {});
}

const std::vector<OpMapper>& MathOpMappers() {
  // op, first schema version with the semantics mapped, attributes understood, constant inputs,
  // mapper. Ops older than the listed version carried `consumed_inputs` or legacy broadcasting
  // MapBinary handles (opset 6).
  static const std::vector<OpMapper> table = {
      {"Div", 6, {"broadcast", "axis"}, {}, MapBinary},
      {"Pow", 7, {}, {}, MapBinary},
      {"Mod", 10, {"fmod"}, {}, MapMod},
      {"PRelu", 6, {}, {}, MapPRelu},
      {"BitShift", 11, {"direction"}, {}, MapBitShift},
      {"And", 7, {}, {}, MapBinary},
      {"Or", 7, {}, {}, MapBinary},
      {"Xor", 7, {}, {}, MapBinary},
      {"Equal", 7, {}, {}, MapBinary},
      {"Greater", 7, {}, {}, MapBinary},
      {"Less", 7, {}, {}, MapBinary},
      {"GreaterOrEqual", 12, {}, {}, MapBinary},
      {"LessOrEqual", 12, {}, {}, MapBinary},
      {"Max", 6, {}, {}, MapVariadic},
      {"Min", 6, {}, {}, MapVariadic},
      {"Sum", 6, {}, {}, MapVariadic},
      {"Mean", 6, {}, {}, MapVariadic},
      {"Where", 9, {}, {}, MapWhere},
      {"Not", 1, {}, {}, MapMathUnary},
      {"IsNaN", 9, {}, {}, MapMathUnary},
      {"IsInf", 10, {"detect_negative", "detect_positive"}, {}, MapMathUnary},
      {"Abs", 6, {}, {}, MapMathUnary},
      {"Neg", 6, {}, {}, MapMathUnary},
      {"Sign", 9, {}, {}, MapMathUnary},
      {"Shrink", 9, {"lambd", "bias"}, {}, MapMathUnary},
      {"Ceil", 6, {}, {}, MapMathUnary},
      {"Floor", 6, {}, {}, MapMathUnary},
      {"Round", 11, {}, {}, MapMathUnary},
      {"Reciprocal", 6, {}, {}, MapMathUnary},
      {"Exp", 6, {}, {}, MapMathUnary},
      {"Log", 6, {}, {}, MapMathUnary},
      {"Sqrt", 6, {}, {}, MapMathUnary},
      {"Tanh", 6, {}, {}, MapMathUnary},
      {"Sin", 7, {}, {}, MapMathUnary},
      {"Cos", 7, {}, {}, MapMathUnary},
      {"Tan", 7, {}, {}, MapMathUnary},
      {"Asin", 7, {}, {}, MapMathUnary},
      {"Acos", 7, {}, {}, MapMathUnary},
      {"Atan", 7, {}, {}, MapMathUnary},
      {"Sinh", 9, {}, {}, MapMathUnary},
      {"Cosh", 9, {}, {}, MapMathUnary},
      {"Asinh", 9, {}, {}, MapMathUnary},
      {"Acosh", 9, {}, {}, MapMathUnary},
      {"Atanh", 9, {}, {}, MapMathUnary},
      {"Erf", 9, {}, {}, MapMathUnary},
      {"Softsign", 1, {}, {}, MapMathUnary},
      {"Softplus", 1, {}, {}, MapMathUnary},
      {"HardSwish", 14, {}, {}, MapMathUnary},
      {"Elu", 6, {"alpha"}, {}, MapMathUnary},
      {"Selu", 6, {"alpha", "gamma"}, {}, MapMathUnary},
      {"Celu", 12, {"alpha"}, {}, MapMathUnary},
      {"HardSigmoid", 6, {"alpha", "beta"}, {}, MapMathUnary},
      {"ThresholdedRelu", 10, {"alpha"}, {}, MapMathUnary},
  };
  return table;
}

}  // namespace loom::frontend
