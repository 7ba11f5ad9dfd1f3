// Mappers of the reduction family (issue 12): Reduce*, ArgMax/ArgMin, CumSum, TopK,
// MeanVarianceNormalization, NegativeLogLikelihoodLoss and SoftmaxCrossEntropyLoss (LogSoftmax
// and Hardmax share Softmax's mapper, onnx_ops_tensor.cc; Einsum is onnx_ops_einsum.cc). The opset
// differences go here: axes as an attribute (Reduce* < 18, ReduceSum < 13) or as an input,
// noop_with_empty_axes, TopK's k as an attribute (< 10) or an input, CumSum's axis input. Every
// such input must be a constant by now; the IR carries them as attributes (axes sorted,
// non-negative), so the kernels see fixed parameters.
#include <algorithm>

#include "compiler/frontend/onnx_internal.h"

namespace loom::frontend {
namespace {

using ir::Attribute;

ir::Shape ShapeOf(ImportContext& ctx, ir::ValueId v) { return ctx.graph().value(v).shape; }

Status EmitLoss(ImportContext& ctx, const onnx::NodeProto& n, const char* op,
                std::vector<int> outputs) {
  ir::ValueId x, target;
  LOOM_RETURN_IF_ERROR(ctx.Input(n, 0, &x));
  LOOM_RETURN_IF_ERROR(ctx.Input(n, 1, &target));
  const DType xt = ctx.graph().value(x).dtype;
  if (xt != DType::kF32) {
    return ctx.Unsupported(n, std::string("input type ") + DTypeName(xt) +
                                  " is not supported (the loss kernels are float32)");
  }
  const std::string reduction = AttrString(n, "reduction", "mean");
  if (reduction != "none" && reduction != "sum" && reduction != "mean") {
    return ctx.Invalid(n, "reduction must be none, sum or mean, got '" + reduction + "'");
  }
  ir::AttributeMap attrs;
  attrs["reduction"] = Attribute::String(reduction);
  if (FindAttr(n, "ignore_index") != nullptr) {
    attrs["ignore_index"] = Attribute::Int(AttrInt(n, "ignore_index", 0));
  }
  std::vector<ir::ValueId> ins = {x, target};
  if (ctx.HasInput(n, 2)) ins.push_back(ctx.OptionalInput(n, 2));
  return ctx.Emit(n, op, ins, std::move(attrs), outputs);
}

}  // namespace

// Reduce{Sum,Mean,Max,Min,Prod,L1,L2,LogSum,LogSumExp,SumSquare}: axes from the attribute or the
// constant input 1, sorted; an empty list reduces every dim, or is the identity under
// noop_with_empty_axes.
Status MapReduce(ImportContext& ctx, const onnx::NodeProto& n, int since) {
  ir::ValueId x;
  LOOM_RETURN_IF_ERROR(ctx.Input(n, 0, &x));
  const ir::Shape xs = ShapeOf(ctx, x);
  const int64_t rank = static_cast<int64_t>(xs.size());
  const bool axes_input = n.op_type() == "ReduceSum" ? since >= 13 : since >= 18;
  std::vector<int64_t> axes;
  if (axes_input) {
    bool present = false;
    LOOM_RETURN_IF_ERROR(ctx.ConstantInts(n, 1, "axes", &axes, &present));
  } else {
    axes = AttrInts(n, "axes");
  }
  if (axes.empty()) {
    if (AttrInt(n, "noop_with_empty_axes", 0) != 0) return ctx.Emit(n, "Identity", {x}, {});
    for (int64_t d = 0; d < rank; ++d) axes.push_back(d);
  }
  if (rank == 0) {
    return ctx.Unsupported(n, "reducing a 0-D tensor is not supported; give it shape [1]");
  }
  for (int64_t& a : axes) LOOM_RETURN_IF_ERROR(ctx.NormalizeAxis(n, "axis", rank, &a));
  std::sort(axes.begin(), axes.end());
  if (std::adjacent_find(axes.begin(), axes.end()) != axes.end()) {
    return ctx.Invalid(n, "axes name a dim twice");
  }
  ir::AttributeMap attrs;
  attrs["axes"] = Attribute::Ints(axes);
  attrs["keepdims"] = Attribute::Int(AttrInt(n, "keepdims", 1) != 0 ? 1 : 0);
  return ctx.Emit(n, n.op_type(), {x}, std::move(attrs));
}

Status MapArgReduce(ImportContext& ctx, const onnx::NodeProto& n, int) {
  ir::ValueId x;
  LOOM_RETURN_IF_ERROR(ctx.Input(n, 0, &x));
  int64_t axis = AttrInt(n, "axis", 0);
  LOOM_RETURN_IF_ERROR(
      ctx.NormalizeAxis(n, "axis", static_cast<int64_t>(ShapeOf(ctx, x).size()), &axis));
  ir::AttributeMap attrs;
  attrs["axis"] = Attribute::Int(axis);
  attrs["keepdims"] = Attribute::Int(AttrInt(n, "keepdims", 1) != 0 ? 1 : 0);
  attrs["select_last_index"] = Attribute::Int(AttrInt(n, "select_last_index", 0) != 0 ? 1 : 0);
  return ctx.Emit(n, n.op_type(), {x}, std::move(attrs));
}

Status MapCumSum(ImportContext& ctx, const onnx::NodeProto& n, int) {
  ir::ValueId x;
  LOOM_RETURN_IF_ERROR(ctx.Input(n, 0, &x));
  std::vector<int64_t> axis;
  bool present = false;
  LOOM_RETURN_IF_ERROR(ctx.ConstantInts(n, 1, "axis", &axis, &present));
  if (axis.size() != 1) return ctx.Invalid(n, "axis (input 1) must hold one value");
  LOOM_RETURN_IF_ERROR(
      ctx.NormalizeAxis(n, "axis", static_cast<int64_t>(ShapeOf(ctx, x).size()), &axis[0]));
  ir::AttributeMap attrs;
  attrs["axis"] = Attribute::Int(axis[0]);
  attrs["exclusive"] = Attribute::Int(AttrInt(n, "exclusive", 0) != 0 ? 1 : 0);
  attrs["reverse"] = Attribute::Int(AttrInt(n, "reverse", 0) != 0 ? 1 : 0);
  return ctx.Emit(n, "CumSum", {x}, std::move(attrs));
}

// TopK-1 has k as an attribute, TopK-10 as input 1, TopK-11 adds largest and sorted. With
// sorted = 0 ONNX leaves the order open; Loom returns it sorted all the same.
Status MapTopK(ImportContext& ctx, const onnx::NodeProto& n, int since) {
  ir::ValueId x;
  LOOM_RETURN_IF_ERROR(ctx.Input(n, 0, &x));
  const DType xt = ctx.graph().value(x).dtype;
  if (xt != DType::kF32) {
    return ctx.Unsupported(n, std::string("input type ") + DTypeName(xt) +
                                  " is not supported (the TopK kernel is float32)");
  }
  int64_t k = AttrInt(n, "k", -1);
  if (since >= 10) {
    std::vector<int64_t> ks;
    bool present = false;
    LOOM_RETURN_IF_ERROR(ctx.ConstantInts(n, 1, "k", &ks, &present));
    if (ks.size() != 1) return ctx.Invalid(n, "k (input 1) must hold one value");
    k = ks[0];
  }
  const ir::Shape xs = ShapeOf(ctx, x);
  int64_t axis = AttrInt(n, "axis", -1);
  LOOM_RETURN_IF_ERROR(ctx.NormalizeAxis(n, "axis", static_cast<int64_t>(xs.size()), &axis));
  if (k < 0 || k > xs[static_cast<size_t>(axis)]) {
    return ctx.Invalid(n, "k " + std::to_string(k) + " must lie in [0, " +
                              std::to_string(xs[static_cast<size_t>(axis)]) + "]");
  }
  ir::AttributeMap attrs;
  attrs["axis"] = Attribute::Int(axis);
  attrs["k"] = Attribute::Int(k);
  attrs["largest"] = Attribute::Int(AttrInt(n, "largest", 1) != 0 ? 1 : 0);
  attrs["sorted"] = Attribute::Int(AttrInt(n, "sorted", 1) != 0 ? 1 : 0);
  return ctx.Emit(n, "TopK", {x}, std::move(attrs), {0, 1});
}

// MeanVarianceNormalization-9/13: axes default [0, 2, 3] (per channel of NCHW).
Status MapMeanVarianceNorm(ImportContext& ctx, const onnx::NodeProto& n, int) {
  ir::ValueId x;
  LOOM_RETURN_IF_ERROR(ctx.Input(n, 0, &x));
  const int64_t rank = static_cast<int64_t>(ShapeOf(ctx, x).size());
  std::vector<int64_t> axes =
      FindAttr(n, "axes") != nullptr ? AttrInts(n, "axes") : std::vector<int64_t>{0, 2, 3};
  if (axes.empty()) return ctx.Invalid(n, "axes must name at least one dim");
  for (int64_t& a : axes) LOOM_RETURN_IF_ERROR(ctx.NormalizeAxis(n, "axis", rank, &a));
  std::sort(axes.begin(), axes.end());
  if (std::adjacent_find(axes.begin(), axes.end()) != axes.end()) {
    return ctx.Invalid(n, "axes name a dim twice");
  }
  ir::AttributeMap attrs;
  attrs["axes"] = Attribute::Ints(axes);
  return ctx.Emit(n, "MeanVarianceNormalization", {x}, std::move(attrs));
}

Status MapNllLoss(ImportContext& ctx, const onnx::NodeProto& n, int) {
  return EmitLoss(ctx, n, "NegativeLogLikelihoodLoss", {0});
}

Status MapSoftmaxCrossEntropyLoss(ImportContext& ctx, const onnx::NodeProto& n, int) {
  return EmitLoss(ctx, n, "SoftmaxCrossEntropyLoss", {0, 1});
}

}  // namespace loom::frontend
