// Shape functions of the reduction family (issue 12): Reduce*, ArgMax/ArgMin, LogSoftmax and
// Hardmax (shape::Softmax), CumSum, TopK, MeanVarianceNormalization, Einsum and the two losses.
// Attributes are the canonical ones the importer writes (op_registry.cc): axes sorted and
// non-negative, k and the CumSum axis constants turned into attributes. Each function checks them
// too, so a hand-written IR file gets the errors an ONNX import would.
#include <algorithm>

#include "compiler/ir/shape_functions.h"

namespace loom::ir::shape {
namespace {

bool IsLogReduce(const std::string& op) {
  return op == "ReduceL2" || op == "ReduceLogSum" || op == "ReduceLogSumExp";
}

Status CheckAxis(const InferContext& ctx, int64_t axis, size_t rank) {
  if (axis < 0 || axis >= static_cast<int64_t>(rank)) {
    return ctx.Error("axis " + std::to_string(axis) + " must lie in [0, " + std::to_string(rank) +
                     ")");
  }
  return Status::Ok();
}

// Loss reductions: "none" keeps the target's shape, "sum" / "mean" give a scalar.
Status LossOutput(InferContext& ctx, const char* what) {
  const Shape& x = ctx.input(0).shape;
  const Shape& t = ctx.input(1).shape;
  LOOM_RETURN_IF_ERROR(ExpectDType(ctx, 0, {DType::kF32}));
  LOOM_RETURN_IF_ERROR(ExpectDType(ctx, 1, {DType::kI32, DType::kI64}));
  if (x.size() < 2 || t.size() + 1 != x.size() || t[0] != x[0] ||
      !std::equal(t.begin() + 1, t.end(), x.begin() + 2)) {
    return ctx.Error(std::string(what) + " " + ShapeToString(x) + " must be [N, C, D...] and the " +
                     "target " + ShapeToString(t) + " [N, D...]");
  }
  if (ctx.has_input(2)) {
    LOOM_RETURN_IF_ERROR(ExpectDType(ctx, 2, {DType::kF32}));
    if (ctx.input(2).shape != Shape{x[1]}) {
      return ctx.Error("weight must be [C] = [" + std::to_string(x[1]) + "]");
    }
  }
  const std::string reduction = ctx.node().GetString("reduction", "mean");
  if (reduction != "none" && reduction != "sum" && reduction != "mean") {
    return ctx.Error("reduction must be none, sum or mean, got " + reduction);
  }
  ctx.SetOutput(0, DType::kF32, reduction == "none" ? t : Shape{});
  return Status::Ok();
}

}  // namespace

Status Reduce(InferContext& ctx) {
  const std::string& op = ctx.node().op;
  if (IsLogReduce(op)) {
    LOOM_RETURN_IF_ERROR(ExpectDType(ctx, 0, {DType::kF32, DType::kF64}));
  } else {
    LOOM_RETURN_IF_ERROR(ExpectDType(ctx, 0, {DType::kF32, DType::kF64, DType::kI32, DType::kI64}));
  }
  const Shape& x = ctx.input(0).shape;
  const std::vector<int64_t> axes = ctx.node().GetInts("axes");
  if (axes.empty()) return ctx.Error("axes must name at least one dim");
  for (size_t i = 0; i < axes.size(); ++i) {
    LOOM_RETURN_IF_ERROR(CheckAxis(ctx, axes[i], x.size()));
    if (i > 0 && axes[i] <= axes[i - 1]) return ctx.Error("axes must be sorted and distinct");
  }
  const bool keepdims = ctx.node().GetInt("keepdims", 1) != 0;
  Shape out;
  for (size_t d = 0; d < x.size(); ++d) {
    const bool reduced = std::count(axes.begin(), axes.end(), static_cast<int64_t>(d)) > 0;
    if (!reduced) {
      out.push_back(x[d]);
    } else if (keepdims) {
      out.push_back(1);
    }
  }
  ctx.SetOutput(0, ctx.input(0).dtype, std::move(out));
  return Status::Ok();
}

Status ArgReduce(InferContext& ctx) {
  LOOM_RETURN_IF_ERROR(ExpectDType(ctx, 0, {DType::kF32, DType::kF64, DType::kI32, DType::kI64}));
  Shape out = ctx.input(0).shape;
  const int64_t axis = ctx.node().GetInt("axis", 0);
  LOOM_RETURN_IF_ERROR(CheckAxis(ctx, axis, out.size()));
  if (out[static_cast<size_t>(axis)] == 0) return ctx.Error("the reduced axis is empty");
  if (ctx.node().GetInt("keepdims", 1) != 0) {
    out[static_cast<size_t>(axis)] = 1;
  } else {
    out.erase(out.begin() + axis);
  }
  ctx.SetOutput(0, DType::kI64, std::move(out));
  return Status::Ok();
}

Status CumSum(InferContext& ctx) {
  LOOM_RETURN_IF_ERROR(ExpectDType(ctx, 0, {DType::kF32, DType::kF64, DType::kI32, DType::kI64}));
  LOOM_RETURN_IF_ERROR(CheckAxis(ctx, ctx.node().GetInt("axis", 0), ctx.input(0).shape.size()));
  ctx.SetOutput(0, ctx.input(0).dtype, ctx.input(0).shape);
  return Status::Ok();
}

Status TopK(InferContext& ctx) {
  LOOM_RETURN_IF_ERROR(ExpectDType(ctx, 0, {DType::kF32}));
  Shape out = ctx.input(0).shape;
  const int64_t axis = ctx.node().GetInt("axis", -1);
  LOOM_RETURN_IF_ERROR(CheckAxis(ctx, axis, out.size()));
  const int64_t k = ctx.node().GetInt("k", -1);
  const int64_t len = out[static_cast<size_t>(axis)];
  if (k < 0 || k > len) {
    return ctx.Error("k " + std::to_string(k) + " must lie in [0, " + std::to_string(len) +
                     "], the length of axis " + std::to_string(axis));
  }
  out[static_cast<size_t>(axis)] = k;
  ctx.SetOutput(0, DType::kF32, out);
  if (ctx.num_outputs() > 1) ctx.SetOutput(1, DType::kI64, std::move(out));
  return Status::Ok();
}

Status MeanVarianceNorm(InferContext& ctx) {
  LOOM_RETURN_IF_ERROR(ExpectDType(ctx, 0, {DType::kF32}));
  const Shape& x = ctx.input(0).shape;
  const std::vector<int64_t> axes = ctx.node().GetInts("axes");
  if (axes.empty()) return ctx.Error("axes must name at least one dim");
  for (size_t i = 0; i < axes.size(); ++i) {
    LOOM_RETURN_IF_ERROR(CheckAxis(ctx, axes[i], x.size()));
    if (i > 0 && axes[i] <= axes[i - 1]) return ctx.Error("axes must be sorted and distinct");
  }
  ctx.SetOutput(0, DType::kF32, x);
  return Status::Ok();
}

// Labels: operand k's dims in turn, then y's (kMaxEinsumLabels in kernels_reduce.h). A label's
// extent is the largest of its dims; every other dim carrying it must equal that or be 1.
Status Einsum(InferContext& ctx) {
  constexpr int64_t kMaxLabels = 16;
  if (ctx.num_inputs() > 8) return ctx.Error("takes at most 8 operands");
  const DType t = ctx.input(0).dtype;
  for (int k = 0; k < ctx.num_inputs(); ++k) {
    LOOM_RETURN_IF_ERROR(ExpectDType(ctx, k, {DType::kF32, DType::kF64}));
    if (ctx.input(k).dtype != t) return ctx.Error("operands must share one element type");
  }
  const std::vector<int64_t> labels = ctx.node().GetInts("labels");
  const std::vector<int64_t> out_labels = ctx.node().GetInts("out_labels");
  std::vector<int64_t> extent(kMaxLabels, -1);
  size_t at = 0;
  for (int k = 0; k < ctx.num_inputs(); ++k) {
    for (int64_t dim : ctx.input(k).shape) {
      if (at >= labels.size()) return ctx.Error("labels has fewer entries than operand dims");
      const int64_t l = labels[at++];
      if (l < 0 || l >= kMaxLabels) {
        return ctx.Error("label " + std::to_string(l) + " is outside [0, 16)");
      }
      int64_t& e = extent[static_cast<size_t>(l)];
      if (e < 0 || e == 1) {
        e = dim;
      } else if (dim != 1 && dim != e) {
        return ctx.Error("label " + std::to_string(l) + " has extents " + std::to_string(e) +
                         " and " + std::to_string(dim));
      }
    }
  }
  if (at != labels.size()) return ctx.Error("labels has more entries than operand dims");
  Shape out;
  for (size_t d = 0; d < out_labels.size(); ++d) {
    const int64_t l = out_labels[d];
    if (l < 0 || l >= kMaxLabels || extent[static_cast<size_t>(l)] < 0) {
      return ctx.Error("output label " + std::to_string(l) + " names no operand dim");
    }
    if (std::count(out_labels.begin(), out_labels.end(), l) > 1) {
      return ctx.Error("output label " + std::to_string(l) + " repeats");
    }
    out.push_back(extent[static_cast<size_t>(l)]);
  }
  ctx.SetOutput(0, t, std::move(out));
  return Status::Ok();
}

Status NllLoss(InferContext& ctx) { return LossOutput(ctx, "input"); }

Status SoftmaxCrossEntropyLoss(InferContext& ctx) {
  LOOM_RETURN_IF_ERROR(LossOutput(ctx, "scores"));
  if (ctx.num_outputs() > 1) ctx.SetOutput(1, DType::kF32, ctx.input(0).shape);
  return Status::Ok();
}

}  // namespace loom::ir::shape
