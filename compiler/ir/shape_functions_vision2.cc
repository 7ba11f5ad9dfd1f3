// Shape functions of the detection/vision family (issue 12): GridSample, RoiAlign,
// NonMaxSuppression, Unique, BatchNormalization's training mode. The last two have data-dependent
// lengths; the importer counts them on constant inputs (with the runtime's kernels) and records the
// length as an attribute
// (`rows`, `count`), which is all the IR needs: the kernels refuse data that selects another
// length, so a wrong attribute is an error at run time, never a silent truncation.
#include "compiler/ir/shape_functions.h"

namespace loom::ir::shape {
namespace {

Status ExpectCode(const InferContext& ctx, const char* name, int64_t max) {
  const int64_t v = ctx.node().GetInt(name, -1);
  if (v < 0 || v > max) {
    return ctx.Error(std::string(name) + " " + std::to_string(v) + " is not a code in [0, " +
                     std::to_string(max) + "]");
  }
  return Status::Ok();
}

}  // namespace

Status GridSample(InferContext& ctx) {
  LOOM_RETURN_IF_ERROR(ExpectDType(ctx, 0, {DType::kF32}));
  LOOM_RETURN_IF_ERROR(ExpectDType(ctx, 1, {DType::kF32}));
  LOOM_RETURN_IF_ERROR(ExpectCode(ctx, "mode", 2));
  LOOM_RETURN_IF_ERROR(ExpectCode(ctx, "padding_mode", 2));
  LOOM_RETURN_IF_ERROR(ExpectCode(ctx, "align_corners", 1));
  const Shape& x = ctx.input(0).shape;
  const Shape& g = ctx.input(1).shape;
  if (x.size() != 4 || g.size() != 4 || g[3] != 2 || g[0] != x[0]) {
    return ctx.Error("needs X [N, C, H, W] and grid [N, H_out, W_out, 2], got " + ShapeToString(x) +
                     " and " + ShapeToString(g));
  }
  ctx.SetOutput(0, DType::kF32, {x[0], x[1], g[1], g[2]});
  return Status::Ok();
}

Status RoiAlign(InferContext& ctx) {
  LOOM_RETURN_IF_ERROR(ExpectDType(ctx, 0, {DType::kF32}));
  LOOM_RETURN_IF_ERROR(ExpectDType(ctx, 1, {DType::kF32}));
  LOOM_RETURN_IF_ERROR(ExpectDType(ctx, 2, {DType::kI32, DType::kI64}));
  LOOM_RETURN_IF_ERROR(ExpectCode(ctx, "mode", 1));
  LOOM_RETURN_IF_ERROR(ExpectCode(ctx, "half_pixel", 1));
  const Shape& x = ctx.input(0).shape;
  const Shape& r = ctx.input(1).shape;
  const Shape& b = ctx.input(2).shape;
  if (x.size() != 4 || r.size() != 2 || r[1] != 4 || b.size() != 1 || b[0] != r[0]) {
    return ctx.Error("needs X [N, C, H, W], rois [R, 4] and batch_indices [R], got " +
                     ShapeToString(x) + ", " + ShapeToString(r) + " and " + ShapeToString(b));
  }
  const int64_t oh = ctx.node().GetInt("output_height", 0);
  const int64_t ow = ctx.node().GetInt("output_width", 0);
  if (oh < 1 || ow < 1 || ctx.node().GetInt("sampling_ratio", -1) < 0) {
    return ctx.Error("output_height and output_width must be >= 1, sampling_ratio >= 0");
  }
  ctx.SetOutput(0, DType::kF32, {r[0], x[1], oh, ow});
  return Status::Ok();
}

Status NonMaxSuppression(InferContext& ctx) {
  LOOM_RETURN_IF_ERROR(ExpectDType(ctx, 0, {DType::kF32}));
  LOOM_RETURN_IF_ERROR(ExpectDType(ctx, 1, {DType::kF32}));
  LOOM_RETURN_IF_ERROR(ExpectCode(ctx, "center_point_box", 1));
  LOOM_RETURN_IF_ERROR(ExpectCode(ctx, "has_score_threshold", 1));
  const Shape& b = ctx.input(0).shape;
  const Shape& s = ctx.input(1).shape;
  if (b.size() != 3 || b[2] != 4 || s.size() != 3 || s[0] != b[0] || s[2] != b[1]) {
    return ctx.Error("needs boxes [B, N, 4] and scores [B, C, N], got " + ShapeToString(b) +
                     " and " + ShapeToString(s));
  }
  // At most one row per (batch, class, box).
  const int64_t rows = ctx.node().GetInt("rows", -1);
  if (rows < 0 || (b[1] > 0 && s[1] > 0 && rows / b[1] / s[1] > b[0])) {
    return ctx.Error("rows " + std::to_string(rows) + " is not a selection size for " +
                     ShapeToString(b) + " boxes and " + ShapeToString(s) + " scores");
  }
  ctx.SetOutput(0, DType::kI64, {rows, 3});
  return Status::Ok();
}

Status Unique(InferContext& ctx) {
  const Value& x = ctx.input(0);
  if (x.dtype == DType::kUndefined) return ctx.Error("X has no element type");
  const int64_t rank = static_cast<int64_t>(x.shape.size());
  const int64_t axis = ctx.node().GetInt("axis", -2);
  if (axis < -1 || axis >= rank) {
    return ctx.Error("axis " + std::to_string(axis) + " is neither -1 (flatten) nor in [0, " +
                     std::to_string(rank) + ")");
  }
  LOOM_RETURN_IF_ERROR(ExpectCode(ctx, "sorted", 1));
  int64_t slices = 1;
  if (axis >= 0) {
    slices = x.shape[static_cast<size_t>(axis)];
  } else {
    LOOM_RETURN_IF_ERROR(NumElements(x.shape, &slices));
  }
  const int64_t count = ctx.node().GetInt("count", -1);
  if (count < 0 || count > slices || (slices > 0 && count == 0)) {
    return ctx.Error("count " + std::to_string(count) + " is not a number of distinct slices of " +
                     std::to_string(slices));
  }
  Shape y = x.shape;
  if (axis >= 0) {
    y[static_cast<size_t>(axis)] = count;
  } else {
    y = {count};
  }
  ctx.SetOutput(0, x.dtype, std::move(y));
  if (ctx.num_outputs() > 1) ctx.SetOutput(1, DType::kI64, {count});
  if (ctx.num_outputs() > 2) ctx.SetOutput(2, DType::kI64, {slices});
  if (ctx.num_outputs() > 3) ctx.SetOutput(3, DType::kI64, {count});
  return Status::Ok();
}

Status BatchNormalizationTraining(InferContext& ctx) {
  for (int i = 0; i < 5; ++i) LOOM_RETURN_IF_ERROR(ExpectDType(ctx, i, {DType::kF32}));
  const Shape& x = ctx.input(0).shape;
  if (x.size() < 2) return ctx.Error("X must be [N, C, ...], is " + ShapeToString(x));
  for (int i = 1; i < 5; ++i) {
    if (ctx.input(i).shape != Shape{x[1]}) {
      return ctx.Error("input " + std::to_string(i) + " must be [" + std::to_string(x[1]) +
                       "], is " + ShapeToString(ctx.input(i).shape));
    }
  }
  ctx.SetOutput(0, DType::kF32, x);
  for (int i = 1; i < ctx.num_outputs(); ++i) ctx.SetOutput(i, DType::kF32, {x[1]});
  return Status::Ok();
}

}  // namespace loom::ir::shape
