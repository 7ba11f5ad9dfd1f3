// The op table. One row per op: arity, attributes, shape function, one-line summary.
#include "compiler/ir/op_registry.h"

#include "compiler/ir/op_registry_internal.h"
#include "compiler/ir/shape_functions.h"

namespace loom::ir {
namespace internal {
namespace {

// In namespace internal, where the rows' shared attribute specs are.
std::vector<OpDef> BuildTable() {
  // Set by first-layer packing on the convolution it packs: the source layer's MACs, which
  // reports count instead of the packed layer's zero taps (the quantizer carries it on).
  const AttrSpec source_macs{"source_macs", K::kInt, false, 1, INT64_MAX};
  std::vector<OpDef> table = {
      // name, inputs min/max, outputs min/max, attributes, shape function, summary
      {"Conv",
       2,
       3,
       1,
       1,
       {kStrides, kPads, kDilations, kGroup, kActivation, kClipMin, kClipMax, source_macs},
       shape::Conv,
       "N-D float convolution (x, w, bias?) with optional fused activation"},
      {"ConvInteger",
       2,
       4,
       1,
       1,
       {kStrides, kPads, kDilations, kGroup},
       shape::ConvInteger,
       "u8/i8 convolution with zero points to i32 (x, w, x_zp?, w_zp?)"},
      {"QLinearConv",
       8,
       9,
       1,
       1,
       {kStrides, kPads, kDilations, kGroup},
       shape::QLinearConv,
       "quantized convolution (x, xs, xzp, w, ws, wzp, ys, yzp, bias?)"},
      {"Gemm",
       2,
       3,
       1,
       1,
       {{"alpha", K::kFloat, true},
        {"beta", K::kFloat, true},
        {"transA", K::kInt, true},
        {"transB", K::kInt, true},
        kActivation,
        kClipMin,
        kClipMax},
       shape::Gemm,
       "alpha * op(A) * op(B) + beta * C with optional fused activation"},
      {"MatMul", 2, 2, 1, 1, {}, shape::MatMul, "numpy matmul on f32"},
      {"MatMulInteger",
       2,
       4,
       1,
       1,
       {},
       shape::MatMulInteger,
       "u8/i8 matmul with zero points to i32 (a, b, a_zp?, b_zp?)"},
      {"QLinearMatMul",
       8,
       8,
       1,
       1,
       {},
       shape::QLinearMatMul,
       "quantized matmul (a, as, azp, b, bs, bzp, ys, yzp)"},
      {"BatchNormalization",
       5,
       5,
       1,
       1,
       {{"epsilon", K::kFloat, true}},
       shape::BatchNormalization,
       "inference batch norm (x, scale, bias, mean, var)"},
      {"Relu", 1, 1, 1, 1, {}, shape::Relu, "max(x, 0)"},
      {"LeakyRelu",
       1,
       1,
       1,
       1,
       {{"alpha", K::kFloat, true}},
       shape::FloatUnary,
       "x >= 0 ? x : alpha * x"},
      {"Sigmoid", 1, 1, 1, 1, {}, shape::FloatUnary, "1 / (1 + exp(-x))"},
      {"Clip", 1, 3, 1, 1, {}, shape::Clip, "clamp x to [min?, max?] (scalar inputs)"},
      {"Add",
       2,
       2,
       1,
       1,
       {kActivation, kClipMin, kClipMax},
       shape::Binary,
       "a + b, numpy broadcasting, optional fused activation"},
      {"Sub", 2, 2, 1, 1, {}, shape::Binary, "a - b, numpy broadcasting"},
      {"Mul", 2, 2, 1, 1, {}, shape::Binary, "a * b, numpy broadcasting"},
      {"MaxPool",
       1,
       1,
       1,
       2,
       {kKernelShape, kStrides, kPads, kDilations, kCeilMode, {"storage_order", K::kInt, true}},
       shape::MaxPool,
       "N-D max pooling (y, indices?)"},
      {"AveragePool",
       1,
       1,
       1,
       1,
       {kKernelShape, kStrides, kPads, kCeilMode, {"count_include_pad", K::kInt, true}},
       shape::AveragePool,
       "N-D average pooling"},
      {"GlobalAveragePool", 1, 1, 1, 1, {}, shape::GlobalAveragePool, "mean over spatial dims"},
      {"Reshape",
       1,
       1,
       1,
       1,
       {{"shape", K::kInts, true}},
       shape::Reshape,
       "same data, resolved target shape (also Flatten)"},
      {"Transpose", 1, 1, 1, 1, {{"perm", K::kInts, true}}, shape::Transpose, "permute dims"},
      {"Concat", 1, -1, 1, 1, {{"axis", K::kInt, true}}, shape::Concat, "join along axis"},
      {"Pad",
       1,
       1,
       1,
       1,
       {{"mode", K::kString, true}, {"pads", K::kInts, true}, {"value", K::kFloat, true}},
       shape::Pad,
       "constant/reflect/edge padding; negative pads crop"},
      {"Softmax",
       1,
       1,
       1,
       1,
       {{"axis", K::kInt, true}},
       shape::Softmax,
       "softmax along axis (opset-13 semantics)"},
      {"Identity", 1, 1, 1, 1, {}, shape::Identity, "y = x"},
      {"Dropout", 1, 1, 1, 2, {}, shape::Dropout, "inference dropout: y = x, mask = true"},
      {"QuantizeLinear",
       3,
       3,
       1,
       1,
       {{"axis", K::kInt, false}},
       shape::QuantizeLinear,
       "saturate(round(x / scale) + zp) (x, scale, zp)"},
      {"DequantizeLinear",
       3,
       3,
       1,
       1,
       {{"axis", K::kInt, false}},
       shape::DequantizeLinear,
       "(x - zp) * scale (x, scale, zp)"},
      // --- element types, casts, shape and indexing (shape_functions_shape.cc) ---
      {"Cast",
       1,
       1,
       1,
       1,
       {{"to", K::kString, true}},
       shape::Cast,
       "elementwise conversion to dtype `to` (ONNX Cast; CastLike imports as this)"},
      // --- the quantized graph (compiler/quantize; runtime/kernels/int8/qops.h semantics; names
      // and attributes mirror runtime/schema/loom_package.fbs one to one) ---
      {"q.conv2d",
       2,  // bias (input 2) is optional, mult (input 3) is not: checked by the shape function
       4,
       1,
       1,
       {{"kernel", K::kInts, true},
        kStrides,
        kPads,
        {"depthwise", K::kInt, true},
        {"group", K::kInt, false, 1, UINT32_MAX},
        {"pad_value", K::kInt, false, -128, 127},
        kPreShift,
        kPostShift,
        kClipLo,
        kClipHi,
        source_macs},
       shape::QConv2d,
       "int8 conv (x, w i8 [O,C/group,KH,KW] or depthwise [C,1,KH,KW], bias i32 [O]?, mult i32 "
       "[O]) with requantization; padding reads pad_value (x's zero point)"},
      {"q.add",
       2,
       2,
       1,
       1,
       {{"mult_a", K::kInt, true, kImmLo, kImmHi},
        {"mult_b", K::kInt, true, kImmLo, kImmHi},
        {"shift", K::kInt, true, -31, 31},
        kClipLo,
        kClipHi},
       shape::QAdd,
       "int8 a * mult_a + b * mult_b, rounding shift, clip"},
      {"q.mul",
       2,
       2,
       1,
       1,
       {{"mult", K::kInt, true, kImmLo, kImmHi},
        {"b_mult", K::kInt, true, kImmLo, kImmHi},
        {"b_offset", K::kInt, true, kImmLo, kImmHi},
        {"b_lo", K::kInt, true, kImmLo, kImmHi},
        {"b_hi", K::kInt, true, kImmLo, kImmHi},
        {"a_offset", K::kInt, false, -255, 255},
        {"out_offset", K::kInt, false, -255, 255},
        kPreShift,
        kPostShift,
        kClipLo,
        kClipHi},
       shape::QMul,
       "int8 (a + a_offset) * clamp(b * b_mult + b_offset, b_lo, b_hi) requantized, plus "
       "out_offset "
       "(b same shape or [N,C,1,1])"},
      {"q.max_pool",
       1,
       1,
       1,
       1,
       {{"kernel", K::kInts, true}, kStrides, kPads},
       shape::QMaxPool,
       "int8 max pooling, same scale in and out"},
      {"q.avg_pool",
       2,
       2,
       1,
       1,
       {{"kernel", K::kInts, true},
        kStrides,
        kPads,
        {"count_include_pad", K::kInt, true},
        {"x_offset", K::kInt, false, -255, 255},
        {"out_offset", K::kInt, false, -255, 255},
        kPreShift,
        kPostShift,
        kClipLo,
        kClipHi},
       shape::QAvgPool,
       "int8 average pooling (x, mult_by_count i32 [kh*kw])"},
      {"q.resize",
       1,
       1,
       1,
       1,
       {{"factor_h", K::kInt, true, 1, UINT32_MAX}, {"factor_w", K::kInt, true, 1, UINT32_MAX}},
       shape::QResize,
       "int8 nearest-neighbour upsampling by integer factors, same scale in and out"},
      {"q.zero_insert",
       1,
       1,
       1,
       1,
       {{"stride_h", K::kInt, true}, {"stride_w", K::kInt, true}},
       shape::QZeroInsert,
       "int8 zero insertion (x at (sh*i, sw*j), 0 elsewhere; output H*sh x W*sw), same scale: "
       "the input of a ConvTranspose run as a stride-1 q.conv2d"},
      {"q.concat",
       1,
       -1,
       1,
       1,
       {{"mults", K::kInts, true, kImmLo, kImmHi}, {"shifts", K::kInts, true, -31, 31}},
       shape::QConcat,
       "int8 channel concatenation, each input rescaled to the output scale"},
      {"q.quantize", 1, 1, 1, 1, {}, shape::QQuantize, "f32 -> i8 with the output's scale"},
      {"q.dequantize", 1, 1, 1, 1, {}, shape::QDequantize, "i8 (any layout) -> f32 plain"},
      {"q.relayout",
       1,
       1,
       1,
       1,
       {{"shape", K::kInts, false}},
       shape::QRelayout,
       "i8 blocked <-> plain, or a reshape (shape) of plain i8 data"},
      // Vision and normalization family (shape_functions_vision.cc).
      {"ConvTranspose",
       2,
       3,
       1,
       1,
       {kStrides,
        kPads,
        kDilations,
        kGroup,
        {"output_padding", K::kInts, true},
        kActivation,
        kClipMin,
        kClipMax},
       shape::ConvTranspose,
       "N-D float transposed convolution (x, w [C, M/group, K...], bias?)"},
      {"Resize",
       1,
       1,
       1,
       1,
       {{"mode", K::kInt, true},
        {"coordinate_transformation_mode", K::kInt, true},
        {"nearest_mode", K::kInt, true},
        {"cubic_coeff_a", K::kFloat, true},
        {"exclude_outside", K::kInt, true},
        {"extrapolation_value", K::kFloat, true},
        {"sizes", K::kInts, true},
        {"scales", K::kFloats, false},
        {"roi", K::kFloats, false}},
       shape::Resize,
       "nearest/linear/cubic resize to `sizes` (also Upsample); modes as codes, docs/compiler.md"},
      {"LayerNormalization",
       2,
       3,
       1,
       3,
       {{"axis", K::kInt, true}, {"epsilon", K::kFloat, true}},
       shape::LayerNormalization,
       "normalize over dims [axis, rank) (x, scale, bias?) -> y, mean?, inv_std_dev?"},
      {"InstanceNormalization",
       3,
       3,
       1,
       1,
       {{"epsilon", K::kFloat, true}},
       shape::InstanceNormalization,
       "normalize each [n, c] plane (x, scale [C], bias [C])"},
      {"LRN",
       1,
       1,
       1,
       1,
       {{"size", K::kInt, true},
        {"alpha", K::kFloat, true},
        {"beta", K::kFloat, true},
        {"bias", K::kFloat, true}},
       shape::Lrn,
       "local response normalization across channels"},
      {"GlobalMaxPool", 1, 1, 1, 1, {}, shape::GlobalMaxPool, "max over spatial dims"},
  };
  AppendFamilyOps(&table);
  return table;
}

}  // namespace
}  // namespace internal

namespace {

using K = Attribute::Kind;

}  // namespace

const std::vector<OpDef>& AllOps() {
  static const std::vector<OpDef> table = internal::BuildTable();
  return table;
}

const OpDef* FindOp(std::string_view name) {
  for (const OpDef& def : AllOps()) {
    if (name == def.name) return &def;
  }
  return nullptr;
}

Status InferContext::Error(const std::string& message) const {
  return InvalidArgument(NodeLabel(graph_, node_) + ": " + message);
}

Status CheckNodeSignature(const Graph& g, const Node& n) {
  const OpDef* def = FindOp(n.op);
  if (def == nullptr) return InvalidArgument(NodeLabel(g, n) + ": unknown op '" + n.op + "'");
  const int ins = static_cast<int>(n.inputs.size());
  const int outs = static_cast<int>(n.outputs.size());
  if (ins < def->min_inputs || (def->max_inputs >= 0 && ins > def->max_inputs)) {
    return InvalidArgument(
        NodeLabel(g, n) + ": has " + std::to_string(ins) + " inputs, expected " +
        std::to_string(def->min_inputs) +
        (def->max_inputs < 0 ? " or more" : ".." + std::to_string(def->max_inputs)));
  }
  for (int i = 0; i < def->min_inputs; ++i) {
    if (!n.has_input(static_cast<size_t>(i))) {
      return InvalidArgument(NodeLabel(g, n) + ": required input " + std::to_string(i) +
                             " is missing");
    }
  }
  if (outs < def->min_outputs || outs > def->max_outputs) {
    return InvalidArgument(NodeLabel(g, n) + ": has " + std::to_string(outs) +
                           " outputs, expected " + std::to_string(def->min_outputs) + ".." +
                           std::to_string(def->max_outputs));
  }
  for (const AttrSpec& spec : def->attrs) {
    const Attribute* a = n.FindAttr(spec.name);
    if (a == nullptr) {
      if (spec.required) {
        return InvalidArgument(NodeLabel(g, n) + ": missing attribute '" + spec.name + "'");
      }
      continue;
    }
    if (a->kind() != spec.kind) {
      return InvalidArgument(NodeLabel(g, n) + ": attribute '" + spec.name + "' is " +
                             AttributeKindName(a->kind()) + ", expected " +
                             AttributeKindName(spec.kind));
    }
    if (a->kind() != K::kInt && a->kind() != K::kInts) continue;
    const std::vector<int64_t> one = {a->i()};
    const std::vector<int64_t>& values = a->kind() == K::kInts ? a->ints() : one;
    for (size_t i = 0; i < values.size(); ++i) {
      if (values[i] < spec.lo || values[i] > spec.hi) {
        return InvalidArgument(
            NodeLabel(g, n) + ": attribute '" + spec.name + "'" +
            (a->kind() == K::kInts ? "[" + std::to_string(i) + "]" : std::string()) + " = " +
            std::to_string(values[i]) + " is outside [" + std::to_string(spec.lo) + ", " +
            std::to_string(spec.hi) + "], what the package and the accelerator hold");
      }
    }
  }
  for (const auto& [name, attr] : n.attrs) {
    // Every op may carry the partitioner's placement (compiler/partition).
    if (name == kTargetAttr) {
      if (attr.kind() != K::kString || (attr.s() != "accel" && attr.s() != "cpu")) {
        return InvalidArgument(NodeLabel(g, n) + ": attribute 'target' must be \"accel\" or \"cpu\"");
      }
      continue;
    }
    bool known = false;
    for (const AttrSpec& spec : def->attrs) known = known || name == spec.name;
    if (!known) {
      return InvalidArgument(NodeLabel(g, n) + ": unexpected attribute '" + name + "'");
    }
  }
  return Status::Ok();
}

Status InferOutputTypes(const Graph& g, const Node& n, std::vector<ValueType>* out) {
  LOOM_RETURN_IF_ERROR(CheckNodeSignature(g, n));
  for (ValueId in : n.inputs) {
    if (in != kNoValue && (!g.IsValid(in) || g.value(in).dtype == DType::kUndefined)) {
      return InvalidArgument(NodeLabel(g, n) + ": an input has no type yet");
    }
  }
  out->assign(n.outputs.size(), ValueType{});
  InferContext ctx(g, n, out);
  LOOM_RETURN_IF_ERROR(FindOp(n.op)->infer(ctx));
  for (size_t i = 0; i < out->size(); ++i) {
    if ((*out)[i].dtype == DType::kUndefined) {
      return Internal(NodeLabel(g, n) + ": shape function left output " + std::to_string(i) +
                      " untyped");
    }
    // Bounded inputs can still give an unbounded output (a broadcast, a pad, a concat), and every
    // pass, the interpreter and the lowering trust a verified value's element count.
    int64_t count = 0;
    if (Status s = NumElements((*out)[i].shape, &count); !s.ok()) {
      const ValueId id = n.outputs[i];
      return InvalidArgument(NodeLabel(g, n) + ": output " + std::to_string(i) +
                             (g.IsValid(id) ? " %" + g.value(id).name() : "") + ": " + s.message());
    }
  }
  return Status::Ok();
}

Status InferAndUpdateNode(Graph& g, const Node& n) {
  std::vector<ValueType> types;
  LOOM_RETURN_IF_ERROR(InferOutputTypes(g, n, &types));
  for (size_t i = 0; i < types.size(); ++i) {
    Value& v = g.value(n.outputs[i]);
    v.dtype = types[i].dtype;
    v.shape = std::move(types[i].shape);
  }
  return Status::Ok();
}

}  // namespace loom::ir
