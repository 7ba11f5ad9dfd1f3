// Executors of the vision and normalization family (issue 12) on the runtime's reference kernels
// (runtime/kernels/kernels_vision.h), so the interpreter and a package's CPU segments compute
// these ops with one implementation. Attributes are trusted to be canonical (the verifier ran).
#include "compiler/interp/op_table.h"
#include "runtime/kernels/kernels_vision.h"
#include "runtime/kernels/vision_attrs.h"

namespace loom::interp {
namespace {

using kernels::TensorView;

Status ExecConvTranspose(ExecContext& ctx) {
  TensorView x, w, b, y;
  bool has_b = false;
  LOOM_RETURN_IF_ERROR(ctx.In(0, &x));
  LOOM_RETURN_IF_ERROR(ctx.In(1, &w));
  LOOM_RETURN_IF_ERROR(ctx.InOpt(2, &b, &has_b));
  LOOM_RETURN_IF_ERROR(ctx.Out(0, &y));
  kernels::ConvParams p;
  LOOM_RETURN_IF_ERROR(ctx.Wrap(kernels::ConvParamsFrom(ctx.node(), x.rank, &p)));
  LOOM_RETURN_IF_ERROR(ctx.Wrap(kernels::ConvTranspose(p, x, w, has_b ? &b : nullptr, y)));
  return ctx.Wrap(ApplyFusedActivation(ctx.node(), y));  // a Relu/Clip the fusion pass folded in
}

Status ExecResize(ExecContext& ctx) {
  TensorView x, y;
  LOOM_RETURN_IF_ERROR(ctx.In(0, &x));
  LOOM_RETURN_IF_ERROR(ctx.Out(0, &y));
  kernels::ResizeParams p;
  LOOM_RETURN_IF_ERROR(ctx.Wrap(kernels::ResizeParamsFrom(ctx.node(), x, y, &p)));
  return ctx.Wrap(kernels::Resize(p, x, y));
}

Status ExecLayerNorm(ExecContext& ctx) {
  TensorView x, scale, bias, y, mean, inv;
  bool has_bias = false;
  LOOM_RETURN_IF_ERROR(ctx.In(0, &x));
  LOOM_RETURN_IF_ERROR(ctx.In(1, &scale));
  LOOM_RETURN_IF_ERROR(ctx.InOpt(2, &bias, &has_bias));
  LOOM_RETURN_IF_ERROR(ctx.Out(0, &y));
  if (ctx.num_outputs() > 1) LOOM_RETURN_IF_ERROR(ctx.Out(1, &mean));
  if (ctx.num_outputs() > 2) LOOM_RETURN_IF_ERROR(ctx.Out(2, &inv));
  const int axis = static_cast<int>(ctx.node().GetInt("axis", -1));
  return ctx.Wrap(kernels::LayerNorm(
      x, scale, has_bias ? &bias : nullptr, axis, ctx.node().GetFloat("epsilon", 1e-5f), y,
      ctx.num_outputs() > 1 ? &mean : nullptr, ctx.num_outputs() > 2 ? &inv : nullptr));
}

Status ExecInstanceNorm(ExecContext& ctx) {
  TensorView x, scale, bias, y;
  LOOM_RETURN_IF_ERROR(ctx.In(0, &x));
  LOOM_RETURN_IF_ERROR(ctx.In(1, &scale));
  LOOM_RETURN_IF_ERROR(ctx.In(2, &bias));
  LOOM_RETURN_IF_ERROR(ctx.Out(0, &y));
  return ctx.Wrap(kernels::InstanceNorm(x, scale, bias, ctx.node().GetFloat("epsilon", 1e-5f), y));
}

Status ExecLrn(ExecContext& ctx) {
  TensorView x, y;
  LOOM_RETURN_IF_ERROR(ctx.In(0, &x));
  LOOM_RETURN_IF_ERROR(ctx.Out(0, &y));
  kernels::LrnParams p;
  LOOM_RETURN_IF_ERROR(ctx.Wrap(kernels::LrnParamsFrom(ctx.node(), &p)));
  return ctx.Wrap(kernels::Lrn(p, x, y));
}

Status ExecGlobalMaxPool(ExecContext& ctx) {
  TensorView x, y;
  LOOM_RETURN_IF_ERROR(ctx.In(0, &x));
  LOOM_RETURN_IF_ERROR(ctx.Out(0, &y));
  return ctx.Wrap(kernels::GlobalMaxPool(x, y));
}

struct Entry {
  const char* op;
  ExecFn fn;
};

const Entry kVisionOps[] = {
    {"ConvTranspose", ExecConvTranspose},
    {"Resize", ExecResize},
    {"LayerNormalization", ExecLayerNorm},
    {"InstanceNormalization", ExecInstanceNorm},
    {"LRN", ExecLrn},
    {"GlobalMaxPool", ExecGlobalMaxPool},
};

}  // namespace

ExecFn FindVisionExecutor(std::string_view op) {
  for (const Entry& e : kVisionOps) {
    if (op == e.op) return e.fn;
  }
  return nullptr;
}

}  // namespace loom::interp
