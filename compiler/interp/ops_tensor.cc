// Executors of the elementwise, data-movement and (de)quantization ops.
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "compiler/interp/float_fast.h"
#include "compiler/interp/op_table.h"

namespace loom::interp {
namespace {

using kernels::TensorView;

Status Unary(ExecContext& ctx, const kernels::ActivationParams& p) {
  TensorView x, y;
  LOOM_RETURN_IF_ERROR(ctx.In(0, &x));
  LOOM_RETURN_IF_ERROR(ctx.Out(0, &y));
  return ctx.Wrap(kernels::Activation(p, x, y));
}

Status ExecRelu(ExecContext& ctx) { return Unary(ctx, {kernels::ActivationKind::kRelu}); }
Status ExecSigmoid(ExecContext& ctx) { return Unary(ctx, {kernels::ActivationKind::kSigmoid}); }
Status ExecLeakyRelu(ExecContext& ctx) {
  kernels::ActivationParams p{kernels::ActivationKind::kLeakyRelu};
  p.alpha = ctx.node().GetFloat("alpha", 0.01f);
  return Unary(ctx, p);
}

Status ExecClip(ExecContext& ctx) {
  // Absent bounds are the dtype's range; doubles hold every bound exactly (see ActivationParams).
  kernels::ActivationParams p{kernels::ActivationKind::kClip};
  p.min = -INFINITY;
  p.max = INFINITY;
  if (ctx.has_input(1)) p.min = ctx.input_tensor(1).ElementAsDouble(0);
  if (ctx.has_input(2)) p.max = ctx.input_tensor(2).ElementAsDouble(0);
  return Unary(ctx, p);
}

Status BinaryOp(ExecContext& ctx, kernels::BinaryOp op) {
  TensorView a, b, y;
  LOOM_RETURN_IF_ERROR(ctx.In(0, &a));
  LOOM_RETURN_IF_ERROR(ctx.In(1, &b));
  LOOM_RETURN_IF_ERROR(ctx.Out(0, &y));
  bool done = false;
  // ResNet's residual Add (+ ReLU) runs once per block per calibration image.
  if (op == kernels::BinaryOp::kAdd) LOOM_RETURN_IF_ERROR(FastAddSameShape(a, b, y, &done));
  if (!done) LOOM_RETURN_IF_ERROR(ctx.Wrap(kernels::Binary(op, a, b, y)));
  FastFusedRelu(ctx.node(), y, &done);
  return done ? Status::Ok() : ctx.Wrap(ApplyFusedActivation(ctx.node(), y));
}
Status ExecAdd(ExecContext& ctx) { return BinaryOp(ctx, kernels::BinaryOp::kAdd); }
Status ExecSub(ExecContext& ctx) { return BinaryOp(ctx, kernels::BinaryOp::kSub); }
Status ExecMul(ExecContext& ctx) { return BinaryOp(ctx, kernels::BinaryOp::kMul); }

// Reshape, Identity, and Dropout's data output.
Status ExecCopy(ExecContext& ctx) {
  TensorView x, y;
  LOOM_RETURN_IF_ERROR(ctx.In(0, &x));
  LOOM_RETURN_IF_ERROR(ctx.Out(0, &y));
  return ctx.Wrap(kernels::Copy(x, y));
}

Status ExecDropout(ExecContext& ctx) {
  LOOM_RETURN_IF_ERROR(ExecCopy(ctx));
  if (ctx.num_outputs() > 1) {
    // Inference: nothing is dropped, the mask is all true.
    TensorView mask;
    LOOM_RETURN_IF_ERROR(ctx.Out(1, &mask));
    std::memset(mask.data, 1, static_cast<size_t>(mask.NumElements()));
  }
  return Status::Ok();
}

Status ExecTranspose(ExecContext& ctx) {
  TensorView x, y;
  LOOM_RETURN_IF_ERROR(ctx.In(0, &x));
  LOOM_RETURN_IF_ERROR(ctx.Out(0, &y));
  const std::vector<int64_t> perm = ctx.node().GetInts("perm");
  return ctx.Wrap(kernels::Transpose(x, perm.data(), y));
}

Status ExecConcat(ExecContext& ctx) {
  std::vector<TensorView> views(static_cast<size_t>(ctx.num_inputs()));
  std::vector<const TensorView*> ptrs;
  for (int i = 0; i < ctx.num_inputs(); ++i) {
    LOOM_RETURN_IF_ERROR(ctx.In(i, &views[static_cast<size_t>(i)]));
    ptrs.push_back(&views[static_cast<size_t>(i)]);
  }
  TensorView y;
  LOOM_RETURN_IF_ERROR(ctx.Out(0, &y));
  return ctx.Wrap(kernels::Concat(ptrs.data(), static_cast<int>(ptrs.size()),
                                  static_cast<int>(ctx.node().GetInt("axis", 0)), y));
}

Status ExecPad(ExecContext& ctx) {
  TensorView x, y;
  LOOM_RETURN_IF_ERROR(ctx.In(0, &x));
  LOOM_RETURN_IF_ERROR(ctx.Out(0, &y));
  const ir::Node& n = ctx.node();
  const std::string mode = n.GetString("mode", "constant");
  const kernels::PadMode m = mode == "reflect" ? kernels::PadMode::kReflect
                             : mode == "edge"  ? kernels::PadMode::kEdge
                                               : kernels::PadMode::kConstant;
  const std::vector<int64_t> pads = n.GetInts("pads");
  return ctx.Wrap(kernels::Pad(x, pads.data(), m, n.GetFloat("value", 0.0f), y));
}

Status ExecSoftmax(ExecContext& ctx) {
  TensorView x, y;
  LOOM_RETURN_IF_ERROR(ctx.In(0, &x));
  LOOM_RETURN_IF_ERROR(ctx.Out(0, &y));
  return ctx.Wrap(kernels::Softmax(x, static_cast<int>(ctx.node().GetInt("axis", -1)), y));
}

Status ExecQuantizeLinear(ExecContext& ctx) {
  TensorView x, s, z, y;
  LOOM_RETURN_IF_ERROR(ctx.In(0, &x));
  LOOM_RETURN_IF_ERROR(ctx.In(1, &s));
  LOOM_RETURN_IF_ERROR(ctx.In(2, &z));
  LOOM_RETURN_IF_ERROR(ctx.Out(0, &y));
  return ctx.Wrap(
      kernels::QuantizeLinear(x, s, z, static_cast<int>(ctx.node().GetInt("axis", -1)), y));
}

Status ExecDequantizeLinear(ExecContext& ctx) {
  TensorView x, s, z, y;
  LOOM_RETURN_IF_ERROR(ctx.In(0, &x));
  LOOM_RETURN_IF_ERROR(ctx.In(1, &s));
  LOOM_RETURN_IF_ERROR(ctx.In(2, &z));
  LOOM_RETURN_IF_ERROR(ctx.Out(0, &y));
  return ctx.Wrap(
      kernels::DequantizeLinear(x, s, z, static_cast<int>(ctx.node().GetInt("axis", -1)), y));
}

struct Entry {
  const char* op;
  ExecFn fn;
};

const Entry kTensorOps[] = {
    {"Relu", ExecRelu},
    {"LeakyRelu", ExecLeakyRelu},
    {"Sigmoid", ExecSigmoid},
    {"Clip", ExecClip},
    {"Add", ExecAdd},
    {"Sub", ExecSub},
    {"Mul", ExecMul},
    {"Reshape", ExecCopy},
    {"Identity", ExecCopy},
    {"Dropout", ExecDropout},
    {"Transpose", ExecTranspose},
    {"Concat", ExecConcat},
    {"Pad", ExecPad},
    {"Softmax", ExecSoftmax},
    {"QuantizeLinear", ExecQuantizeLinear},
    {"DequantizeLinear", ExecDequantizeLinear},
};

}  // namespace

ExecFn FindTensorExecutor(std::string_view op) {
  for (const Entry& e : kTensorOps) {
    if (op == e.op) return e.fn;
  }
  return nullptr;
}

}  // namespace loom::interp
