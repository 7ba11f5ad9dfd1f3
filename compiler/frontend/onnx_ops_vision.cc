// Mappers of the vision and normalization family (issue 12): ConvTranspose, Resize / Upsample,
// LayerNormalization, InstanceNormalization, LRN and GlobalMaxPool. Like onnx_ops_nn.cc they
// resolve ONNX's defaults, auto_pad, output_shape and the shape inputs into the IR's explicit
// canonical attributes (docs/compiler.md §3). Resize's string modes become small integer codes
// (kernels_vision.h), so the op can sit in a package's CPU segment, whose attributes are numbers.
#include <cmath>

#include "compiler/frontend/onnx_internal.h"
#include "runtime/core/checked_math.h"

namespace loom::frontend {
namespace {

using ir::Attribute;

// A constant 1-D shape/scale input as doubles; *present is false when omitted or empty (ONNX
// passes an empty tensor for "not given").
Status ConstantVector(ImportContext& ctx, const onnx::NodeProto& n, int i, const char* what,
                      std::vector<double>* out, bool* present) {
  *present = false;
  out->clear();
  if (!ctx.HasInput(n, i)) return Status::Ok();
  const ir::Tensor* t = ctx.ConstantInput(n, i);
  if (t == nullptr) {
    return ctx.Unsupported(n, std::string(what) + " (input " + std::to_string(i) +
                                  ") must be a constant; pin the input shape so it folds");
  }
  if (t->num_elements() == 0) return Status::Ok();
  if (t->shape().size() != 1) return ctx.Invalid(n, std::string(what) + " must be 1-D");
  for (int64_t k = 0; k < t->num_elements(); ++k) out->push_back(t->ElementAsDouble(k));
  *present = true;
  return Status::Ok();
}

// Mode strings -> the kernel's codes (runtime/kernels/kernels_vision.h).
int ModeCode(const std::string& m) {
  if (m == "nearest") return 0;
  if (m == "linear" || m == "bilinear" || m == "trilinear") return 1;
  if (m == "cubic" || m == "bicubic") return 2;
  return -1;
}
int CoordCode(const std::string& m) {
  static const char* const kNames[] = {
      "half_pixel",    "asymmetric",         "pytorch_half_pixel",  "tf_half_pixel_for_nn",
      "align_corners", "tf_crop_and_resize", "half_pixel_symmetric"};
  for (int i = 0; i < 7; ++i) {
    if (m == kNames[i]) return i;
  }
  return -1;
}
int NearestCode(const std::string& m) {
  static const char* const kNames[] = {"round_prefer_floor", "round_prefer_ceil", "floor", "ceil"};
  for (int i = 0; i < 4; ++i) {
    if (m == kNames[i]) return i;
  }
  return -1;
}

}  // namespace

Status MapConvTranspose(ImportContext& ctx, const onnx::NodeProto& n, int) {
  ir::ValueId x, w;
  LOOM_RETURN_IF_ERROR(ctx.Input(n, 0, &x));
  LOOM_RETURN_IF_ERROR(ctx.Input(n, 1, &w));
  const ir::Shape xs = ctx.graph().value(x).shape;
  const ir::Shape ws = ctx.graph().value(w).shape;
  if (xs.size() < 3 || ws.size() != xs.size()) {
    return ctx.Invalid(n, "needs input [N, C, D...] and weights of the same rank, got " +
                              ir::ShapeToString(xs) + " and " + ir::ShapeToString(ws));
  }
  const size_t s = xs.size() - 2;
  const std::vector<int64_t> kernel(ws.begin() + 2, ws.end());
  const std::vector<int64_t> declared = AttrInts(n, "kernel_shape");
  if (!declared.empty() && declared != kernel) {
    return ctx.Invalid(n, "kernel_shape " + ir::ShapeToString(declared) +
                              " does not match the weights " + ir::ShapeToString(ws));
  }
  std::vector<int64_t> strides = AttrInts(n, "strides");
  std::vector<int64_t> dilations = AttrInts(n, "dilations");
  std::vector<int64_t> pads = AttrInts(n, "pads");
  std::vector<int64_t> out_pad = AttrInts(n, "output_padding");
  std::vector<int64_t> out_shape = AttrInts(n, "output_shape");
  if (strides.empty()) strides.assign(s, 1);
  if (dilations.empty()) dilations.assign(s, 1);
  if (out_pad.empty()) out_pad.assign(s, 0);
  // output_shape may name the whole output [N, M, O...]; only its spatial part counts.
  if (out_shape.size() == s + 2) out_shape.erase(out_shape.begin(), out_shape.begin() + 2);
  if (strides.size() != s || dilations.size() != s || out_pad.size() != s ||
      (!out_shape.empty() && out_shape.size() != s)) {
    return ctx.Invalid(n, "strides, dilations, output_padding and output_shape need " +
                              std::to_string(s) + " entries for a " + std::to_string(s) +
                              "-D input");
  }
  for (size_t i = 0; i < s; ++i) {
    if (strides[i] < 1 || dilations[i] < 1 || kernel[i] < 1 || out_pad[i] < 0 ||
        (!out_shape.empty() && out_shape[i] < 1)) {
      return ctx.Invalid(n,
                         "strides, dilations, kernel sizes and output_shape must be >= 1, "
                         "output_padding >= 0");
    }
    if (out_pad[i] >= strides[i] && out_pad[i] >= dilations[i]) {
      return ctx.Invalid(n, "output_padding " + std::to_string(out_pad[i]) + " in spatial dim " +
                                std::to_string(i) + " must be smaller than the stride or dilation");
    }
  }
  const std::string auto_pad = AttrString(n, "auto_pad", "NOTSET");
  if (auto_pad != "NOTSET" && auto_pad != "VALID" && auto_pad != "SAME_UPPER" &&
      auto_pad != "SAME_LOWER") {
    return ctx.Unsupported(n, "auto_pad=" + auto_pad + " is not supported");
  }
  const bool same = auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER";
  if (!out_shape.empty() || same) {
    // The padding that yields the wanted output (input * stride under SAME_*), split as ONNX
    // does; a wanted output larger than the unpadded one becomes output_padding.
    pads.assign(2 * s, 0);
    for (size_t i = 0; i < s; ++i) {
      int64_t full = 0, span = 0, want = 0;
      if (!CheckedMul(strides[i], xs[2 + i] - 1, &full) ||
          !CheckedMul(dilations[i], kernel[i] - 1, &span) || !CheckedAdd(full, span, &full) ||
          !CheckedAdd(full, out_pad[i] + 1, &full) || !CheckedMul(xs[2 + i], strides[i], &want)) {
        return ctx.Invalid(n, "output size overflows 64 bits in spatial dim " + std::to_string(i));
      }
      if (!out_shape.empty()) want = out_shape[i];
      const int64_t total = full - want;
      if (total < 0) {
        out_pad[i] -= total;
        continue;
      }
      const bool upper = auto_pad == "SAME_UPPER";
      pads[i] = upper ? total / 2 : total - total / 2;
      pads[s + i] = total - pads[i];
    }
  } else if (auto_pad == "VALID" || pads.empty()) {
    pads.assign(2 * s, 0);
  }
  if (pads.size() != 2 * s)
    return ctx.Invalid(n, "pads needs " + std::to_string(2 * s) + " entries");
  for (int64_t p : pads) {
    if (p < 0) return ctx.Invalid(n, "pads must be >= 0");
  }
  ir::AttributeMap attrs;
  attrs["strides"] = Attribute::Ints(strides);
  attrs["dilations"] = Attribute::Ints(dilations);
  attrs["pads"] = Attribute::Ints(pads);
  attrs["output_padding"] = Attribute::Ints(out_pad);
  attrs["group"] = Attribute::Int(AttrInt(n, "group", 1));
  std::vector<ir::ValueId> ins = {x, w};
  if (ctx.HasInput(n, 2)) ins.push_back(ctx.OptionalInput(n, 2));
  return ctx.Emit(n, "ConvTranspose", ins, std::move(attrs));
}

// Resize (opset 10..19) and Upsample (7..9): the shape inputs (roi, scales, sizes) must be
// constants; they become the attributes `sizes` (the output shape), `scales` (omitted when the
// sizes were given: the kernel then uses output / input per dim, in double) and `roi`.
Status MapResize(ImportContext& ctx, const onnx::NodeProto& n, int since) {
  ir::ValueId x;
  LOOM_RETURN_IF_ERROR(ctx.Input(n, 0, &x));
  const ir::Shape xs = ctx.graph().value(x).shape;
  const int64_t rank = static_cast<int64_t>(xs.size());
  const bool upsample = n.op_type() == "Upsample";
  const bool legacy = upsample || since < 11;  // asymmetric coordinates, nearest = floor
  const std::string mode_name = AttrString(n, "mode", "nearest");
  const int mode = ModeCode(mode_name);
  if (mode < 0 || (legacy && mode == 2)) {
    return ctx.Unsupported(n, "mode=" + mode_name + " is not supported");
  }
  const std::string coord_name =
      legacy ? "asymmetric" : AttrString(n, "coordinate_transformation_mode", "half_pixel");
  const int coord = CoordCode(coord_name);
  const std::string nearest_name =
      legacy ? "floor" : AttrString(n, "nearest_mode", "round_prefer_floor");
  const int nearest = NearestCode(nearest_name);
  if (coord < 0) return ctx.Unsupported(n, "coordinate_transformation_mode=" + coord_name);
  if (nearest < 0) return ctx.Unsupported(n, "nearest_mode=" + nearest_name);
  if (AttrInt(n, "antialias", 0) != 0) {
    return ctx.Unsupported(n, "antialias=1 is not supported");
  }
  // Where each input sits: Upsample-7 has scales as an attribute, Upsample-9 and Resize-10 as
  // input 1; Resize-11+ takes roi, scales, sizes as inputs 1..3.
  std::vector<double> roi, scales, sizes;
  bool has_roi = false, has_scales = false, has_sizes = false;
  if (upsample && since < 9) {
    if (const onnx::AttributeProto* a = FindAttr(n, "scales")) {
      for (float f : a->floats()) scales.push_back(f);
    }
    has_scales = !scales.empty();
  } else if (legacy) {
    LOOM_RETURN_IF_ERROR(ConstantVector(ctx, n, 1, "scales", &scales, &has_scales));
  } else {
    LOOM_RETURN_IF_ERROR(ConstantVector(ctx, n, 1, "roi", &roi, &has_roi));
    LOOM_RETURN_IF_ERROR(ConstantVector(ctx, n, 2, "scales", &scales, &has_scales));
    LOOM_RETURN_IF_ERROR(ConstantVector(ctx, n, 3, "sizes", &sizes, &has_sizes));
  }
  if (has_scales == has_sizes) {
    return ctx.Invalid(n, "exactly one of scales and sizes must be given");
  }
  // axes (opset 18): scales/sizes/roi name only these dims; the others keep their size.
  std::vector<int64_t> axes = AttrInts(n, "axes");
  if (axes.empty()) {
    for (int64_t d = 0; d < rank; ++d) axes.push_back(d);
  }
  std::vector<bool> seen(static_cast<size_t>(rank), false);
  for (int64_t& a : axes) {
    LOOM_RETURN_IF_ERROR(ctx.NormalizeAxis(n, "axis", rank, &a));
    if (seen[static_cast<size_t>(a)]) return ctx.Invalid(n, "axes repeat " + std::to_string(a));
    seen[static_cast<size_t>(a)] = true;
  }
  const size_t na = axes.size();
  if ((has_scales && scales.size() != na) || (has_sizes && sizes.size() != na) ||
      (has_roi && roi.size() != 2 * na)) {
    return ctx.Invalid(n, "scales and sizes need one entry per resized axis (" +
                              std::to_string(na) + "), roi two");
  }
  std::vector<double> full_scales(static_cast<size_t>(rank), 1.0);
  std::vector<int64_t> out(xs.begin(), xs.end());
  std::vector<float> full_roi;
  if (coord == 5) {  // tf_crop_and_resize
    full_roi.assign(static_cast<size_t>(2 * rank), 0.0f);
    for (int64_t d = 0; d < rank; ++d) full_roi[static_cast<size_t>(rank + d)] = 1.0f;
    if (has_roi) {
      for (size_t k = 0; k < na; ++k) {
        full_roi[static_cast<size_t>(axes[k])] = static_cast<float>(roi[k]);
        full_roi[static_cast<size_t>(rank + axes[k])] = static_cast<float>(roi[na + k]);
      }
    }
  }
  bool explicit_scales = has_scales;
  if (has_scales) {
    for (size_t k = 0; k < na; ++k) {
      const double sc = scales[k];
      const size_t d = static_cast<size_t>(axes[k]);
      if (!(sc > 0) || !std::isfinite(sc) || sc > 1e6) {
        return ctx.Invalid(n, "scale " + std::to_string(sc) + " of dim " + std::to_string(d) +
                                  " must be a finite number in (0, 1e6]");
      }
      full_scales[d] = sc;
      out[d] = static_cast<int64_t>(std::floor(sc * static_cast<double>(xs[d])));
    }
  } else {
    const std::string policy = AttrString(n, "keep_aspect_ratio_policy", "stretch");
    if (policy != "stretch" && policy != "not_larger" && policy != "not_smaller") {
      return ctx.Unsupported(n, "keep_aspect_ratio_policy=" + policy);
    }
    for (size_t k = 0; k < na; ++k) {
      if (sizes[k] < 0 || sizes[k] > 1e12) {
        return ctx.Invalid(n, "sizes entry " + std::to_string(k) + " is out of range");
      }
      if (xs[static_cast<size_t>(axes[k])] == 0)
        return ctx.Invalid(n, "cannot resize an empty dim");
    }
    if (policy == "stretch") {
      for (size_t k = 0; k < na; ++k)
        out[static_cast<size_t>(axes[k])] = static_cast<int64_t>(sizes[k]);
    } else {
      // One scale for all resized axes, the largest (smallest) that keeps every size within
      // (beyond) the requested one; sizes follow from it.
      double sc = policy == "not_larger" ? 1e300 : 0.0;
      for (size_t k = 0; k < na; ++k) {
        const double r = sizes[k] / static_cast<double>(xs[static_cast<size_t>(axes[k])]);
        sc = policy == "not_larger" ? std::min(sc, r) : std::max(sc, r);
      }
      for (size_t k = 0; k < na; ++k) {
        const size_t d = static_cast<size_t>(axes[k]);
        full_scales[d] = sc;
        out[d] = static_cast<int64_t>(std::floor(sc * static_cast<double>(xs[d]) + 0.5));
      }
      explicit_scales = true;
    }
  }
  ir::AttributeMap attrs;
  attrs["mode"] = Attribute::Int(mode);
  attrs["coordinate_transformation_mode"] = Attribute::Int(coord);
  attrs["nearest_mode"] = Attribute::Int(nearest);
  attrs["cubic_coeff_a"] = Attribute::Float(AttrFloat(n, "cubic_coeff_a", -0.75f));
  attrs["exclude_outside"] = Attribute::Int(AttrInt(n, "exclude_outside", 0) != 0);
  attrs["extrapolation_value"] = Attribute::Float(AttrFloat(n, "extrapolation_value", 0.0f));
  attrs["sizes"] = Attribute::Ints(out);
  if (explicit_scales) {
    std::vector<float> f(full_scales.begin(), full_scales.end());
    attrs["scales"] = Attribute::Floats(f);
  }
  if (!full_roi.empty()) attrs["roi"] = Attribute::Floats(full_roi);
  return ctx.Emit(n, "Resize", {x}, std::move(attrs));
}

Status MapLayerNorm(ImportContext& ctx, const onnx::NodeProto& n, int) {
  ir::ValueId x, scale;
  LOOM_RETURN_IF_ERROR(ctx.Input(n, 0, &x));
  LOOM_RETURN_IF_ERROR(ctx.Input(n, 1, &scale));
  if (AttrInt(n, "stash_type", 1) != 1) {
    return ctx.Unsupported(n, "stash_type other than 1 (float32 statistics) is not supported");
  }
  int64_t axis = AttrInt(n, "axis", -1);
  LOOM_RETURN_IF_ERROR(
      ctx.NormalizeAxis(n, "axis", static_cast<int64_t>(ctx.graph().value(x).shape.size()), &axis));
  std::vector<ir::ValueId> ins = {x, scale};
  if (ctx.HasInput(n, 2)) ins.push_back(ctx.OptionalInput(n, 2));
  ir::AttributeMap attrs;
  attrs["axis"] = Attribute::Int(axis);
  attrs["epsilon"] = Attribute::Float(AttrFloat(n, "epsilon", 1e-5f));
  return ctx.Emit(n, "LayerNormalization", ins, std::move(attrs), {0, 1, 2});
}

Status MapInstanceNorm(ImportContext& ctx, const onnx::NodeProto& n, int) {
  std::vector<ir::ValueId> ins(3);
  for (int i = 0; i < 3; ++i) LOOM_RETURN_IF_ERROR(ctx.Input(n, i, &ins[static_cast<size_t>(i)]));
  ir::AttributeMap attrs;
  attrs["epsilon"] = Attribute::Float(AttrFloat(n, "epsilon", 1e-5f));
  return ctx.Emit(n, "InstanceNormalization", ins, std::move(attrs));
}

Status MapLrn(ImportContext& ctx, const onnx::NodeProto& n, int) {
  ir::ValueId x;
  LOOM_RETURN_IF_ERROR(ctx.Input(n, 0, &x));
  if (FindAttr(n, "size") == nullptr) return ctx.Invalid(n, "attribute 'size' is required");
  ir::AttributeMap attrs;
  attrs["size"] = Attribute::Int(AttrInt(n, "size", 1));
  attrs["alpha"] = Attribute::Float(AttrFloat(n, "alpha", 1e-4f));
  attrs["beta"] = Attribute::Float(AttrFloat(n, "beta", 0.75f));
  attrs["bias"] = Attribute::Float(AttrFloat(n, "bias", 1.0f));
  return ctx.Emit(n, "LRN", {x}, std::move(attrs));
}

Status MapGlobalMaxPool(ImportContext& ctx, const onnx::NodeProto& n, int) {
  ir::ValueId x;
  LOOM_RETURN_IF_ERROR(ctx.Input(n, 0, &x));
  return ctx.Emit(n, "GlobalMaxPool", {x}, {});
}

}  // namespace loom::frontend
