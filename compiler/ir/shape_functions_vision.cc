// Shape functions of the vision and normalization family (issue 12): ConvTranspose, Resize,
// LayerNormalization, InstanceNormalization, LRN, GlobalMaxPool. Attributes are the canonical
// ones the importer writes (op_registry.cc); each function checks them as well as the types, so a
// hand-written IR file gets the same errors an ONNX import would.
#include "compiler/ir/shape_functions.h"
#include "runtime/core/checked_math.h"

namespace loom::ir::shape {
namespace {

Status CheckLength(const InferContext& ctx, const char* name, size_t got, size_t want) {
  if (got != want) {
    return ctx.Error(std::string(name) + " has " + std::to_string(got) + " entries, expected " +
                     std::to_string(want));
  }
  return Status::Ok();
}

}  // namespace

Status ConvTranspose(InferContext& ctx) {
  LOOM_RETURN_IF_ERROR(ExpectDType(ctx, 0, {DType::kF32}));
  LOOM_RETURN_IF_ERROR(ExpectDType(ctx, 1, {DType::kF32}));
  const Shape& x = ctx.input(0).shape;
  const Shape& w = ctx.input(1).shape;
  if (x.size() < 3) return ctx.Error("input must be [N, C, D1, ...]");
  if (w.size() != x.size()) return ctx.Error("weights must have the input's rank");
  const size_t s = x.size() - 2;
  const int64_t group = ctx.node().GetInt("group", 1);
  int64_t m = 0;
  if (group < 1 || w[0] != x[1] || x[1] % group != 0 || !CheckedMul(w[1], group, &m)) {
    return ctx.Error(std::to_string(x[1]) + " input channels and weights " + ShapeToString(w) +
                     " [C, M/group, K...] do not fit group " + std::to_string(group));
  }
  const std::vector<int64_t> strides = ctx.node().GetInts("strides");
  const std::vector<int64_t> dilations = ctx.node().GetInts("dilations");
  const std::vector<int64_t> pads = ctx.node().GetInts("pads");
  const std::vector<int64_t> out_pad = ctx.node().GetInts("output_padding");
  LOOM_RETURN_IF_ERROR(CheckLength(ctx, "strides", strides.size(), s));
  LOOM_RETURN_IF_ERROR(CheckLength(ctx, "dilations", dilations.size(), s));
  LOOM_RETURN_IF_ERROR(CheckLength(ctx, "pads", pads.size(), 2 * s));
  LOOM_RETURN_IF_ERROR(CheckLength(ctx, "output_padding", out_pad.size(), s));
  Shape out = {x[0], m};
  for (size_t i = 0; i < s; ++i) {
    if (strides[i] < 1 || dilations[i] < 1 || pads[i] < 0 || pads[s + i] < 0 || out_pad[i] < 0 ||
        w[2 + i] < 1) {
      return ctx.Error(
          "strides, dilations and kernel sizes must be >= 1, pads and "
          "output_padding >= 0");
    }
    // stride * (in - 1) + output_padding + dilation * (kernel - 1) + 1 - pads.
    int64_t o = 0, span = 0;
    if (!CheckedMul(strides[i], x[2 + i] - 1, &o) ||
        !CheckedMul(dilations[i], w[2 + i] - 1, &span) || !CheckedAdd(o, span, &o) ||
        !CheckedAdd(o, out_pad[i] + 1, &o)) {
      return ctx.Error("output size overflows 64 bits in spatial dim " + std::to_string(i));
    }
    o -= pads[i] + pads[s + i];
    if (x[2 + i] < 1 || o < 1) {
      return ctx.Error("spatial dim " + std::to_string(i) + " gives an empty output (" +
                       std::to_string(o) + ")");
    }
    out.push_back(o);
  }
  if (ctx.has_input(2)) {
    LOOM_RETURN_IF_ERROR(ExpectDType(ctx, 2, {DType::kF32}));
    if (ctx.input(2).shape != Shape{m}) return ctx.Error("bias must be [M]");
  }
  LOOM_RETURN_IF_ERROR(CheckActivationAttrs(ctx));
  ctx.SetOutput(0, DType::kF32, std::move(out));
  return Status::Ok();
}

Status Resize(InferContext& ctx) {
  LOOM_RETURN_IF_ERROR(ExpectDType(ctx, 0, {DType::kF32}));
  const Shape& x = ctx.input(0).shape;
  const Node& n = ctx.node();
  if (x.empty()) return ctx.Error("input must have rank >= 1");
  const int64_t mode = n.GetInt("mode", 0), coord = n.GetInt("coordinate_transformation_mode", 0),
                nearest = n.GetInt("nearest_mode", 0);
  if (mode < 0 || mode > 2 || coord < 0 || coord > 6 || nearest < 0 || nearest > 3) {
    return ctx.Error(
        "mode (0..2), coordinate_transformation_mode (0..6) or nearest_mode (0..3) "
        "is out of range");
  }
  const std::vector<int64_t> sizes = n.GetInts("sizes");
  LOOM_RETURN_IF_ERROR(CheckLength(ctx, "sizes", sizes.size(), x.size()));
  if (n.FindAttr("scales") != nullptr) {
    const std::vector<float> scales = n.GetFloats("scales");
    LOOM_RETURN_IF_ERROR(CheckLength(ctx, "scales", scales.size(), x.size()));
    for (float f : scales) {
      if (!(f > 0.0f) || f > 1e6f) return ctx.Error("scales must lie in (0, 1e6]");
    }
  }
  if (coord == 5) {
    LOOM_RETURN_IF_ERROR(CheckLength(ctx, "roi", n.GetFloats("roi").size(), 2 * x.size()));
  } else if (n.FindAttr("roi") != nullptr) {
    return ctx.Error("roi is only read by tf_crop_and_resize (coordinate mode 5)");
  }
  for (size_t d = 0; d < x.size(); ++d) {
    if (sizes[d] < 0 || (x[d] == 0 && sizes[d] != 0)) {
      return ctx.Error("sizes " + ShapeToString(sizes) + " cannot come from input " +
                       ShapeToString(x));
    }
  }
  ctx.SetOutput(0, DType::kF32, Shape(sizes.begin(), sizes.end()));
  return Status::Ok();
}

// Inputs x, scale, bias?; outputs y, mean?, inv_std_dev? (x's dims before axis, then 1s).
Status LayerNormalization(InferContext& ctx) {
  for (int i = 0; i < ctx.num_inputs(); ++i) {
    if (ctx.has_input(i)) LOOM_RETURN_IF_ERROR(ExpectDType(ctx, i, {DType::kF32}));
  }
  const Shape& x = ctx.input(0).shape;
  const int64_t axis = ctx.node().GetInt("axis", -1);
  if (axis < 0 || axis >= static_cast<int64_t>(x.size())) {
    return ctx.Error("axis " + std::to_string(axis) + " must lie in [0, " +
                     std::to_string(x.size()) + ")");
  }
  const Shape normalized(x.begin() + axis, x.end());
  for (int i = 1; i < ctx.num_inputs(); ++i) {
    if (!ctx.has_input(i)) continue;
    Shape b;
    if (!BroadcastShapes(ctx.input(i).shape, normalized, &b) || b != normalized) {
      return ctx.Error(std::string(i == 1 ? "scale " : "bias ") +
                       ShapeToString(ctx.input(i).shape) + " does not broadcast to " +
                       ShapeToString(normalized));
    }
  }
  Shape stats = x;
  for (size_t d = static_cast<size_t>(axis); d < stats.size(); ++d) stats[d] = 1;
  for (int i = 1; i < ctx.num_outputs(); ++i) ctx.SetOutput(i, DType::kF32, stats);
  ctx.SetOutput(0, DType::kF32, x);
  return Status::Ok();
}

Status InstanceNormalization(InferContext& ctx) {
  for (int i = 0; i < 3; ++i) LOOM_RETURN_IF_ERROR(ExpectDType(ctx, i, {DType::kF32}));
  const Shape& x = ctx.input(0).shape;
  if (x.size() < 3) return ctx.Error("input must be [N, C, D1, ...]");
  for (int i = 1; i < 3; ++i) {
    if (ctx.input(i).shape != Shape{x[1]}) {
      return ctx.Error(std::string(i == 1 ? "scale" : "bias") + " must be [" +
                       std::to_string(x[1]) + "]");
    }
  }
  ctx.SetOutput(0, DType::kF32, x);
  return Status::Ok();
}

Status Lrn(InferContext& ctx) {
  LOOM_RETURN_IF_ERROR(ExpectDType(ctx, 0, {DType::kF32}));
  const Shape& x = ctx.input(0).shape;
  if (x.size() < 3) return ctx.Error("input must be [N, C, D1, ...]");
  const int64_t size = ctx.node().GetInt("size", 0);
  if (size < 1) return ctx.Error("size must be >= 1, got " + std::to_string(size));
  ctx.SetOutput(0, DType::kF32, x);
  return Status::Ok();
}

Status GlobalMaxPool(InferContext& ctx) {
  LOOM_RETURN_IF_ERROR(ExpectDType(ctx, 0, {DType::kF32}));
  Shape out = ctx.input(0).shape;
  if (out.size() < 3) return ctx.Error("input must be [N, C, D1, ...]");
  for (size_t i = 2; i < out.size(); ++i) {
    if (out[i] == 0) return ctx.Error("empty spatial dimension");
    out[i] = 1;
  }
  ctx.SetOutput(0, DType::kF32, std::move(out));
  return Status::Ok();
}

}  // namespace loom::ir::shape
