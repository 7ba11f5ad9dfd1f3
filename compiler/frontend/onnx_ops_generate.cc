// Mappers of the shape and indexing family (issue 12), second half: ops that generate tensors
// (Range, ConstantOfShape, EyeLike, OneHot, NonZero), rearrange them (DepthToSpace,
// SpaceToDepth, ReverseSequence) or select by a mask (Compress). Where an output's shape depends
// on data (Range, ConstantOfShape, NonZero, Compress) that data must be a constant; the op then
// folds to a constant in the constant-folding pass.
#include "compiler/frontend/onnx_internal.h"

namespace loom::frontend {
namespace {

using ir::Attribute;

Status RequireConstant(const ImportContext& ctx, const onnx::NodeProto& n, int i,
                       const char* what) {
  if (ctx.HasInput(n, i) && ctx.ConstantInput(n, i) != nullptr) return Status::Ok();
  return ctx.Unsupported(n, std::string(what) + " (input " + std::to_string(i) +
                                ") must be a constant: the output's shape depends on its values "
                                "(static shapes only)");
}

Status EmitReshapeInternal(ImportContext& ctx, const onnx::NodeProto& n, ir::ValueId x,
                           ir::Shape shape, const char* suffix, ir::ValueId* out) {
  ir::AttributeMap attrs;
  attrs["shape"] = Attribute::Ints(std::move(shape));
  return ctx.EmitInternal(n, "Reshape", {x}, std::move(attrs), suffix, out);
}

// Reshape to `split`, permute by `perm`, reshape to `out`: DepthToSpace and SpaceToDepth as the
// ONNX spec defines them.
Status EmitRearrange(ImportContext& ctx, const onnx::NodeProto& n, ir::ValueId x, ir::Shape split,
                     std::vector<int64_t> perm, ir::Shape out) {
  ir::ValueId blocks, moved;
  LOOM_RETURN_IF_ERROR(EmitReshapeInternal(ctx, n, x, std::move(split), "blocks", &blocks));
  ir::AttributeMap t;
  t["perm"] = Attribute::Ints(std::move(perm));
  LOOM_RETURN_IF_ERROR(ctx.EmitInternal(n, "Transpose", {blocks}, std::move(t), "moved", &moved));
  ir::AttributeMap r;
  r["shape"] = Attribute::Ints(std::move(out));
  return ctx.Emit(n, "Reshape", {moved}, std::move(r));
}

Status BlockInput(ImportContext& ctx, const onnx::NodeProto& n, ir::ValueId* x, ir::Shape* s,
                  int64_t* b) {
  LOOM_RETURN_IF_ERROR(ctx.Input(n, 0, x));
  *s = ctx.graph().value(*x).shape;
  *b = AttrInt(n, "blocksize", 0);
  if (s->size() != 4) return ctx.Invalid(n, "needs a 4-D input, got " + ir::ShapeToString(*s));
  if (*b < 1) return ctx.Invalid(n, "blocksize must be positive");
  return Status::Ok();
}

}  // namespace

Status MapDepthToSpace(ImportContext& ctx, const onnx::NodeProto& n, int) {
  ir::ValueId x;
  ir::Shape s;
  int64_t b = 0;
  LOOM_RETURN_IF_ERROR(BlockInput(ctx, n, &x, &s, &b));
  const int64_t N = s[0], C = s[1], H = s[2], W = s[3];
  if (C % (b * b) != 0) {
    return ctx.Invalid(n, "channels " + std::to_string(C) + " are not a multiple of blocksize² " +
                              std::to_string(b * b));
  }
  const int64_t c = C / (b * b);
  const ir::Shape out = {N, c, H * b, W * b};
  const std::string mode = AttrString(n, "mode", "DCR");
  if (mode == "DCR") return EmitRearrange(ctx, n, x, {N, b, b, c, H, W}, {0, 3, 4, 1, 5, 2}, out);
  if (mode == "CRD") return EmitRearrange(ctx, n, x, {N, c, b, b, H, W}, {0, 1, 4, 2, 5, 3}, out);
  return ctx.Invalid(n, "mode '" + mode + "' is neither DCR nor CRD");
}

Status MapSpaceToDepth(ImportContext& ctx, const onnx::NodeProto& n, int) {
  ir::ValueId x;
  ir::Shape s;
  int64_t b = 0;
  LOOM_RETURN_IF_ERROR(BlockInput(ctx, n, &x, &s, &b));
  const int64_t N = s[0], C = s[1], H = s[2], W = s[3];
  if (H % b != 0 || W % b != 0) {
    return ctx.Invalid(n, "spatial dims " + ir::ShapeToString(s) +
                              " are not multiples of blocksize " + std::to_string(b));
  }
  return EmitRearrange(ctx, n, x, {N, C, H / b, b, W / b, b}, {0, 3, 5, 1, 2, 4},
                       {N, C * b * b, H / b, W / b});
}

// Compress with a constant condition is a Gather of the positions where it holds (along `axis`,
// or over the flattened input when there is none).
Status MapCompress(ImportContext& ctx, const onnx::NodeProto& n, int) {
  ir::ValueId x;
  LOOM_RETURN_IF_ERROR(ctx.Input(n, 0, &x));
  LOOM_RETURN_IF_ERROR(RequireConstant(ctx, n, 1, "condition"));
  // Read before anything is emitted: new values may move the graph's constants.
  const ir::Tensor cond = *ctx.ConstantInput(n, 1);
  if (cond.shape().size() != 1) return ctx.Invalid(n, "condition must be 1-D");
  const ir::Shape s = ctx.graph().value(x).shape;
  int64_t axis = 0, dim = 0;
  const bool has_axis = FindAttr(n, "axis") != nullptr;
  if (has_axis) {
    axis = AttrInt(n, "axis", 0);
    const int64_t rank = static_cast<int64_t>(s.size());
    if (axis < -rank || axis >= rank) {
      return ctx.Invalid(
          n, "axis " + std::to_string(axis) + " is out of range for rank " + std::to_string(rank));
    }
    if (axis < 0) axis += rank;
    dim = s[axis];
  } else {
    dim = ir::NumElementsUnchecked(s);
    LOOM_RETURN_IF_ERROR(EmitReshapeInternal(ctx, n, x, {dim}, "flat", &x));
  }
  if (cond.num_elements() > dim) {
    return ctx.Invalid(n, "condition has " + std::to_string(cond.num_elements()) +
                              " entries for a dim of " + std::to_string(dim));
  }
  std::vector<int64_t> picked;
  for (int64_t i = 0; i < cond.num_elements(); ++i) {
    if (cond.ElementAsDouble(i) != 0.0) picked.push_back(i);
  }
  const int64_t count = static_cast<int64_t>(picked.size());
  const ir::ValueId indices = ctx.AddConstant(
      n.output(0) + "/indices", ir::Tensor::FromVector<int64_t>(DType::kI64, {count}, picked));
  ir::AttributeMap attrs;
  attrs["axis"] = Attribute::Int(axis);
  return ctx.Emit(n, "Gather", {x, indices}, std::move(attrs));
}

Status MapRange(ImportContext& ctx, const onnx::NodeProto& n, int) {
  std::vector<ir::ValueId> ins(3);
  static const char* const kNames[] = {"start", "limit", "delta"};
  for (int i = 0; i < 3; ++i) {
    LOOM_RETURN_IF_ERROR(RequireConstant(ctx, n, i, kNames[i]));
    LOOM_RETURN_IF_ERROR(ctx.Input(n, i, &ins[static_cast<size_t>(i)]));
  }
  return ctx.Emit(n, "Range", ins, {});
}

// ConstantOfShape's value attribute (a one-element tensor, f32 0 by default) becomes a constant
// input, so the op carries its element type without a tensor attribute.
Status MapConstantOfShape(ImportContext& ctx, const onnx::NodeProto& n, int) {
  ir::ValueId shape;
  LOOM_RETURN_IF_ERROR(RequireConstant(ctx, n, 0, "shape"));
  LOOM_RETURN_IF_ERROR(ctx.Input(n, 0, &shape));
  ir::Tensor value = ir::Tensor::FromVector<float>(DType::kF32, {1}, {0.0f});
  if (const onnx::AttributeProto* a = FindAttr(n, "value")) {
    LOOM_RETURN_IF_ERROR(TensorFromProto(a->t(), &value).WithContext(ctx.Label(n) + ": value"));
    if (value.num_elements() != 1) return ctx.Invalid(n, "value must hold one element");
  }
  const ir::ValueId v = ctx.AddConstant(n.output(0) + "/value", std::move(value));
  return ctx.Emit(n, "ConstantOfShape", {shape, v}, {});
}

Status MapEyeLike(ImportContext& ctx, const onnx::NodeProto& n, int) {
  ir::ValueId x;
  LOOM_RETURN_IF_ERROR(ctx.Input(n, 0, &x));
  DType t = ctx.graph().value(x).dtype;
  if (const onnx::AttributeProto* a = FindAttr(n, "dtype")) {
    LOOM_RETURN_IF_ERROR(
        DTypeFromOnnx(static_cast<int32_t>(a->i()), &t).WithContext(ctx.Label(n) + ": dtype"));
  }
  ir::AttributeMap attrs;
  attrs["k"] = Attribute::Int(AttrInt(n, "k", 0));
  attrs["dtype"] = Attribute::String(DTypeName(t));
  return ctx.Emit(n, "EyeLike", {x}, std::move(attrs));
}

// OneHot's depth (a scalar of any numeric type, ONNX casts it to int64) becomes an attribute.
Status MapOneHot(ImportContext& ctx, const onnx::NodeProto& n, int) {
  ir::ValueId indices, values;
  LOOM_RETURN_IF_ERROR(ctx.Input(n, 0, &indices));
  LOOM_RETURN_IF_ERROR(RequireConstant(ctx, n, 1, "depth"));
  LOOM_RETURN_IF_ERROR(ctx.Input(n, 2, &values));
  const ir::Tensor& depth = *ctx.ConstantInput(n, 1);
  if (depth.num_elements() != 1) return ctx.Invalid(n, "depth must be one element");
  const double d = depth.ElementAsDouble(0);
  if (!(d >= 1 && d < 1e12)) {
    return ctx.Invalid(n, "depth " + std::to_string(d) + " must be positive");
  }
  const int64_t rank = static_cast<int64_t>(ctx.graph().value(indices).shape.size()) + 1;
  int64_t axis = AttrInt(n, "axis", -1);
  if (axis < -rank || axis >= rank) {
    return ctx.Invalid(n, "axis " + std::to_string(axis) + " is out of range for output rank " +
                              std::to_string(rank));
  }
  if (axis < 0) axis += rank;
  ir::AttributeMap attrs;
  attrs["axis"] = Attribute::Int(axis);
  attrs["depth"] = Attribute::Int(static_cast<int64_t>(d));
  return ctx.Emit(n, "OneHot", {indices, values}, std::move(attrs));
}

Status MapNonZero(ImportContext& ctx, const onnx::NodeProto& n, int) {
  ir::ValueId x;
  LOOM_RETURN_IF_ERROR(RequireConstant(ctx, n, 0, "X"));
  LOOM_RETURN_IF_ERROR(ctx.Input(n, 0, &x));
  return ctx.Emit(n, "NonZero", {x}, {});
}

Status MapReverseSequence(ImportContext& ctx, const onnx::NodeProto& n, int) {
  ir::ValueId x, lens;
  LOOM_RETURN_IF_ERROR(ctx.Input(n, 0, &x));
  LOOM_RETURN_IF_ERROR(ctx.Input(n, 1, &lens));
  const int64_t rank = static_cast<int64_t>(ctx.graph().value(x).shape.size());
  int64_t batch = AttrInt(n, "batch_axis", 1), time = AttrInt(n, "time_axis", 0);
  if (batch < -rank || batch >= rank || time < -rank || time >= rank) {
    return ctx.Invalid(n, "batch_axis/time_axis out of range for rank " + std::to_string(rank));
  }
  ir::AttributeMap attrs;
  attrs["batch_axis"] = Attribute::Int(batch < 0 ? batch + rank : batch);
  attrs["time_axis"] = Attribute::Int(time < 0 ? time + rank : time);
  return ctx.Emit(n, "ReverseSequence", {x, lens}, std::move(attrs));
}

// MaxUnpool's geometry decides the unpool shape, (in - 1) * stride - pads + kernel per spatial
// dim, which MaxPool's flat indices refer to; the output is that or output_shape (input 2).
Status MapMaxUnpool(ImportContext& ctx, const onnx::NodeProto& n, int) {
  ir::ValueId x, indices;
  LOOM_RETURN_IF_ERROR(ctx.Input(n, 0, &x));
  LOOM_RETURN_IF_ERROR(ctx.Input(n, 1, &indices));
  const ir::Shape in = ctx.graph().value(x).shape;
  if (in.size() < 3) return ctx.Invalid(n, "needs an input [N, C, D...]");
  const size_t s = in.size() - 2;
  const std::vector<int64_t> kernel = AttrInts(n, "kernel_shape");
  std::vector<int64_t> strides = AttrInts(n, "strides"), pads = AttrInts(n, "pads");
  if (strides.empty()) strides.assign(s, 1);
  if (pads.empty()) pads.assign(2 * s, 0);
  if (kernel.size() != s || strides.size() != s || pads.size() != 2 * s) {
    return ctx.Invalid(
        n, "kernel_shape, strides and pads must cover the " + std::to_string(s) + " spatial dims");
  }
  ir::Shape unpooled = {in[0], in[1]};
  for (size_t d = 0; d < s; ++d) {
    unpooled.push_back((in[d + 2] - 1) * strides[d] - pads[d] - pads[d + s] + kernel[d]);
  }
  ir::Shape out = unpooled;
  if (ctx.HasInput(n, 2)) {
    LOOM_RETURN_IF_ERROR(RequireConstant(ctx, n, 2, "output_shape"));
    const ir::Tensor& t = *ctx.ConstantInput(n, 2);
    if (t.dtype() != DType::kI64) return ctx.Invalid(n, "output_shape must be int64");
    out.assign(t.data<int64_t>(), t.data<int64_t>() + t.num_elements());
  }
  ir::AttributeMap attrs;
  attrs["shape"] = Attribute::Ints(out);
  attrs["index_shape"] = Attribute::Ints(unpooled);
  return ctx.Emit(n, "MaxUnpool", {x, indices}, std::move(attrs));
}

}  // namespace loom::frontend
