// Executors of the compute ops: translate a node's attributes into kernel parameters and call
// the reference kernel. Attributes are trusted to be canonical (the verifier has run).
#include <string>

#include "compiler/interp/blas_ops.h"
#include "compiler/interp/float_fast.h"
#include "compiler/interp/op_table.h"
#include "runtime/kernels/op_attrs.h"

namespace loom::interp {
namespace {

using kernels::TensorView;

// Conv-family and pooling geometry, as the runtime's CPU path reads it (kernels/op_attrs.h).
Status ConvParamsOf(const ExecContext& ctx, int rank, kernels::ConvParams* p) {
  return ctx.Wrap(kernels::ConvParamsFrom(ctx.node(), rank, p));
}

Status PoolParamsOf(const ExecContext& ctx, int rank, kernels::PoolParams* p) {
  return ctx.Wrap(kernels::PoolParamsFrom(ctx.node(), rank, p));
}

Status ExecConv(ExecContext& ctx) {
  TensorView x, w, b, y;
  bool has_b = false;
  LOOM_RETURN_IF_ERROR(ctx.In(0, &x));
  LOOM_RETURN_IF_ERROR(ctx.In(1, &w));
  LOOM_RETURN_IF_ERROR(ctx.InOpt(2, &b, &has_b));
  LOOM_RETURN_IF_ERROR(ctx.Out(0, &y));
  kernels::ConvParams p;
  LOOM_RETURN_IF_ERROR(ConvParamsOf(ctx, x.rank, &p));
  bool done = false;
  LOOM_RETURN_IF_ERROR(
      ctx.Wrap(BlasConv(p, x, w, has_b ? &b : nullptr, y, ctx.input_is_graph_constant(1), &done)));
  if (!done) LOOM_RETURN_IF_ERROR(ctx.Wrap(kernels::Conv(p, x, w, has_b ? &b : nullptr, y)));
  FastFusedRelu(ctx.node(), y, &done);
  return done ? Status::Ok() : ctx.Wrap(ApplyFusedActivation(ctx.node(), y));
}

Status ExecConvInteger(ExecContext& ctx) {
  TensorView x, w, xz, wz, y;
  bool has_xz = false, has_wz = false;
  LOOM_RETURN_IF_ERROR(ctx.In(0, &x));
  LOOM_RETURN_IF_ERROR(ctx.In(1, &w));
  LOOM_RETURN_IF_ERROR(ctx.InOpt(2, &xz, &has_xz));
  LOOM_RETURN_IF_ERROR(ctx.InOpt(3, &wz, &has_wz));
  LOOM_RETURN_IF_ERROR(ctx.Out(0, &y));
  kernels::ConvParams p;
  LOOM_RETURN_IF_ERROR(ConvParamsOf(ctx, x.rank, &p));
  return ctx.Wrap(kernels::ConvInteger(p, x, w, has_xz ? &xz : nullptr, has_wz ? &wz : nullptr, y));
}

Status ExecQLinearConv(ExecContext& ctx) {
  TensorView in[8], b, y;
  bool has_b = false;
  for (int i = 0; i < 8; ++i) LOOM_RETURN_IF_ERROR(ctx.In(i, &in[i]));
  LOOM_RETURN_IF_ERROR(ctx.InOpt(8, &b, &has_b));
  LOOM_RETURN_IF_ERROR(ctx.Out(0, &y));
  kernels::ConvParams p;
  LOOM_RETURN_IF_ERROR(ConvParamsOf(ctx, in[0].rank, &p));
  return ctx.Wrap(kernels::QLinearConv(p, in[0], {&in[1], &in[2]}, in[3], {&in[4], &in[5]},
                                       {&in[6], &in[7]}, has_b ? &b : nullptr, y));
}

Status ExecGemm(ExecContext& ctx) {
  TensorView a, b, c, y;
  bool has_c = false;
  LOOM_RETURN_IF_ERROR(ctx.In(0, &a));
  LOOM_RETURN_IF_ERROR(ctx.In(1, &b));
  LOOM_RETURN_IF_ERROR(ctx.InOpt(2, &c, &has_c));
  LOOM_RETURN_IF_ERROR(ctx.Out(0, &y));
  const kernels::GemmParams p = kernels::GemmParamsFrom(ctx.node());
  bool done = false;
  LOOM_RETURN_IF_ERROR(ctx.Wrap(BlasGemm(p, a, b, has_c ? &c : nullptr, y, &done)));
  if (!done) LOOM_RETURN_IF_ERROR(ctx.Wrap(kernels::Gemm(p, a, b, has_c ? &c : nullptr, y)));
  return ctx.Wrap(ApplyFusedActivation(ctx.node(), y));
}

Status ExecMatMul(ExecContext& ctx) {
  TensorView a, b, y;
  LOOM_RETURN_IF_ERROR(ctx.In(0, &a));
  LOOM_RETURN_IF_ERROR(ctx.In(1, &b));
  LOOM_RETURN_IF_ERROR(ctx.Out(0, &y));
  bool done = false;
  LOOM_RETURN_IF_ERROR(ctx.Wrap(BlasMatMul(a, b, y, &done)));
  return done ? Status::Ok() : ctx.Wrap(kernels::MatMul(a, b, y));
}

Status ExecMatMulInteger(ExecContext& ctx) {
  TensorView a, b, az, bz, y;
  bool has_az = false, has_bz = false;
  LOOM_RETURN_IF_ERROR(ctx.In(0, &a));
  LOOM_RETURN_IF_ERROR(ctx.In(1, &b));
  LOOM_RETURN_IF_ERROR(ctx.InOpt(2, &az, &has_az));
  LOOM_RETURN_IF_ERROR(ctx.InOpt(3, &bz, &has_bz));
  LOOM_RETURN_IF_ERROR(ctx.Out(0, &y));
  return ctx.Wrap(kernels::MatMulInteger(a, b, has_az ? &az : nullptr, has_bz ? &bz : nullptr, y));
}

Status ExecQLinearMatMul(ExecContext& ctx) {
  TensorView in[8], y;
  for (int i = 0; i < 8; ++i) LOOM_RETURN_IF_ERROR(ctx.In(i, &in[i]));
  LOOM_RETURN_IF_ERROR(ctx.Out(0, &y));
  return ctx.Wrap(kernels::QLinearMatMul(in[0], {&in[1], &in[2]}, in[3], {&in[4], &in[5]},
                                         {&in[6], &in[7]}, y));
}

Status ExecBatchNorm(ExecContext& ctx) {
  TensorView in[5], y;
  for (int i = 0; i < 5; ++i) LOOM_RETURN_IF_ERROR(ctx.In(i, &in[i]));
  LOOM_RETURN_IF_ERROR(ctx.Out(0, &y));
  return ctx.Wrap(kernels::BatchNorm(in[0], in[1], in[2], in[3], in[4],
                                     ctx.node().GetFloat("epsilon", 1e-5f), y));
}

Status ExecMaxPool(ExecContext& ctx) {
  TensorView x, y, idx;
  LOOM_RETURN_IF_ERROR(ctx.In(0, &x));
  LOOM_RETURN_IF_ERROR(ctx.Out(0, &y));
  const bool with_indices = ctx.num_outputs() > 1;
  if (with_indices) LOOM_RETURN_IF_ERROR(ctx.Out(1, &idx));
  kernels::PoolParams p;
  LOOM_RETURN_IF_ERROR(PoolParamsOf(ctx, x.rank, &p));
  if (!with_indices) {
    bool done = false;
    LOOM_RETURN_IF_ERROR(ctx.Wrap(FastMaxPool2d(p, x, y, &done)));
    if (done) return Status::Ok();
  }
  return ctx.Wrap(kernels::MaxPool(p, x, y, with_indices ? &idx : nullptr));
}

Status ExecAveragePool(ExecContext& ctx) {
  TensorView x, y;
  LOOM_RETURN_IF_ERROR(ctx.In(0, &x));
  LOOM_RETURN_IF_ERROR(ctx.Out(0, &y));
  kernels::PoolParams p;
  LOOM_RETURN_IF_ERROR(PoolParamsOf(ctx, x.rank, &p));
  return ctx.Wrap(kernels::AvgPool(p, x, y));
}

Status ExecGlobalAveragePool(ExecContext& ctx) {
  TensorView x, y;
  LOOM_RETURN_IF_ERROR(ctx.In(0, &x));
  LOOM_RETURN_IF_ERROR(ctx.Out(0, &y));
  return ctx.Wrap(kernels::GlobalAvgPool(x, y));
}

struct Entry {
  const char* op;
  ExecFn fn;
};

const Entry kNnOps[] = {
    {"Conv", ExecConv},
    {"ConvInteger", ExecConvInteger},
    {"QLinearConv", ExecQLinearConv},
    {"Gemm", ExecGemm},
    {"MatMul", ExecMatMul},
    {"MatMulInteger", ExecMatMulInteger},
    {"QLinearMatMul", ExecQLinearMatMul},
    {"BatchNormalization", ExecBatchNorm},
    {"MaxPool", ExecMaxPool},
    {"AveragePool", ExecAveragePool},
    {"GlobalAveragePool", ExecGlobalAveragePool},
};

}  // namespace

ExecFn FindNnExecutor(std::string_view op) {
  for (const Entry& e : kNnOps) {
    if (op == e.op) return e.fn;
  }
  return nullptr;
}

}  // namespace loom::interp
