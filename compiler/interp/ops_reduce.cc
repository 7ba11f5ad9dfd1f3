// Executors of the reduction family (issue 12) on the runtime's reference kernels
// (runtime/kernels/kernels_reduce.h), so the interpreter and a package's CPU segments compute
// these ops with one implementation. Attributes are trusted to be canonical (the verifier ran).
#include "compiler/interp/op_table.h"
#include "runtime/kernels/kernels_reduce.h"

namespace loom::interp {
namespace {

using kernels::TensorView;

Status ExecReduce(ExecContext& ctx) {
  TensorView x, y;
  LOOM_RETURN_IF_ERROR(ctx.In(0, &x));
  LOOM_RETURN_IF_ERROR(ctx.Out(0, &y));
  kernels::ReduceOp op;
  if (!kernels::ReduceOpFromName(ctx.node().op.c_str(), &op)) {
    return ctx.Wrap(Internal("no reduction named " + ctx.node().op));
  }
  const std::vector<int64_t> axes = ctx.node().GetInts("axes");
  uint32_t mask = 0;
  LOOM_RETURN_IF_ERROR(
      ctx.Wrap(kernels::ReduceAxesMask(axes.data(), static_cast<int>(axes.size()), x.rank, &mask)));
  return ctx.Wrap(kernels::Reduce(op, x, mask, y));
}

Status ExecArgReduce(ExecContext& ctx) {
  TensorView x, y;
  LOOM_RETURN_IF_ERROR(ctx.In(0, &x));
  LOOM_RETURN_IF_ERROR(ctx.Out(0, &y));
  const ir::Node& n = ctx.node();
  return ctx.Wrap(kernels::ArgReduce(n.op == "ArgMax", x, static_cast<int>(n.GetInt("axis", 0)),
                                     n.GetInt("select_last_index", 0) != 0, y));
}

Status ExecLogSoftmax(ExecContext& ctx) {
  TensorView x, y;
  LOOM_RETURN_IF_ERROR(ctx.In(0, &x));
  LOOM_RETURN_IF_ERROR(ctx.Out(0, &y));
  return ctx.Wrap(kernels::LogSoftmax(x, static_cast<int>(ctx.node().GetInt("axis", -1)), y));
}

Status ExecHardmax(ExecContext& ctx) {
  TensorView x, y;
  LOOM_RETURN_IF_ERROR(ctx.In(0, &x));
  LOOM_RETURN_IF_ERROR(ctx.Out(0, &y));
  return ctx.Wrap(kernels::Hardmax(x, static_cast<int>(ctx.node().GetInt("axis", -1)), y));
}

Status ExecCumSum(ExecContext& ctx) {
  TensorView x, y;
  LOOM_RETURN_IF_ERROR(ctx.In(0, &x));
  LOOM_RETURN_IF_ERROR(ctx.Out(0, &y));
  const ir::Node& n = ctx.node();
  return ctx.Wrap(kernels::CumSum(x, static_cast<int>(n.GetInt("axis", 0)),
                                  n.GetInt("exclusive", 0) != 0, n.GetInt("reverse", 0) != 0, y));
}

// TopK's indices output may be unused (absent); the kernel writes both, so a throwaway tensor
// of the right shape stands in.
Status ExecTopK(ExecContext& ctx) {
  TensorView x, values, indices;
  LOOM_RETURN_IF_ERROR(ctx.In(0, &x));
  LOOM_RETURN_IF_ERROR(ctx.Out(0, &values));
  ir::Tensor scratch;
  if (ctx.num_outputs() > 1) {
    LOOM_RETURN_IF_ERROR(ctx.Out(1, &indices));
  } else {
    LOOM_RETURN_IF_ERROR(
        ctx.Wrap(ir::Tensor::Create(DType::kI64, ctx.output_tensor(0).shape(), &scratch)));
    LOOM_RETURN_IF_ERROR(ToView(scratch, &indices));
  }
  const ir::Node& n = ctx.node();
  return ctx.Wrap(kernels::TopK(x, static_cast<int>(n.GetInt("axis", -1)),
                                n.GetInt("largest", 1) != 0, values, indices));
}

Status ExecMeanVarianceNorm(ExecContext& ctx) {
  TensorView x, y;
  LOOM_RETURN_IF_ERROR(ctx.In(0, &x));
  LOOM_RETURN_IF_ERROR(ctx.Out(0, &y));
  const std::vector<int64_t> axes = ctx.node().GetInts("axes");
  uint32_t mask = 0;
  LOOM_RETURN_IF_ERROR(
      ctx.Wrap(kernels::ReduceAxesMask(axes.data(), static_cast<int>(axes.size()), x.rank, &mask)));
  return ctx.Wrap(kernels::MeanVarianceNorm(x, mask, y));
}

Status ExecEinsum(ExecContext& ctx) {
  std::vector<TensorView> views(static_cast<size_t>(ctx.num_inputs()));
  std::vector<const TensorView*> ins;
  for (int i = 0; i < ctx.num_inputs(); ++i) {
    LOOM_RETURN_IF_ERROR(ctx.In(i, &views[static_cast<size_t>(i)]));
    ins.push_back(&views[static_cast<size_t>(i)]);
  }
  TensorView y;
  LOOM_RETURN_IF_ERROR(ctx.Out(0, &y));
  const std::vector<int64_t> labels = ctx.node().GetInts("labels");
  const std::vector<int64_t> out = ctx.node().GetInts("out_labels");
  kernels::EinsumSpec spec;
  LOOM_RETURN_IF_ERROR(
      ctx.Wrap(kernels::EinsumSpecFrom(labels.data(), labels.size(), out.data(), out.size(),
                                       ins.data(), static_cast<int>(ins.size()), &spec)));
  return ctx.Wrap(kernels::Einsum(spec, ins.data(), static_cast<int>(ins.size()), y));
}

kernels::LossParams LossParamsOf(const ir::Node& n) {
  kernels::LossParams p;
  const std::string r = n.GetString("reduction", "mean");
  p.reduction = r == "none"  ? kernels::LossReduction::kNone
                : r == "sum" ? kernels::LossReduction::kSum
                             : kernels::LossReduction::kMean;
  p.has_ignore_index = n.FindAttr("ignore_index") != nullptr;
  p.ignore_index = n.GetInt("ignore_index", 0);
  return p;
}

Status ExecNllLoss(ExecContext& ctx) {
  TensorView x, t, w, y;
  bool has_w = false;
  LOOM_RETURN_IF_ERROR(ctx.In(0, &x));
  LOOM_RETURN_IF_ERROR(ctx.In(1, &t));
  LOOM_RETURN_IF_ERROR(ctx.InOpt(2, &w, &has_w));
  LOOM_RETURN_IF_ERROR(ctx.Out(0, &y));
  return ctx.Wrap(kernels::NllLoss(LossParamsOf(ctx.node()), x, t, has_w ? &w : nullptr, y));
}

Status ExecSoftmaxCrossEntropy(ExecContext& ctx) {
  TensorView s, t, w, y, lp;
  bool has_w = false;
  LOOM_RETURN_IF_ERROR(ctx.In(0, &s));
  LOOM_RETURN_IF_ERROR(ctx.In(1, &t));
  LOOM_RETURN_IF_ERROR(ctx.InOpt(2, &w, &has_w));
  LOOM_RETURN_IF_ERROR(ctx.Out(0, &y));
  const bool has_lp = ctx.num_outputs() > 1;
  if (has_lp) LOOM_RETURN_IF_ERROR(ctx.Out(1, &lp));
  return ctx.Wrap(kernels::SoftmaxCrossEntropy(LossParamsOf(ctx.node()), s, t, has_w ? &w : nullptr,
                                               y, has_lp ? &lp : nullptr));
}

struct Entry {
  const char* op;
  ExecFn fn;
};

const Entry kReduceOps[] = {
    {"ReduceSum", ExecReduce},
    {"ReduceMean", ExecReduce},
    {"ReduceMax", ExecReduce},
    {"ReduceMin", ExecReduce},
    {"ReduceProd", ExecReduce},
    {"ReduceL1", ExecReduce},
    {"ReduceL2", ExecReduce},
    {"ReduceLogSum", ExecReduce},
    {"ReduceLogSumExp", ExecReduce},
    {"ReduceSumSquare", ExecReduce},
    {"ArgMax", ExecArgReduce},
    {"ArgMin", ExecArgReduce},
    {"LogSoftmax", ExecLogSoftmax},
    {"Hardmax", ExecHardmax},
    {"CumSum", ExecCumSum},
    {"TopK", ExecTopK},
    {"MeanVarianceNormalization", ExecMeanVarianceNorm},
    {"Einsum", ExecEinsum},
    {"NegativeLogLikelihoodLoss", ExecNllLoss},
    {"SoftmaxCrossEntropyLoss", ExecSoftmaxCrossEntropy},
};

}  // namespace

ExecFn FindReduceExecutor(std::string_view op) {
  for (const Entry& e : kReduceOps) {
    if (op == e.op) return e.fn;
  }
  return nullptr;
}

}  // namespace loom::interp
