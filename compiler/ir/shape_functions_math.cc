// Shape functions of the elementwise math, logic and activation family (issue 12): the output has
// the input's shape (unary) or the numpy broadcast of the inputs' shapes; the element type rules
// are ONNX's for the types Loom has (docs/compiler.md lists them per op).
#include "compiler/ir/shape_functions.h"

namespace loom::ir {
namespace {

constexpr std::initializer_list<DType> kFloats = {DType::kF32, DType::kF64, DType::kF16};
constexpr std::initializer_list<DType> kNumeric = {
    DType::kF32, DType::kF64, DType::kF16, DType::kI8,  DType::kU8, DType::kI16,
    DType::kI32, DType::kI64, DType::kU16, DType::kU32, DType::kU64};
constexpr std::initializer_list<DType> kIntegers = {DType::kI8,  DType::kU8,  DType::kI16,
                                                    DType::kI32, DType::kI64, DType::kU16,
                                                    DType::kU32, DType::kU64};

// Numpy broadcast of inputs [0, count), all of input 0's dtype unless `same_dtype` is false.
Status BroadcastInputs(const InferContext& ctx, int count, bool same_dtype, Shape* out) {
  *out = ctx.input(0).shape;
  for (int i = 1; i < count; ++i) {
    if (same_dtype) LOOM_RETURN_IF_ERROR(ExpectDType(ctx, i, {ctx.input(0).dtype}));
    Shape next;
    if (!BroadcastShapes(*out, ctx.input(i).shape, &next)) {
      return ctx.Error("input shapes " + ShapeToString(*out) + " and " +
                       ShapeToString(ctx.input(i).shape) + " do not broadcast");
    }
    *out = std::move(next);
  }
  return Status::Ok();
}

Status SameTypeBroadcast(InferContext& ctx, std::initializer_list<DType> allowed, DType out_dtype) {
  LOOM_RETURN_IF_ERROR(ExpectDType(ctx, 0, allowed));
  Shape out;
  LOOM_RETURN_IF_ERROR(BroadcastInputs(ctx, 2, true, &out));
  ctx.SetOutput(0, out_dtype == DType::kUndefined ? ctx.input(0).dtype : out_dtype, std::move(out));
  return Status::Ok();
}

Status Elementwise(InferContext& ctx, std::initializer_list<DType> allowed, DType out_dtype) {
  LOOM_RETURN_IF_ERROR(ExpectDType(ctx, 0, allowed));
  ctx.SetOutput(0, out_dtype == DType::kUndefined ? ctx.input(0).dtype : out_dtype,
                ctx.input(0).shape);
  return Status::Ok();
}

}  // namespace

namespace shape {

Status FloatMath(InferContext& ctx) { return Elementwise(ctx, kFloats, DType::kUndefined); }
Status NumericUnary(InferContext& ctx) { return Elementwise(ctx, kNumeric, DType::kUndefined); }
Status FloatClass(InferContext& ctx) { return Elementwise(ctx, kFloats, DType::kBool); }
Status Not(InferContext& ctx) { return Elementwise(ctx, {DType::kBool}, DType::kBool); }

Status Arith(InferContext& ctx) { return SameTypeBroadcast(ctx, kNumeric, DType::kUndefined); }
Status Logic(InferContext& ctx) { return SameTypeBroadcast(ctx, {DType::kBool}, DType::kBool); }

Status Compare(InferContext& ctx) {
  // Equal also compares bool (ONNX 11 on); the orderings do not.
  if (ctx.node().op == "Equal") {
    LOOM_RETURN_IF_ERROR(ExpectDType(
        ctx, 0,
        {DType::kF32, DType::kF64, DType::kF16, DType::kI8, DType::kU8, DType::kI16, DType::kI32,
         DType::kI64, DType::kBool, DType::kU16, DType::kU32, DType::kU64}));
    return SameTypeBroadcast(ctx, {ctx.input(0).dtype}, DType::kBool);
  }
  return SameTypeBroadcast(ctx, kNumeric, DType::kBool);
}

Status Pow(InferContext& ctx) {
  // The exponent may have another numeric type; the result has the base's.
  LOOM_RETURN_IF_ERROR(ExpectDType(ctx, 0, kNumeric));
  LOOM_RETURN_IF_ERROR(ExpectDType(ctx, 1, kNumeric));
  Shape out;
  LOOM_RETURN_IF_ERROR(BroadcastInputs(ctx, 2, false, &out));
  ctx.SetOutput(0, ctx.input(0).dtype, std::move(out));
  return Status::Ok();
}

Status Mod(InferContext& ctx) {
  const int64_t fmod = ctx.node().GetInt("fmod", 0);
  if (fmod != 0 && fmod != 1) return ctx.Error("fmod must be 0 or 1, is " + std::to_string(fmod));
  return Arith(ctx);
}

Status PRelu(InferContext& ctx) {
  // The slope broadcasts to x, never the other way (ONNX's unidirectional broadcasting).
  LOOM_RETURN_IF_ERROR(ExpectDType(ctx, 0, kNumeric));
  Shape out;
  LOOM_RETURN_IF_ERROR(BroadcastInputs(ctx, 2, true, &out));
  if (out != ctx.input(0).shape) {
    return ctx.Error("slope " + ShapeToString(ctx.input(1).shape) + " does not broadcast to x " +
                     ShapeToString(ctx.input(0).shape));
  }
  ctx.SetOutput(0, ctx.input(0).dtype, std::move(out));
  return Status::Ok();
}

Status BitShift(InferContext& ctx) {
  const int64_t dir = ctx.node().GetInt("direction", -1);
  if (dir != 0 && dir != 1) {
    return ctx.Error("direction must be 0 (LEFT) or 1 (RIGHT), is " + std::to_string(dir));
  }
  return SameTypeBroadcast(ctx, kIntegers, DType::kUndefined);
}

Status IsInf(InferContext& ctx) {
  for (const char* a : {"detect_negative", "detect_positive"}) {
    const int64_t v = ctx.node().GetInt(a, 1);
    if (v != 0 && v != 1) return ctx.Error(std::string(a) + " must be 0 or 1");
  }
  return FloatClass(ctx);
}

Status Where(InferContext& ctx) {
  LOOM_RETURN_IF_ERROR(ExpectDType(ctx, 0, {DType::kBool}));
  if (ctx.input(1).dtype == DType::kUndefined) return ctx.Error("input 1 has no element type");
  LOOM_RETURN_IF_ERROR(ExpectDType(ctx, 2, {ctx.input(1).dtype}));
  Shape out;
  LOOM_RETURN_IF_ERROR(BroadcastInputs(ctx, 3, false, &out));
  ctx.SetOutput(0, ctx.input(1).dtype, std::move(out));
  return Status::Ok();
}

}  // namespace shape
}  // namespace loom::ir
