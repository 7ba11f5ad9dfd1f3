// Op mappers of the element-type, cast, shape and indexing family (issue 12): Cast, CastLike.
#include "compiler/frontend/onnx_internal.h"

namespace loom::frontend {

namespace {

// The IR's Cast takes the target type by its IR name ("f16", "i64", ...), so the IR text form
// reads without a table of ONNX enum values.
Status EmitCast(ImportContext& ctx, const onnx::NodeProto& n, ir::ValueId x, int32_t onnx_to) {
  if (onnx_to == onnx::TensorProto::STRING) {
    return ctx.Unsupported(n, "cast to STRING is not supported (Loom has no string tensors)");
  }
  DType to;
  LOOM_RETURN_IF_ERROR(DTypeFromOnnx(onnx_to, &to).WithContext(ctx.Label(n) + ": cast target"));
  ir::AttributeMap attrs;
  attrs["to"] = ir::Attribute::String(DTypeName(to));
  return ctx.Emit(n, "Cast", {x}, std::move(attrs));
}

}  // namespace

Status MapCast(ImportContext& ctx, const onnx::NodeProto& n, int) {
  ir::ValueId x;
  LOOM_RETURN_IF_ERROR(ctx.Input(n, 0, &x));
  const onnx::AttributeProto* to = FindAttr(n, "to");
  if (to == nullptr || to->type() != onnx::AttributeProto::INT) {
    return ctx.Invalid(n, "needs the int attribute 'to'");
  }
  return EmitCast(ctx, n, x, static_cast<int32_t>(to->i()));
}

Status MapCastLike(ImportContext& ctx, const onnx::NodeProto& n, int) {
  ir::ValueId x, like;
  LOOM_RETURN_IF_ERROR(ctx.Input(n, 0, &x));
  LOOM_RETURN_IF_ERROR(ctx.Input(n, 1, &like));
  // Only the second input's type matters; its data is not read, so the node becomes a Cast.
  ir::AttributeMap attrs;
  attrs["to"] = ir::Attribute::String(DTypeName(ctx.graph().value(like).dtype));
  return ctx.Emit(n, "Cast", {x}, std::move(attrs));
}

}  // namespace loom::frontend
