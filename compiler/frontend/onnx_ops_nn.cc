// Mappers for the compute ops: convolutions, matrix products, batch norm, pooling and
// (de)quantization. They resolve ONNX's defaults and auto_pad into the IR's explicit canonical
// attributes (op_registry.h).
#include "compiler/frontend/onnx_internal.h"
#include "runtime/core/checked_math.h"

namespace loom::frontend {
namespace {

using ir::Attribute;

// Resolves strides, dilations and pads (incl. auto_pad) of a sliding window with `kernel` over
// `in_spatial`. `allow_dilations` is false for AveragePool, whose opsets <= 17 have none.
Status ResolveWindow(const ImportContext& ctx, const onnx::NodeProto& n,
                     const ir::Shape& in_spatial, const std::vector<int64_t>& kernel,
                     bool allow_dilations, ir::AttributeMap* attrs) {
  const size_t s = in_spatial.size();
  std::vector<int64_t> strides = AttrInts(n, "strides");
  std::vector<int64_t> dilations =
      allow_dilations ? AttrInts(n, "dilations") : std::vector<int64_t>{};
  std::vector<int64_t> pads = AttrInts(n, "pads");
  if (strides.empty()) strides.assign(s, 1);
  if (dilations.empty()) dilations.assign(s, 1);
  if (strides.size() != s || dilations.size() != s || kernel.size() != s) {
    return ctx.Invalid(n, "strides, dilations and kernel_shape need " + std::to_string(s) +
                              " entries for a " + std::to_string(s) + "-D input");
  }
  for (size_t i = 0; i < s; ++i) {
    if (strides[i] < 1 || dilations[i] < 1 || kernel[i] < 1) {
      return ctx.Invalid(n, "strides, dilations and kernel sizes must be >= 1");
    }
  }
  const std::string auto_pad = AttrString(n, "auto_pad", "NOTSET");
  if (auto_pad == "NOTSET") {
    if (pads.empty()) pads.assign(2 * s, 0);
    if (pads.size() != 2 * s)
      return ctx.Invalid(n, "pads needs " + std::to_string(2 * s) + " entries");
    for (int64_t p : pads) {
      if (p < 0) return ctx.Invalid(n, "pads must be >= 0");
    }
  } else if (auto_pad == "VALID") {
    pads.assign(2 * s, 0);
  } else if (auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER") {
    // Output = ceil(in / stride); the total padding that achieves it is split evenly, the odd
    // cell going to the end (SAME_UPPER) or the beginning (SAME_LOWER).
    pads.assign(2 * s, 0);
    for (size_t i = 0; i < s; ++i) {
      // ceil(in / stride) without in + stride - 1, which wraps for a stride near INT64_MAX.
      const int64_t out = in_spatial[i] / strides[i] + (in_spatial[i] % strides[i] != 0 ? 1 : 0);
      int64_t span = 0, end = 0;
      if (!CheckedMul(dilations[i], kernel[i] - 1, &span) || !CheckedAdd(span, int64_t{1}, &span) ||
          !CheckedMul(out - 1, strides[i], &end) || !CheckedAdd(end, span, &end)) {
        return ctx.Invalid(n, "auto_pad=" + auto_pad + ": dilations * (kernel_shape - 1) or " +
                                  "strides overflow 64 bits in spatial dim " + std::to_string(i));
      }
      const int64_t total = std::max<int64_t>(0, end - in_spatial[i]);
      const int64_t small = total / 2, large = total - small;
      pads[i] = auto_pad == "SAME_UPPER" ? small : large;
      pads[s + i] = auto_pad == "SAME_UPPER" ? large : small;
    }
  } else {
    return ctx.Unsupported(n, "auto_pad=" + auto_pad + " is not supported");
  }
  (*attrs)["strides"] = Attribute::Ints(strides);
  (*attrs)["pads"] = Attribute::Ints(pads);
  if (allow_dilations) (*attrs)["dilations"] = Attribute::Ints(dilations);
  return Status::Ok();
}

// Conv-family attributes; x and w are the data and weight inputs.
Status ConvAttrs(ImportContext& ctx, const onnx::NodeProto& n, ir::ValueId x, ir::ValueId w,
                 ir::AttributeMap* attrs) {
  const ir::Shape& xs = ctx.graph().value(x).shape;
  const ir::Shape& ws = ctx.graph().value(w).shape;
  if (xs.size() < 3 || ws.size() != xs.size()) {
    return ctx.Invalid(n, "needs input [N, C, D...] and weights of the same rank, got " +
                              ir::ShapeToString(xs) + " and " + ir::ShapeToString(ws));
  }
  const std::vector<int64_t> kernel(ws.begin() + 2, ws.end());
  const std::vector<int64_t> declared = AttrInts(n, "kernel_shape");
  if (!declared.empty() && declared != kernel) {
    return ctx.Invalid(n, "kernel_shape " + ir::ShapeToString(declared) +
                              " does not match the weights " + ir::ShapeToString(ws));
  }
  LOOM_RETURN_IF_ERROR(
      ResolveWindow(ctx, n, ir::Shape(xs.begin() + 2, xs.end()), kernel, true, attrs));
  (*attrs)["group"] = Attribute::Int(AttrInt(n, "group", 1));
  return Status::Ok();
}

// Pool attributes (kernel_shape is required by ONNX).
Status PoolAttrs(ImportContext& ctx, const onnx::NodeProto& n, ir::ValueId x, bool max_pool,
                 ir::AttributeMap* attrs) {
  const ir::Shape& xs = ctx.graph().value(x).shape;
  if (xs.size() < 3) return ctx.Invalid(n, "needs input [N, C, D...]");
  const std::vector<int64_t> kernel = AttrInts(n, "kernel_shape");
  LOOM_RETURN_IF_ERROR(
      ResolveWindow(ctx, n, ir::Shape(xs.begin() + 2, xs.end()), kernel, max_pool, attrs));
  (*attrs)["kernel_shape"] = Attribute::Ints(kernel);
  (*attrs)["ceil_mode"] = Attribute::Int(AttrInt(n, "ceil_mode", 0));
  return Status::Ok();
}

}  // namespace

Status MapConv(ImportContext& ctx, const onnx::NodeProto& n, int) {
  ir::ValueId x, w;
  LOOM_RETURN_IF_ERROR(ctx.Input(n, 0, &x));
  LOOM_RETURN_IF_ERROR(ctx.Input(n, 1, &w));
  ir::AttributeMap attrs;
  LOOM_RETURN_IF_ERROR(ConvAttrs(ctx, n, x, w, &attrs));
  std::vector<ir::ValueId> ins = {x, w};
  if (ctx.HasInput(n, 2)) ins.push_back(ctx.OptionalInput(n, 2));
  return ctx.Emit(n, "Conv", ins, std::move(attrs));
}

Status MapConvInteger(ImportContext& ctx, const onnx::NodeProto& n, int) {
  ir::ValueId x, w;
  LOOM_RETURN_IF_ERROR(ctx.Input(n, 0, &x));
  LOOM_RETURN_IF_ERROR(ctx.Input(n, 1, &w));
  ir::AttributeMap attrs;
  LOOM_RETURN_IF_ERROR(ConvAttrs(ctx, n, x, w, &attrs));
  std::vector<ir::ValueId> ins = {x, w};
  for (int i = 2; i < 4 && i < n.input_size(); ++i) ins.push_back(ctx.OptionalInput(n, i));
  return ctx.Emit(n, "ConvInteger", ins, std::move(attrs));
}

Status MapQLinearConv(ImportContext& ctx, const onnx::NodeProto& n, int) {
  std::vector<ir::ValueId> ins(8);
  for (int i = 0; i < 8; ++i) LOOM_RETURN_IF_ERROR(ctx.Input(n, i, &ins[static_cast<size_t>(i)]));
  if (ctx.HasInput(n, 8)) ins.push_back(ctx.OptionalInput(n, 8));
  ir::AttributeMap attrs;
  LOOM_RETURN_IF_ERROR(ConvAttrs(ctx, n, ins[0], ins[3], &attrs));
  return ctx.Emit(n, "QLinearConv", ins, std::move(attrs));
}

Status MapGemm(ImportContext& ctx, const onnx::NodeProto& n, int) {
  // Gemm-6's `broadcast` attribute only allowed what numpy-style broadcasting of C allows.
  ir::ValueId a, b;
  LOOM_RETURN_IF_ERROR(ctx.Input(n, 0, &a));
  LOOM_RETURN_IF_ERROR(ctx.Input(n, 1, &b));
  std::vector<ir::ValueId> ins = {a, b};
  if (ctx.HasInput(n, 2)) ins.push_back(ctx.OptionalInput(n, 2));
  ir::AttributeMap attrs;
  attrs["alpha"] = Attribute::Float(AttrFloat(n, "alpha", 1.0f));
  attrs["beta"] = Attribute::Float(AttrFloat(n, "beta", 1.0f));
  attrs["transA"] = Attribute::Int(AttrInt(n, "transA", 0) != 0);
  attrs["transB"] = Attribute::Int(AttrInt(n, "transB", 0) != 0);
  return ctx.Emit(n, "Gemm", ins, std::move(attrs));
}

Status MapMatMul(ImportContext& ctx, const onnx::NodeProto& n, int) {
  ir::ValueId a, b;
  LOOM_RETURN_IF_ERROR(ctx.Input(n, 0, &a));
  LOOM_RETURN_IF_ERROR(ctx.Input(n, 1, &b));
  return ctx.Emit(n, "MatMul", {a, b}, {});
}

Status MapMatMulInteger(ImportContext& ctx, const onnx::NodeProto& n, int) {
  ir::ValueId a, b;
  LOOM_RETURN_IF_ERROR(ctx.Input(n, 0, &a));
  LOOM_RETURN_IF_ERROR(ctx.Input(n, 1, &b));
  std::vector<ir::ValueId> ins = {a, b};
  for (int i = 2; i < 4 && i < n.input_size(); ++i) ins.push_back(ctx.OptionalInput(n, i));
  return ctx.Emit(n, "MatMulInteger", ins, {});
}

Status MapQLinearMatMul(ImportContext& ctx, const onnx::NodeProto& n, int) {
  std::vector<ir::ValueId> ins(8);
  for (int i = 0; i < 8; ++i) LOOM_RETURN_IF_ERROR(ctx.Input(n, i, &ins[static_cast<size_t>(i)]));
  return ctx.Emit(n, "QLinearMatMul", ins, {});
}

Status MapBatchNorm(ImportContext& ctx, const onnx::NodeProto& n, int since) {
  if (AttrInt(n, "training_mode", 0) != 0) return MapBatchNormTraining(ctx, n, since);
  if (since < 9 && AttrInt(n, "spatial", 1) != 1) {
    return ctx.Unsupported(n, "spatial=0 (per-element statistics) is not supported");
  }
  for (int i = 1; i < n.output_size(); ++i) {
    if (!n.output(i).empty()) {
      return ctx.Unsupported(n,
                             "training outputs (running mean/var, saved statistics) are not "
                             "supported (inference only)");
    }
  }
  std::vector<ir::ValueId> ins(5);
  for (int i = 0; i < 5; ++i) LOOM_RETURN_IF_ERROR(ctx.Input(n, i, &ins[static_cast<size_t>(i)]));
  ir::AttributeMap attrs;
  attrs["epsilon"] = Attribute::Float(AttrFloat(n, "epsilon", 1e-5f));
  return ctx.Emit(n, "BatchNormalization", ins, std::move(attrs));
}

Status MapMaxPool(ImportContext& ctx, const onnx::NodeProto& n, int) {
  ir::ValueId x;
  LOOM_RETURN_IF_ERROR(ctx.Input(n, 0, &x));
  ir::AttributeMap attrs;
  LOOM_RETURN_IF_ERROR(PoolAttrs(ctx, n, x, true, &attrs));
  attrs["storage_order"] = Attribute::Int(AttrInt(n, "storage_order", 0));
  return ctx.Emit(n, "MaxPool", {x}, std::move(attrs), {0, 1});
}

Status MapAveragePool(ImportContext& ctx, const onnx::NodeProto& n, int) {
  ir::ValueId x;
  LOOM_RETURN_IF_ERROR(ctx.Input(n, 0, &x));
  ir::AttributeMap attrs;
  LOOM_RETURN_IF_ERROR(PoolAttrs(ctx, n, x, false, &attrs));
  attrs["count_include_pad"] = Attribute::Int(AttrInt(n, "count_include_pad", 0));
  return ctx.Emit(n, "AveragePool", {x}, std::move(attrs));
}

Status MapGlobalAveragePool(ImportContext& ctx, const onnx::NodeProto& n, int) {
  ir::ValueId x;
  LOOM_RETURN_IF_ERROR(ctx.Input(n, 0, &x));
  return ctx.Emit(n, "GlobalAveragePool", {x}, {});
}

namespace {

// QuantizeLinear/DequantizeLinear: a missing zero point becomes an explicit 0 of `zp_dtype` with
// the scale's shape. The axis only means something for a per-axis (1-D, more than one element)
// scale; it is made non-negative there and left out otherwise.
Status MapQuantOp(ImportContext& ctx, const onnx::NodeProto& n, const char* op, DType zp_dtype) {
  ir::ValueId x, scale;
  LOOM_RETURN_IF_ERROR(ctx.Input(n, 0, &x));
  LOOM_RETURN_IF_ERROR(ctx.Input(n, 1, &scale));
  ir::ValueId zp = ctx.OptionalInput(n, 2);
  const ir::Shape scale_shape = ctx.graph().value(scale).shape;
  // A scale is a scalar or one value per channel; bound it before sizing a zero point after it.
  if (scale_shape.size() > 1 || ir::NumElementsUnchecked(scale_shape) > (int64_t{1} << 20)) {
    return ctx.Invalid(n, "scale " + ir::ShapeToString(scale_shape) +
                              " must be a scalar or one value per channel");
  }
  if (zp == ir::kNoValue) {
    ir::Tensor zero;
    LOOM_RETURN_IF_ERROR(ir::Tensor::Create(zp_dtype, scale_shape, &zero)
                             .WithContext(ctx.Label(n) + ": zero point"));
    zp = ctx.AddConstant(n.output(0) + "/zero_point", std::move(zero));
  }
  ir::AttributeMap attrs;
  if (ir::NumElementsUnchecked(scale_shape) != 1) {
    const int64_t rank = static_cast<int64_t>(ctx.graph().value(x).shape.size());
    int64_t axis = AttrInt(n, "axis", 1);
    if (axis < -rank || axis >= rank) {
      return ctx.Invalid(
          n, "axis " + std::to_string(axis) + " out of range for rank " + std::to_string(rank));
    }
    attrs["axis"] = Attribute::Int(axis < 0 ? axis + rank : axis);
  }
  return ctx.Emit(n, op, {x, scale, zp}, std::move(attrs));
}

}  // namespace

Status MapQuantizeLinear(ImportContext& ctx, const onnx::NodeProto& n, int) {
  // Without a zero point the output is uint8 (ONNX's default).
  return MapQuantOp(ctx, n, "QuantizeLinear", DType::kU8);
}

Status MapDequantizeLinear(ImportContext& ctx, const onnx::NodeProto& n, int) {
  ir::ValueId x;
  LOOM_RETURN_IF_ERROR(ctx.Input(n, 0, &x));
  return MapQuantOp(ctx, n, "DequantizeLinear", ctx.graph().value(x).dtype);
}

}  // namespace loom::frontend
