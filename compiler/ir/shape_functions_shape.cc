// Shape functions of the element-type, cast, shape and indexing family (issue 12).
#include "compiler/ir/shape_functions.h"

namespace loom::ir::shape {

Status Cast(InferContext& ctx) {
  const std::string to = ctx.node().GetString("to", "");
  DType t;
  if (!ParseDType(to, &t)) return ctx.Error("'to' = \"" + to + "\" is not an element type");
  if (ctx.input(0).dtype == DType::kUndefined) return ctx.Error("input 0 has no element type");
  ctx.SetOutput(0, t, ctx.input(0).shape);
  return Status::Ok();
}

}  // namespace loom::ir::shape
