// Mappers of the detection/vision family (issue 12, second part): GridSample, RoiAlign,
// NonMaxSuppression and Unique, with their own mapper table (appended to OpMappers()). String
// modes become the kernels' integer codes (runtime/kernels/kernels_vision2.h) so the ops can sit
// in a package's CPU segment. NonMaxSuppression and Unique have outputs whose length depends on
// the input values: Loom compiles static shapes, so their data inputs must be constants (the
// import's shape folding refuses them on run-time data, naming the node); the mapper computes the
// length here, on those constants, with the runtime's kernels (one implementation), and records it
// as an attribute; the constant-folding pass then evaluates the node.
#include <algorithm>

#include "compiler/frontend/onnx_internal.h"
#include "runtime/kernels/kernels_vision2.h"

namespace loom::frontend {
namespace {

using ir::Attribute;

Status ViewOf(const ir::Tensor& t, kernels::TensorView* v) {
  return kernels::MakeView(t.dtype(), t.bytes(), t.shape().data(),
                           static_cast<int>(t.shape().size()), v);
}

// A constant scalar (0-D or one-element 1-D) input as a double; *present is false when omitted
// or empty.
Status ConstantScalar(ImportContext& ctx, const onnx::NodeProto& n, int i, const char* what,
                      double* out, bool* present) {
  *present = false;
  if (!ctx.HasInput(n, i)) return Status::Ok();
  const ir::Tensor* t = ctx.ConstantInput(n, i);
  if (t == nullptr) {
    return ctx.Unsupported(n, std::string(what) + " (input " + std::to_string(i) +
                                  ") must be a constant: it decides the output's length");
  }
  if (t->num_elements() == 0) return Status::Ok();
  if (t->num_elements() != 1) {
    return ctx.Invalid(
        n, std::string(what) + " must hold one value, has " + std::to_string(t->num_elements()));
  }
  *out = t->ElementAsDouble(0);
  *present = true;
  return Status::Ok();
}

Status MapGridSample(ImportContext& ctx, const onnx::NodeProto& n, int) {
  ir::ValueId x, grid;
  LOOM_RETURN_IF_ERROR(ctx.Input(n, 0, &x));
  LOOM_RETURN_IF_ERROR(ctx.Input(n, 1, &grid));
  // Opset 16 spells the modes bilinear/bicubic; opset 20 linear/cubic (and goes N-D).
  const std::string mode = AttrString(n, "mode", "bilinear");
  const std::string padding = AttrString(n, "padding_mode", "zeros");
  int mode_code = -1, padding_code = -1;
  if (mode == "nearest") mode_code = 0;
  if (mode == "bilinear" || mode == "linear") mode_code = 1;
  if (mode == "bicubic" || mode == "cubic") mode_code = 2;
  if (padding == "zeros") padding_code = 0;
  if (padding == "border") padding_code = 1;
  if (padding == "reflection") padding_code = 2;
  if (mode_code < 0) return ctx.Invalid(n, "mode=" + mode + " is not nearest, bilinear or bicubic");
  if (padding_code < 0) {
    return ctx.Invalid(n, "padding_mode=" + padding + " is not zeros, border or reflection");
  }
  const int64_t align = AttrInt(n, "align_corners", 0);
  if (align != 0 && align != 1) return ctx.Invalid(n, "align_corners must be 0 or 1");
  ir::AttributeMap attrs;
  attrs["mode"] = Attribute::Int(mode_code);
  attrs["padding_mode"] = Attribute::Int(padding_code);
  attrs["align_corners"] = Attribute::Int(align);
  return ctx.Emit(n, "GridSample", {x, grid}, std::move(attrs));
}

Status MapRoiAlign(ImportContext& ctx, const onnx::NodeProto& n, int) {
  std::vector<ir::ValueId> ins(3);
  for (int i = 0; i < 3; ++i) LOOM_RETURN_IF_ERROR(ctx.Input(n, i, &ins[static_cast<size_t>(i)]));
  const std::string mode = AttrString(n, "mode", "avg");
  // Opset 16's default; opset 10 behaved as output_half_pixel (no attribute then).
  const std::string coord = AttrString(n, "coordinate_transformation_mode",
                                       ctx.opset() >= 16 ? "half_pixel" : "output_half_pixel");
  if (mode != "avg" && mode != "max") return ctx.Invalid(n, "mode=" + mode + " is not avg or max");
  if (coord != "half_pixel" && coord != "output_half_pixel") {
    return ctx.Invalid(
        n, "coordinate_transformation_mode=" + coord + " is not half_pixel or output_half_pixel");
  }
  const int64_t oh = AttrInt(n, "output_height", 1), ow = AttrInt(n, "output_width", 1);
  const int64_t sampling = AttrInt(n, "sampling_ratio", 0);
  if (oh < 1 || ow < 1 || sampling < 0) {
    return ctx.Invalid(n, "output_height and output_width must be >= 1, sampling_ratio >= 0");
  }
  ir::AttributeMap attrs;
  attrs["mode"] = Attribute::Int(mode == "max" ? 1 : 0);
  attrs["half_pixel"] = Attribute::Int(coord == "half_pixel" ? 1 : 0);
  attrs["output_height"] = Attribute::Int(oh);
  attrs["output_width"] = Attribute::Int(ow);
  attrs["sampling_ratio"] = Attribute::Int(sampling);
  attrs["spatial_scale"] = Attribute::Float(AttrFloat(n, "spatial_scale", 1.0f));
  return ctx.Emit(n, "RoiAlign", std::move(ins), std::move(attrs));
}

// ONNX's optional scalars (max_output_boxes_per_class, iou_threshold, score_threshold) become
// attributes; an omitted max_output_boxes_per_class selects nothing (ONNX's default 0).
Status MapNonMaxSuppression(ImportContext& ctx, const onnx::NodeProto& n, int) {
  ir::ValueId boxes, scores;
  LOOM_RETURN_IF_ERROR(ctx.Input(n, 0, &boxes));
  LOOM_RETURN_IF_ERROR(ctx.Input(n, 1, &scores));
  const ir::Tensor* boxes_t = ctx.ConstantInput(n, 0);
  const ir::Tensor* scores_t = ctx.ConstantInput(n, 1);
  if (boxes_t == nullptr || scores_t == nullptr) {
    return ctx.Unsupported(n,
                           "boxes and scores must be constants: the number of selected boxes "
                           "decides the output's shape (static shapes only)");
  }
  double max_out = 0, iou = 0, score = 0;
  bool has_max = false, has_iou = false, has_score = false;
  LOOM_RETURN_IF_ERROR(ConstantScalar(ctx, n, 2, "max_output_boxes_per_class", &max_out, &has_max));
  LOOM_RETURN_IF_ERROR(ConstantScalar(ctx, n, 3, "iou_threshold", &iou, &has_iou));
  LOOM_RETURN_IF_ERROR(ConstantScalar(ctx, n, 4, "score_threshold", &score, &has_score));
  const int64_t center = AttrInt(n, "center_point_box", 0);
  if (center != 0 && center != 1) return ctx.Invalid(n, "center_point_box must be 0 or 1");
  kernels::NmsParams p;
  p.center_point_box = center != 0;
  p.max_output_boxes_per_class =
      has_max ? static_cast<int64_t>(std::min(std::max(max_out, 0.0), 9.0e18)) : 0;
  p.iou_threshold = static_cast<float>(iou);
  p.score_threshold = static_cast<float>(score);
  p.has_score_threshold = has_score;
  kernels::TensorView bv, sv;
  LOOM_RETURN_IF_ERROR(ViewOf(*boxes_t, &bv));
  LOOM_RETURN_IF_ERROR(ViewOf(*scores_t, &sv));
  if (bv.dtype != DType::kF32 || sv.dtype != DType::kF32 || bv.rank != 3 || bv.shape[2] != 4 ||
      sv.rank != 3 || sv.shape[0] != bv.shape[0] || sv.shape[2] != bv.shape[1]) {
    return ctx.Invalid(n, "needs f32 boxes [B, N, 4] and scores [B, C, N], got " +
                              ir::TypeToString(boxes_t->dtype(), boxes_t->shape()) + " and " +
                              ir::TypeToString(scores_t->dtype(), scores_t->shape()));
  }
  std::vector<int64_t> order(static_cast<size_t>(bv.shape[1]));
  int64_t rows = 0;
  LOOM_RETURN_IF_ERROR(kernels::NonMaxSuppressionCount(p, bv, sv, order.data(), &rows));
  ir::AttributeMap attrs;
  attrs["center_point_box"] = Attribute::Int(center);
  attrs["max_output_boxes_per_class"] = Attribute::Int(p.max_output_boxes_per_class);
  attrs["iou_threshold"] = Attribute::Float(p.iou_threshold);
  attrs["score_threshold"] = Attribute::Float(p.score_threshold);
  attrs["has_score_threshold"] = Attribute::Int(has_score ? 1 : 0);
  attrs["rows"] = Attribute::Int(rows);
  return ctx.Emit(n, "NonMaxSuppression", {boxes, scores}, std::move(attrs));
}

Status MapUnique(ImportContext& ctx, const onnx::NodeProto& n, int) {
  ir::ValueId x;
  LOOM_RETURN_IF_ERROR(ctx.Input(n, 0, &x));
  const ir::Tensor* xt = ctx.ConstantInput(n, 0);
  if (xt == nullptr) {
    return ctx.Unsupported(n,
                           "X (input 0) must be a constant: the output's length is the number "
                           "of distinct values (static shapes only)");
  }
  int64_t axis = -1;
  if (FindAttr(n, "axis") != nullptr) {
    axis = AttrInt(n, "axis", 0);
    LOOM_RETURN_IF_ERROR(ctx.NormalizeAxis(
        n, "axis", static_cast<int64_t>(ctx.graph().value(x).shape.size()), &axis));
  }
  kernels::UniqueParams p;
  p.axis = static_cast<int>(axis);
  kernels::TensorView xv;
  LOOM_RETURN_IF_ERROR(ViewOf(*xt, &xv));
  std::vector<int64_t> scratch(static_cast<size_t>(kernels::UniqueScratchSize(p, xv)));
  int64_t count = 0;
  LOOM_RETURN_IF_ERROR(kernels::UniqueCount(p, xv, scratch.data(), &count));
  ir::AttributeMap attrs;
  attrs["axis"] = Attribute::Int(axis);
  attrs["sorted"] = Attribute::Int(AttrInt(n, "sorted", 1) != 0 ? 1 : 0);
  attrs["count"] = Attribute::Int(count);
  return ctx.Emit(n, "Unique", {x}, std::move(attrs), {0, 1, 2, 3});
}

}  // namespace

// Batch statistics instead of the given ones, and the updated running statistics as outputs 1
// and 2 (opset 14+; the older training outputs saved_mean / saved_var are not produced).
Status MapBatchNormTraining(ImportContext& ctx, const onnx::NodeProto& n, int) {
  if (n.output_size() > 3) {
    return ctx.Unsupported(n, "training outputs beyond running_mean and running_var");
  }
  std::vector<ir::ValueId> ins(5);
  for (int i = 0; i < 5; ++i) LOOM_RETURN_IF_ERROR(ctx.Input(n, i, &ins[static_cast<size_t>(i)]));
  ir::AttributeMap attrs;
  attrs["epsilon"] = Attribute::Float(AttrFloat(n, "epsilon", 1e-5f));
  attrs["momentum"] = Attribute::Float(AttrFloat(n, "momentum", 0.9f));
  return ctx.Emit(n, "BatchNormalizationTraining", std::move(ins), std::move(attrs), {0, 1, 2});
}

const std::vector<OpMapper>& Vision2OpMappers() {
  static const std::vector<OpMapper> table = {
      {"GridSample", 16, {"align_corners", "mode", "padding_mode"}, {}, MapGridSample},
      {"RoiAlign",
       10,
       {"coordinate_transformation_mode", "mode", "output_height", "output_width", "sampling_ratio",
        "spatial_scale"},
       {},
       MapRoiAlign},
      // Every input decides the output's length, so each is frozen at compile time.
      {"NonMaxSuppression", 10, {"center_point_box"}, {0, 1, 2, 3, 4}, MapNonMaxSuppression},
      {"Unique", 11, {"axis", "sorted"}, {0}, MapUnique},
  };
  return table;
}

}  // namespace loom::frontend
