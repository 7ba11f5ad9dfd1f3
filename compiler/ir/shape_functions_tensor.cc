// Shape functions of the elementwise and data-movement ops, plus the helpers all shape functions
// share.
#include <algorithm>

#include "compiler/ir/shape_functions.h"
#include "runtime/core/checked_math.h"

namespace loom::ir {

Status ExpectDType(const InferContext& ctx, int i, std::initializer_list<DType> allowed) {
  if (!ctx.has_input(i)) return ctx.Error("input " + std::to_string(i) + " is required");
  const DType t = ctx.input(i).dtype;
  if (std::find(allowed.begin(), allowed.end(), t) != allowed.end()) return Status::Ok();
  std::string names;
  for (DType a : allowed) names += std::string(names.empty() ? "" : "/") + DTypeName(a);
  return ctx.Error("input " + std::to_string(i) + " %" + ctx.input(i).name() + " is " +
                   DTypeName(t) + ", expected " + names);
}

bool IsScalarLike(const Value& v) {
  return v.shape.size() <= 1 && NumElementsUnchecked(v.shape) == 1;
}

bool BroadcastShapes(const Shape& a, const Shape& b, Shape* out) {
  const size_t rank = std::max(a.size(), b.size());
  Shape r(rank);
  for (size_t i = 0; i < rank; ++i) {
    const int64_t da = i + a.size() >= rank ? a[i + a.size() - rank] : 1;
    const int64_t db = i + b.size() >= rank ? b[i + b.size() - rank] : 1;
    if (da != db && da != 1 && db != 1) return false;
    r[i] = da == 1 ? db : da;
  }
  *out = std::move(r);
  return true;
}

Status CheckActivationAttrs(const InferContext& ctx) {
  const Node& n = ctx.node();
  const Attribute* act = n.FindAttr("activation");
  const bool has_bounds = n.FindAttr("clip_min") || n.FindAttr("clip_max");
  if (act == nullptr) {
    if (has_bounds) return ctx.Error("clip_min/clip_max need activation = \"clip\"");
    return Status::Ok();
  }
  if (act->s() == "relu") {
    if (has_bounds) return ctx.Error("clip_min/clip_max only apply to activation = \"clip\"");
    return Status::Ok();
  }
  if (act->s() == "clip") {
    if (!n.FindAttr("clip_min") || !n.FindAttr("clip_max")) {
      return ctx.Error("activation = \"clip\" needs clip_min and clip_max");
    }
    if (!(n.GetFloat("clip_min", 0) <= n.GetFloat("clip_max", 0))) {
      return ctx.Error("clip_min must not exceed clip_max");
    }
    return Status::Ok();
  }
  return ctx.Error("unknown activation \"" + act->s() + "\" (expected relu or clip)");
}

namespace shape {

Status Relu(InferContext& ctx) {
  LOOM_RETURN_IF_ERROR(
      ExpectDType(ctx, 0, {DType::kF32, DType::kI8, DType::kU8, DType::kI32, DType::kI64}));
  ctx.SetOutput(0, ctx.input(0).dtype, ctx.input(0).shape);
  return Status::Ok();
}

Status FloatUnary(InferContext& ctx) {
  LOOM_RETURN_IF_ERROR(ExpectDType(ctx, 0, {DType::kF32}));
  ctx.SetOutput(0, DType::kF32, ctx.input(0).shape);
  return Status::Ok();
}

Status Clip(InferContext& ctx) {
  LOOM_RETURN_IF_ERROR(
      ExpectDType(ctx, 0, {DType::kF32, DType::kI8, DType::kU8, DType::kI32, DType::kI64}));
  const DType t = ctx.input(0).dtype;
  for (int i = 1; i <= 2; ++i) {
    if (!ctx.has_input(i)) continue;
    LOOM_RETURN_IF_ERROR(ExpectDType(ctx, i, {t}));
    if (!IsScalarLike(ctx.input(i))) return ctx.Error("min and max must be scalars");
  }
  ctx.SetOutput(0, t, ctx.input(0).shape);
  return Status::Ok();
}

Status Binary(InferContext& ctx) {
  LOOM_RETURN_IF_ERROR(ExpectDType(ctx, 0,
                                   {DType::kF32, DType::kF64, DType::kF16, DType::kI8, DType::kU8,
                                    DType::kI16, DType::kI32, DType::kI64}));
  LOOM_RETURN_IF_ERROR(ExpectDType(ctx, 1, {ctx.input(0).dtype}));
  Shape out;
  if (!BroadcastShapes(ctx.input(0).shape, ctx.input(1).shape, &out)) {
    return ctx.Error("shapes " + ShapeToString(ctx.input(0).shape) + " and " +
                     ShapeToString(ctx.input(1).shape) + " do not broadcast");
  }
  LOOM_RETURN_IF_ERROR(CheckActivationAttrs(ctx));
  if (ctx.node().FindAttr("activation") && ctx.input(0).dtype != DType::kF32) {
    return ctx.Error("fused activations need f32");
  }
  ctx.SetOutput(0, ctx.input(0).dtype, std::move(out));
  return Status::Ok();
}

Status Reshape(InferContext& ctx) {
  const Shape target = ctx.node().GetInts("shape");
  for (int64_t d : target) {
    if (d < 0) return ctx.Error("shape attribute must be fully resolved (no -1)");
  }
  int64_t want = 0;
  LOOM_RETURN_IF_ERROR(NumElements(target, &want));
  if (want != NumElementsUnchecked(ctx.input(0).shape)) {
    return ctx.Error("cannot reshape " + ShapeToString(ctx.input(0).shape) + " to " +
                     ShapeToString(target));
  }
  ctx.SetOutput(0, ctx.input(0).dtype, target);
  return Status::Ok();
}

Status Transpose(InferContext& ctx) {
  const Shape& in = ctx.input(0).shape;
  const std::vector<int64_t> perm = ctx.node().GetInts("perm");
  if (perm.size() != in.size()) return ctx.Error("perm must have one entry per input dim");
  std::vector<bool> seen(in.size(), false);
  Shape out(in.size());
  for (size_t i = 0; i < perm.size(); ++i) {
    if (perm[i] < 0 || perm[i] >= static_cast<int64_t>(in.size()) || seen[perm[i]]) {
      return ctx.Error("perm is not a permutation of 0.." + std::to_string(in.size() - 1));
    }
    seen[perm[i]] = true;
    out[i] = in[perm[i]];
  }
  ctx.SetOutput(0, ctx.input(0).dtype, std::move(out));
  return Status::Ok();
}

Status Concat(InferContext& ctx) {
  const Value& first = ctx.input(0);
  const int64_t axis = ctx.node().GetInt("axis", -1);
  if (axis < 0 || axis >= static_cast<int64_t>(first.shape.size())) {
    return ctx.Error("axis " + std::to_string(axis) + " out of range for rank " +
                     std::to_string(first.shape.size()));
  }
  Shape out = first.shape;
  for (int i = 1; i < ctx.num_inputs(); ++i) {
    LOOM_RETURN_IF_ERROR(ExpectDType(ctx, i, {first.dtype}));
    const Shape& s = ctx.input(i).shape;
    if (s.size() != out.size()) return ctx.Error("inputs must have the same rank");
    for (size_t d = 0; d < s.size(); ++d) {
      if (static_cast<int64_t>(d) != axis && s[d] != out[d]) {
        return ctx.Error("input " + std::to_string(i) + " " + ShapeToString(s) + " differs from " +
                         ShapeToString(first.shape) + " outside the axis");
      }
    }
    if (!CheckedAdd(out[axis], s[axis], &out[axis])) {
      return ctx.Error("the inputs' sizes along axis " + std::to_string(axis) +
                       " add up past 64 bits");
    }
  }
  ctx.SetOutput(0, first.dtype, std::move(out));
  return Status::Ok();
}

Status Pad(InferContext& ctx) {
  const Shape& in = ctx.input(0).shape;
  const std::vector<int64_t> pads = ctx.node().GetInts("pads");
  const std::string mode = ctx.node().GetString("mode");
  if (mode != "constant" && mode != "reflect" && mode != "edge") {
    return ctx.Error("unknown pad mode \"" + mode + "\"");
  }
  const size_t r = in.size();
  if (pads.size() != 2 * r) return ctx.Error("pads must have 2 * rank entries");
  Shape out(r);
  for (size_t i = 0; i < r; ++i) {
    if (!CheckedAdd(in[i], pads[i], &out[i]) || !CheckedAdd(out[i], pads[r + i], &out[i])) {
      return ctx.Error("dimension " + std::to_string(i) + " (" + std::to_string(in[i]) +
                       ") plus pads " + std::to_string(pads[i]) + " and " +
                       std::to_string(pads[r + i]) + " overflows 64 bits");
    }
    if (out[i] < 0) return ctx.Error("pads crop dimension " + std::to_string(i) + " below zero");
    if (mode == "reflect" && (pads[i] > in[i] - 1 || pads[r + i] > in[i] - 1)) {
      return ctx.Error("reflect pads must be smaller than the padded dimension");
    }
    if (mode == "edge" && in[i] == 0 && out[i] > 0)
      return ctx.Error("cannot edge-pad an empty dim");
  }
  ctx.SetOutput(0, ctx.input(0).dtype, std::move(out));
  return Status::Ok();
}

Status Softmax(InferContext& ctx) {
  LOOM_RETURN_IF_ERROR(ExpectDType(ctx, 0, {DType::kF32}));
  const int64_t axis = ctx.node().GetInt("axis", -1);
  if (axis < 0 || axis >= static_cast<int64_t>(ctx.input(0).shape.size())) {
    return ctx.Error("axis " + std::to_string(axis) + " out of range");
  }
  ctx.SetOutput(0, DType::kF32, ctx.input(0).shape);
  return Status::Ok();
}

Status Identity(InferContext& ctx) {
  ctx.SetOutput(0, ctx.input(0).dtype, ctx.input(0).shape);
  return Status::Ok();
}

Status Dropout(InferContext& ctx) {
  ctx.SetOutput(0, ctx.input(0).dtype, ctx.input(0).shape);
  if (ctx.num_outputs() > 1) ctx.SetOutput(1, DType::kBool, ctx.input(0).shape);
  return Status::Ok();
}

}  // namespace shape
}  // namespace loom::ir
