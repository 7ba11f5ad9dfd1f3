// Executors of the elementwise math, logic and activation family (issue 12) on the runtime's
// reference kernels (runtime/kernels/kernels_math.h and binary.cc), so the interpreter and a
// package's CPU segments compute these ops with one implementation. The kernels take every
// dtype the shape functions admit (f32, f64, f16, the integers, bool), which the packages' CPU
// segments (f32 only) do not.
#include "compiler/interp/op_table.h"
#include "runtime/kernels/kernels_math.h"
#include "runtime/kernels/math_attrs.h"

namespace loom::interp {
namespace {

using kernels::TensorView;

Status ExecUnary(ExecContext& ctx) {
  kernels::UnaryOp op;
  if (!kernels::UnaryOpByName(ctx.node().op, &op)) {
    return ctx.Wrap(Internal("no unary kernel for " + ctx.node().op));
  }
  kernels::UnaryParams p;
  LOOM_RETURN_IF_ERROR(ctx.Wrap(kernels::UnaryParamsFrom(ctx.node(), op, &p)));
  TensorView x, y;
  LOOM_RETURN_IF_ERROR(ctx.In(0, &x));
  LOOM_RETURN_IF_ERROR(ctx.Out(0, &y));
  return ctx.Wrap(kernels::Unary(p, x, y));
}

Status ExecBinary(ExecContext& ctx) {
  kernels::BinaryOp named, op;
  if (!kernels::BinaryOpByName(ctx.node().op, &named)) {
    return ctx.Wrap(Internal("no binary kernel for " + ctx.node().op));
  }
  LOOM_RETURN_IF_ERROR(ctx.Wrap(kernels::BinaryOpFrom(ctx.node(), named, &op)));
  TensorView a, b, y;
  LOOM_RETURN_IF_ERROR(ctx.In(0, &a));
  LOOM_RETURN_IF_ERROR(ctx.In(1, &b));
  LOOM_RETURN_IF_ERROR(ctx.Out(0, &y));
  return ctx.Wrap(kernels::Binary(op, a, b, y));
}

Status ExecWhere(ExecContext& ctx) {
  TensorView c, a, b, y;
  LOOM_RETURN_IF_ERROR(ctx.In(0, &c));
  LOOM_RETURN_IF_ERROR(ctx.In(1, &a));
  LOOM_RETURN_IF_ERROR(ctx.In(2, &b));
  LOOM_RETURN_IF_ERROR(ctx.Out(0, &y));
  return ctx.Wrap(kernels::Where(c, a, b, y));
}

}  // namespace

ExecFn FindMathExecutor(std::string_view op) {
  if (op == "Where") return ExecWhere;
  kernels::UnaryOp u;
  if (kernels::UnaryOpByName(op, &u)) return ExecUnary;
  kernels::BinaryOp b;
  // Add, Sub and Mul keep their executors in ops_tensor.cc (they apply fused activations).
  if (op != "Add" && op != "Sub" && op != "Mul" && kernels::BinaryOpByName(op, &b)) {
    return ExecBinary;
  }
  return nullptr;
}

}  // namespace loom::interp
