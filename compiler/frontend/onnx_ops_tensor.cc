// Mappers for the elementwise and data-movement ops, Constant, and the op-mapper table. Version
// differences are removed here: Clip-6's attribute bounds become inputs, Softmax < 13's 2-D
// coercion (LogSoftmax's and Hardmax's too) becomes Reshape -> op -> Reshape, Flatten becomes
// Reshape, Reshape's 0/-1 are resolved, Pad-2's attributes and Pad-11's inputs both become
// attributes.
#include <cmath>
#include <limits>

#include "compiler/frontend/onnx_internal.h"
#include "runtime/core/checked_math.h"

namespace loom::frontend {
namespace {

using ir::Attribute;

int64_t Product(const ir::Shape& s, size_t begin, size_t end) {
  int64_t p = 1;
  for (size_t i = begin; i < end; ++i) p *= s[i];
  return p;
}

ir::Tensor F32Scalar(float v) { return ir::Tensor::FromVector<float>(DType::kF32, {}, {v}); }

}  // namespace

Status MapUnary(ImportContext& ctx, const onnx::NodeProto& n, int) {
  ir::ValueId x;
  LOOM_RETURN_IF_ERROR(ctx.Input(n, 0, &x));
  return ctx.Emit(n, n.op_type(), {x}, {});
}

Status MapLeakyRelu(ImportContext& ctx, const onnx::NodeProto& n, int) {
  ir::ValueId x;
  LOOM_RETURN_IF_ERROR(ctx.Input(n, 0, &x));
  ir::AttributeMap attrs;
  attrs["alpha"] = Attribute::Float(AttrFloat(n, "alpha", 0.01f));
  return ctx.Emit(n, "LeakyRelu", {x}, std::move(attrs));
}

Status MapClip(ImportContext& ctx, const onnx::NodeProto& n, int since) {
  ir::ValueId x;
  LOOM_RETURN_IF_ERROR(ctx.Input(n, 0, &x));
  if (since >= 11) {
    std::vector<ir::ValueId> ins = {x};
    for (int i = 1; i < 3 && i < n.input_size(); ++i) ins.push_back(ctx.OptionalInput(n, i));
    return ctx.Emit(n, "Clip", ins, {});
  }
  // Clip-6: bounds are attributes; an absent one means no bound (omitted input).
  std::vector<ir::ValueId> ins = {x, ir::kNoValue, ir::kNoValue};
  if (FindAttr(n, "min"))
    ins[1] = ctx.AddConstant(n.output(0) + "/min", F32Scalar(AttrFloat(n, "min", 0)));
  if (FindAttr(n, "max"))
    ins[2] = ctx.AddConstant(n.output(0) + "/max", F32Scalar(AttrFloat(n, "max", 0)));
  while (ins.size() > 1 && ins.back() == ir::kNoValue) ins.pop_back();
  return ctx.Emit(n, "Clip", ins, {});
}

Status MapBinary(ImportContext& ctx, const onnx::NodeProto& n, int since) {
  ir::ValueId a, b;
  LOOM_RETURN_IF_ERROR(ctx.Input(n, 0, &a));
  LOOM_RETURN_IF_ERROR(ctx.Input(n, 1, &b));
  if (since < 7 && AttrInt(n, "broadcast", 0) != 0) {
    // Legacy broadcasting: B's dims line up with A's starting at `axis`. Appending 1s to B turns
    // that into numpy broadcasting.
    const ir::Shape& as = ctx.graph().value(a).shape;
    const ir::Shape bs = ctx.graph().value(b).shape;
    const int64_t ra = static_cast<int64_t>(as.size()), rb = static_cast<int64_t>(bs.size());
    if (rb == 0) return ctx.Emit(n, n.op_type(), {a, b}, {});  // a scalar B needs no axis
    int64_t axis = AttrInt(n, "axis", ra - rb);
    LOOM_RETURN_IF_ERROR(ctx.NormalizeAxis(n, "axis", ra, &axis));
    if (axis + rb > ra) return ctx.Invalid(n, "legacy broadcast of B runs past A's rank");
    if (axis + rb < ra) {
      ir::Shape target = bs;
      target.resize(static_cast<size_t>(ra - axis), 1);
      ir::AttributeMap attrs;
      attrs["shape"] = Attribute::Ints(target);
      LOOM_RETURN_IF_ERROR(
          ctx.EmitInternal(n, "Reshape", {b}, std::move(attrs), "broadcast_b", &b));
    }
  }
  return ctx.Emit(n, n.op_type(), {a, b}, {});
}

Status MapFlatten(ImportContext& ctx, const onnx::NodeProto& n, int) {
  ir::ValueId x;
  LOOM_RETURN_IF_ERROR(ctx.Input(n, 0, &x));
  const ir::Shape& s = ctx.graph().value(x).shape;
  int64_t axis = AttrInt(n, "axis", 1);
  LOOM_RETURN_IF_ERROR(ctx.NormalizeAxis(n, "axis", static_cast<int64_t>(s.size()), &axis, 1));
  ir::AttributeMap attrs;
  attrs["shape"] = Attribute::Ints(
      {Product(s, 0, static_cast<size_t>(axis)), Product(s, static_cast<size_t>(axis), s.size())});
  return ctx.Emit(n, "Reshape", {x}, std::move(attrs));
}

Status MapReshape(ImportContext& ctx, const onnx::NodeProto& n, int) {
  ir::ValueId x;
  LOOM_RETURN_IF_ERROR(ctx.Input(n, 0, &x));
  const ir::Tensor* shape_t = ctx.ConstantInput(n, 1);
  if (shape_t == nullptr) {
    return ctx.Unsupported(n, "the target shape (input 1) must be a constant (static shapes only)");
  }
  if (shape_t->dtype() != DType::kI64 || shape_t->shape().size() != 1) {
    return ctx.Invalid(n, "the target shape must be a 1-D int64 tensor");
  }
  const ir::Shape& in = ctx.graph().value(x).shape;
  const bool allowzero = AttrInt(n, "allowzero", 0) != 0;
  ir::Shape out(shape_t->data<int64_t>(), shape_t->data<int64_t>() + shape_t->num_elements());
  int infer_at = -1;
  int64_t known = 1;
  for (size_t i = 0; i < out.size(); ++i) {
    if (out[i] == 0 && !allowzero) {
      // 0 copies the input's dim at the same position.
      if (i >= in.size())
        return ctx.Invalid(n, "shape entry 0 at " + std::to_string(i) + " has no input dim");
      out[i] = in[i];
    } else if (out[i] == -1) {
      if (infer_at >= 0) return ctx.Invalid(n, "more than one -1 in the target shape");
      infer_at = static_cast<int>(i);
      continue;
    } else if (out[i] < 0) {
      return ctx.Invalid(n, "negative entry " + std::to_string(out[i]) + " in the target shape");
    }
    if (!CheckedMul(known, out[i], &known)) {
      return ctx.Invalid(n, "target shape " + ir::ShapeToString(out) + " has too many elements");
    }
  }
  const int64_t total = Product(in, 0, in.size());
  if (infer_at >= 0) {
    if (known == 0 || total % known != 0) {
      return ctx.Invalid(n,
                         "cannot infer the -1 of shape for " + std::to_string(total) + " elements");
    }
    out[static_cast<size_t>(infer_at)] = total / known;
  }
  ir::AttributeMap attrs;
  attrs["shape"] = Attribute::Ints(out);
  return ctx.Emit(n, "Reshape", {x}, std::move(attrs));
}

Status MapTranspose(ImportContext& ctx, const onnx::NodeProto& n, int) {
  ir::ValueId x;
  LOOM_RETURN_IF_ERROR(ctx.Input(n, 0, &x));
  std::vector<int64_t> perm = AttrInts(n, "perm");
  if (!FindAttr(n, "perm")) {
    const int64_t r = static_cast<int64_t>(ctx.graph().value(x).shape.size());
    for (int64_t i = r - 1; i >= 0; --i) perm.push_back(i);  // default: reverse the dims
  }
  ir::AttributeMap attrs;
  attrs["perm"] = Attribute::Ints(perm);
  return ctx.Emit(n, "Transpose", {x}, std::move(attrs));
}

Status MapConcat(ImportContext& ctx, const onnx::NodeProto& n, int since) {
  std::vector<ir::ValueId> ins(static_cast<size_t>(n.input_size()));
  for (int i = 0; i < n.input_size(); ++i) {
    LOOM_RETURN_IF_ERROR(ctx.Input(n, i, &ins[static_cast<size_t>(i)]));
  }
  if (ins.empty()) return ctx.Invalid(n, "needs at least one input");
  if (since >= 4 && !FindAttr(n, "axis")) return ctx.Invalid(n, "attribute 'axis' is required");
  int64_t axis = AttrInt(n, "axis", 1);
  const int64_t rank = static_cast<int64_t>(ctx.graph().value(ins[0]).shape.size());
  LOOM_RETURN_IF_ERROR(ctx.NormalizeAxis(n, "axis", rank, &axis));
  ir::AttributeMap attrs;
  attrs["axis"] = Attribute::Int(axis);
  return ctx.Emit(n, "Concat", ins, std::move(attrs));
}

Status MapPad(ImportContext& ctx, const onnx::NodeProto& n, int since) {
  ir::ValueId x;
  LOOM_RETURN_IF_ERROR(ctx.Input(n, 0, &x));
  const std::string mode = AttrString(n, "mode", "constant");
  if (mode != "constant" && mode != "reflect" && mode != "edge") {
    return ctx.Unsupported(n, "mode=" + mode + " is not supported");
  }
  std::vector<int64_t> pads;
  float value = 0.0f;
  if (since < 11) {
    pads = AttrInts(n, "pads");
    value = AttrFloat(n, "value", 0.0f);
  } else {
    const ir::Tensor* p = ctx.ConstantInput(n, 1);
    if (p == nullptr) return ctx.Unsupported(n, "pads (input 1) must be a constant");
    if (p->dtype() != DType::kI64) return ctx.Invalid(n, "pads must be int64");
    pads.assign(p->data<int64_t>(), p->data<int64_t>() + p->num_elements());
    if (ctx.HasInput(n, 2)) {
      const ir::Tensor* v = ctx.ConstantInput(n, 2);
      if (v == nullptr) return ctx.Unsupported(n, "constant_value (input 2) must be a constant");
      if (v->num_elements() != 1) return ctx.Invalid(n, "constant_value must be a scalar");
      const double d = v->ElementAsDouble(0);
      value = static_cast<float>(d);
      if (static_cast<double>(value) != d) {
        return ctx.Unsupported(
            n, "constant_value " + std::to_string(d) + " is not exactly representable as float32");
      }
    }
  }
  ir::AttributeMap attrs;
  attrs["mode"] = Attribute::String(mode);
  attrs["pads"] = Attribute::Ints(pads);
  attrs["value"] = Attribute::Float(value);
  return ctx.Emit(n, "Pad", {x}, std::move(attrs));
}

Status MapSoftmax(ImportContext& ctx, const onnx::NodeProto& n, int since) {
  ir::ValueId x;
  LOOM_RETURN_IF_ERROR(ctx.Input(n, 0, &x));
  const ir::Shape s = ctx.graph().value(x).shape;
  const int64_t rank = static_cast<int64_t>(s.size());
  int64_t axis = AttrInt(n, "axis", since >= 13 ? -1 : 1);
  LOOM_RETURN_IF_ERROR(ctx.NormalizeAxis(n, "axis", rank, &axis));
  ir::AttributeMap attrs;
  if (since >= 13 || axis == rank - 1) {
    // Same result under both semantics when the axis is the last one.
    attrs["axis"] = Attribute::Int(axis);
    return ctx.Emit(n, n.op_type(), {x}, std::move(attrs));
  }
  // Softmax < 13 normalizes over all dims from `axis` on, as one flattened row.
  const size_t ax = static_cast<size_t>(axis);
  ir::AttributeMap to_2d, softmax, back;
  to_2d["shape"] = Attribute::Ints({Product(s, 0, ax), Product(s, ax, s.size())});
  softmax["axis"] = Attribute::Int(1);
  back["shape"] = Attribute::Ints(s);
  ir::ValueId flat, normed;
  LOOM_RETURN_IF_ERROR(ctx.EmitInternal(n, "Reshape", {x}, std::move(to_2d), "flatten", &flat));
  LOOM_RETURN_IF_ERROR(
      ctx.EmitInternal(n, n.op_type(), {flat}, std::move(softmax), "softmax", &normed));
  return ctx.Emit(n, "Reshape", {normed}, std::move(back));
}

Status MapIdentity(ImportContext& ctx, const onnx::NodeProto& n, int) {
  ir::ValueId x;
  LOOM_RETURN_IF_ERROR(ctx.Input(n, 0, &x));
  return ctx.Emit(n, "Identity", {x}, {});
}

Status MapDropout(ImportContext& ctx, const onnx::NodeProto& n, int since) {
  ir::ValueId x;
  LOOM_RETURN_IF_ERROR(ctx.Input(n, 0, &x));
  if (since < 7 && AttrInt(n, "is_test", 0) == 0) {
    return ctx.Unsupported(n, "is_test=0 (training-mode dropout) is not supported");
  }
  if (since >= 12 && ctx.HasInput(n, 2)) {
    const ir::Tensor* training = ctx.ConstantInput(n, 2);
    if (training == nullptr) return ctx.Unsupported(n, "training_mode must be a constant");
    if (training->ElementAsDouble(0) != 0.0) {
      // Training mode is random unless nothing is dropped.
      const ir::Tensor* ratio = ctx.ConstantInput(n, 1);
      if (!ctx.HasInput(n, 1) || ratio == nullptr || ratio->ElementAsDouble(0) != 0.0) {
        return ctx.Unsupported(n,
                               "training_mode=true with a non-zero ratio is not supported "
                               "(random output)");
      }
    }
  }
  return ctx.Emit(n, "Dropout", {x}, {}, {0, 1});
}

Status MapConstant(ImportContext& ctx, const onnx::NodeProto& n, int) {
  if (n.output_size() != 1 || n.output(0).empty()) return ctx.Invalid(n, "needs one output");
  if (ctx.Lookup(n.output(0)) != ir::kNoValue) {
    return ctx.Invalid(n, "output '" + n.output(0) + "' is already defined");
  }
  ir::Tensor t;
  if (const onnx::AttributeProto* a = FindAttr(n, "value")) {
    LOOM_RETURN_IF_ERROR(TensorFromProto(a->t(), &t).WithContext(ctx.Label(n)));
  } else if ((a = FindAttr(n, "value_float"))) {
    t = F32Scalar(a->f());
  } else if ((a = FindAttr(n, "value_floats"))) {
    t = ir::Tensor::FromVector<float>(DType::kF32, {a->floats_size()},
                                      std::vector<float>(a->floats().begin(), a->floats().end()));
  } else if ((a = FindAttr(n, "value_int"))) {
    t = ir::Tensor::FromVector<int64_t>(DType::kI64, {}, {a->i()});
  } else if ((a = FindAttr(n, "value_ints"))) {
    t = ir::Tensor::FromVector<int64_t>(DType::kI64, {a->ints_size()},
                                        std::vector<int64_t>(a->ints().begin(), a->ints().end()));
  } else {
    return ctx.Invalid(n, "has no value attribute");
  }
  ctx.Bind(n.output(0), ctx.AddConstant(n.output(0), std::move(t)));
  return Status::Ok();
}

namespace {

// The core table; families with a table of their own are appended in OpMappers().
const std::vector<OpMapper>& CoreOpMappers() {
  // op, first schema version with the semantics mapped, attributes understood, inputs that must
  // be constants, mapper.
  static const std::vector<OpMapper> table = {
      {"Conv",
       1,
       {"auto_pad", "dilations", "group", "kernel_shape", "pads", "strides"},
       {},
       MapConv},
      {"ConvInteger",
       10,
       {"auto_pad", "dilations", "group", "kernel_shape", "pads", "strides"},
       {},
       MapConvInteger},
      {"QLinearConv",
       10,
       {"auto_pad", "dilations", "group", "kernel_shape", "pads", "strides"},
       {},
       MapQLinearConv},
      {"Gemm", 6, {"alpha", "beta", "transA", "transB", "broadcast"}, {}, MapGemm},
      {"MatMul", 1, {}, {}, MapMatMul},
      {"MatMulInteger", 10, {}, {}, MapMatMulInteger},
      {"QLinearMatMul", 10, {}, {}, MapQLinearMatMul},
      {"BatchNormalization",
       6,
       {"epsilon", "momentum", "spatial", "is_test", "training_mode"},
       {},
       MapBatchNorm},
      {"Relu", 6, {}, {}, MapUnary},
      {"Sigmoid", 6, {}, {}, MapUnary},
      {"LeakyRelu", 6, {"alpha"}, {}, MapLeakyRelu},
      {"Clip", 6, {"min", "max"}, {}, MapClip},
      {"Add", 6, {"broadcast", "axis"}, {}, MapBinary},
      {"Sub", 6, {"broadcast", "axis"}, {}, MapBinary},
      {"Mul", 6, {"broadcast", "axis"}, {}, MapBinary},
      {"MaxPool",
       1,
       {"auto_pad", "ceil_mode", "dilations", "kernel_shape", "pads", "storage_order", "strides"},
       {},
       MapMaxPool},
      {"AveragePool",
       1,
       {"auto_pad", "ceil_mode", "count_include_pad", "kernel_shape", "pads", "strides"},
       {},
       MapAveragePool},
      {"GlobalAveragePool", 1, {}, {}, MapGlobalAveragePool},
      {"Flatten", 1, {"axis"}, {}, MapFlatten},
      {"Reshape", 5, {"allowzero"}, {1}, MapReshape},
      {"Transpose", 1, {"perm"}, {}, MapTranspose},
      {"Concat", 1, {"axis"}, {}, MapConcat},
      {"Pad", 2, {"mode", "pads", "value"}, {1, 2}, MapPad},
      {"Softmax", 1, {"axis"}, {}, MapSoftmax},
      {"Identity", 1, {}, {}, MapIdentity},
      {"Dropout", 6, {"is_test", "ratio", "seed"}, {1, 2}, MapDropout},
      {"Constant",
       1,
       {"value", "value_float", "value_floats", "value_int", "value_ints"},
       {},
       MapConstant},
      {"QuantizeLinear", 10, {"axis"}, {}, MapQuantizeLinear},
      {"DequantizeLinear", 10, {"axis"}, {}, MapDequantizeLinear},
      // --- element types, casts, shape and indexing (onnx_ops_shape.cc) ---
      // Cast-1 named the target by string; `saturate` (19) only affects float8, which Loom refuses.
      {"Cast", 6, {"to", "saturate"}, {}, MapCast},
      {"CastLike", 15, {"saturate"}, {}, MapCastLike},
      // Vision and normalization family (onnx_ops_vision.cc).
      {"ConvTranspose",
       1,
       {"auto_pad", "dilations", "group", "kernel_shape", "output_padding", "output_shape", "pads",
        "strides"},
       {},
       MapConvTranspose},
      {"Resize",
       10,
       {"antialias", "axes", "coordinate_transformation_mode", "cubic_coeff_a", "exclude_outside",
        "extrapolation_value", "keep_aspect_ratio_policy", "mode", "nearest_mode"},
       {1, 2, 3},
       MapResize},
      {"Upsample", 7, {"mode", "scales"}, {1}, MapResize},
      {"LayerNormalization", 17, {"axis", "epsilon", "stash_type"}, {}, MapLayerNorm},
      {"InstanceNormalization", 6, {"epsilon"}, {}, MapInstanceNorm},
      {"LRN", 1, {"alpha", "beta", "bias", "size"}, {}, MapLrn},
      {"GlobalMaxPool", 1, {}, {}, MapGlobalMaxPool},
      // Reduction family (onnx_ops_reduce.cc). Axes, k and CumSum's axis as inputs must be
      // constants (static inputs).
      {"ReduceSum", 1, {"axes", "keepdims", "noop_with_empty_axes"}, {1}, MapReduce},
      {"ReduceMean", 1, {"axes", "keepdims", "noop_with_empty_axes"}, {1}, MapReduce},
      {"ReduceMax", 1, {"axes", "keepdims", "noop_with_empty_axes"}, {1}, MapReduce},
      {"ReduceMin", 1, {"axes", "keepdims", "noop_with_empty_axes"}, {1}, MapReduce},
      {"ReduceProd", 1, {"axes", "keepdims", "noop_with_empty_axes"}, {1}, MapReduce},
      {"ReduceL1", 1, {"axes", "keepdims", "noop_with_empty_axes"}, {1}, MapReduce},
      {"ReduceL2", 1, {"axes", "keepdims", "noop_with_empty_axes"}, {1}, MapReduce},
      {"ReduceLogSum", 1, {"axes", "keepdims", "noop_with_empty_axes"}, {1}, MapReduce},
      {"ReduceLogSumExp", 1, {"axes", "keepdims", "noop_with_empty_axes"}, {1}, MapReduce},
      {"ReduceSumSquare", 1, {"axes", "keepdims", "noop_with_empty_axes"}, {1}, MapReduce},
      {"ArgMax", 1, {"axis", "keepdims", "select_last_index"}, {}, MapArgReduce},
      {"ArgMin", 1, {"axis", "keepdims", "select_last_index"}, {}, MapArgReduce},
      {"LogSoftmax", 1, {"axis"}, {}, MapSoftmax},
      {"Hardmax", 1, {"axis"}, {}, MapSoftmax},
      {"CumSum", 11, {"exclusive", "reverse"}, {1}, MapCumSum},
      {"TopK", 1, {"axis", "k", "largest", "sorted"}, {1}, MapTopK},
      {"NegativeLogLikelihoodLoss", 12, {"ignore_index", "reduction"}, {}, MapNllLoss},
      {"SoftmaxCrossEntropyLoss",
       12,
       {"ignore_index", "reduction"},
       {},
       MapSoftmaxCrossEntropyLoss},
      {"MeanVarianceNormalization", 9, {"axes"}, {}, MapMeanVarianceNorm},
      {"Einsum", 12, {"equation"}, {}, MapEinsum},
  };
  return table;
}

}  // namespace

const std::vector<OpMapper>& OpMappers() {
  static const std::vector<OpMapper> all = [] {
    std::vector<OpMapper> t = CoreOpMappers();
    for (const std::vector<OpMapper>* family :
         {&MathOpMappers(), &IndexOpMappers(), &SeqOpMappers(), &Vision2OpMappers()}) {
      t.insert(t.end(), family->begin(), family->end());
    }
    return t;
  }();
  return all;
}

const OpMapper* FindOpMapper(const std::string& op) {
  for (const OpMapper& m : OpMappers()) {
    if (op == m.op) return &m;
  }
  return nullptr;
}

}  // namespace loom::frontend
