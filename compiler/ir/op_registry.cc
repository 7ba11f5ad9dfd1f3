// The op table. One row per op: arity, attributes, shape function, one-line summary.
#include "compiler/ir/op_registry.h"

#include "compiler/ir/shape_functions.h"

namespace loom::ir {
namespace {

using K = Attribute::Kind;

// Attribute groups shared by several rows.
const AttrSpec kStrides{"strides", K::kInts, true};
const AttrSpec kPads{"pads", K::kInts, true};
const AttrSpec kDilations{"dilations", K::kInts, true};
const AttrSpec kGroup{"group", K::kInt, true};
const AttrSpec kKernelShape{"kernel_shape", K::kInts, true};
const AttrSpec kCeilMode{"ceil_mode", K::kInt, true};
// Fused activation epilogue (set by the fusion pass).
const AttrSpec kActivation{"activation", K::kString, false};
const AttrSpec kClipMin{"clip_min", K::kFloat, false};
const AttrSpec kClipMax{"clip_max", K::kFloat, false};
// Integer requantization (q.* ops).
const AttrSpec kPreShift{"pre_shift", K::kInt, true};
const AttrSpec kPostShift{"post_shift", K::kInt, true};
const AttrSpec kClipLo{"clip_lo", K::kInt, true};
const AttrSpec kClipHi{"clip_hi", K::kInt, true};
// Reduction family.
const AttrSpec kAxis{"axis", K::kInt, true};
const AttrSpec kAxes{"axes", K::kInts, true};
const AttrSpec kKeepDims{"keepdims", K::kInt, true};
const AttrSpec kSelectLast{"select_last_index", K::kInt, true};
const AttrSpec kReduction{"reduction", K::kString, true};  // none | sum | mean
const AttrSpec kIgnoreIndex{"ignore_index", K::kInt, false};

std::vector<OpDef> BuildTable() {
  return {
      // name, inputs min/max, outputs min/max, attributes, shape function, summary
      {"Conv",
       2,
       3,
       1,
       1,
       {kStrides, kPads, kDilations, kGroup, kActivation, kClipMin, kClipMax},
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
        kPreShift,
        kPostShift,
        kClipLo,
        kClipHi},
       shape::QConv2d,
       "int8 conv (x, w i8 OIHW or [C,1,KH,KW], bias i32 [O]?, mult i32 [O]) with requantization"},
      {"q.add",
       2,
       2,
       1,
       1,
       {{"mult_a", K::kInt, true},
        {"mult_b", K::kInt, true},
        {"shift", K::kInt, true},
        kClipLo,
        kClipHi},
       shape::QAdd,
       "int8 a * mult_a + b * mult_b, rounding shift, clip"},
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
        kPreShift,
        kPostShift,
        kClipLo,
        kClipHi},
       shape::QAvgPool,
       "int8 average pooling (x, mult_by_count i32 [kh*kw])"},
      {"q.concat",
       1,
       -1,
       1,
       1,
       {{"mults", K::kInts, true}, {"shifts", K::kInts, true}},
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
       {kStrides, kPads, kDilations, kGroup, {"output_padding", K::kInts, true}},
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
      // Detection/vision family (shape_functions_vision2.cc). Codes as in kernels_vision2.h; the
      // data-dependent lengths (rows, count) are fixed at import.
      {"GridSample",
       2,
       2,
       1,
       1,
       {{"mode", K::kInt, true}, {"padding_mode", K::kInt, true}, {"align_corners", K::kInt, true}},
       shape::GridSample,
       "sample x [N, C, H, W] at grid [N, Ho, Wo, 2]; nearest/linear/cubic, zeros/border/reflect"},
      {"RoiAlign",
       3,
       3,
       1,
       1,
       {{"mode", K::kInt, true},
        {"half_pixel", K::kInt, true},
        {"output_height", K::kInt, true},
        {"output_width", K::kInt, true},
        {"sampling_ratio", K::kInt, true},
        {"spatial_scale", K::kFloat, true}},
       shape::RoiAlign,
       "avg/max pooled bilinear samples of regions (x, rois [R, 4], batch_indices [R])"},
      {"NonMaxSuppression",
       2,
       2,
       1,
       1,
       {{"center_point_box", K::kInt, true},
        {"max_output_boxes_per_class", K::kInt, true},
        {"iou_threshold", K::kFloat, true},
        {"score_threshold", K::kFloat, true},
        {"has_score_threshold", K::kInt, true},
        {"rows", K::kInt, true}},
       shape::NonMaxSuppression,
       "greedy per-class box selection (boxes, scores) -> [rows, 3] (batch, class, box)"},
      {"BatchNormalizationTraining",
       5,
       5,
       1,
       3,
       {{"epsilon", K::kFloat, true}, {"momentum", K::kFloat, true}},
       shape::BatchNormalizationTraining,
       "BatchNormalization training_mode=1: batch statistics -> y, running_mean?, running_var?"},
      {"Unique",
       1,
       1,
       1,
       4,
       {{"axis", K::kInt, true}, {"sorted", K::kInt, true}, {"count", K::kInt, true}},
       shape::Unique,
       "distinct slices along axis (-1: elements) -> y, indices?, inverse?, counts?"},
      // Reduction family (shape_functions_reduce.cc). axes: sorted, non-negative, non-empty (the
      // importer turns a no-op reduction into Identity).
      {"ReduceSum", 1, 1, 1, 1, {kAxes, kKeepDims}, shape::Reduce, "sum over axes"},
      {"ReduceMean", 1, 1, 1, 1, {kAxes, kKeepDims}, shape::Reduce, "mean over axes"},
      {"ReduceMax", 1, 1, 1, 1, {kAxes, kKeepDims}, shape::Reduce, "maximum over axes"},
      {"ReduceMin", 1, 1, 1, 1, {kAxes, kKeepDims}, shape::Reduce, "minimum over axes"},
      {"ReduceProd", 1, 1, 1, 1, {kAxes, kKeepDims}, shape::Reduce, "product over axes"},
      {"ReduceL1", 1, 1, 1, 1, {kAxes, kKeepDims}, shape::Reduce, "sum of |x| over axes"},
      {"ReduceL2", 1, 1, 1, 1, {kAxes, kKeepDims}, shape::Reduce, "sqrt(sum of x^2) over axes"},
      {"ReduceLogSum", 1, 1, 1, 1, {kAxes, kKeepDims}, shape::Reduce, "log(sum) over axes"},
      {"ReduceLogSumExp",
       1,
       1,
       1,
       1,
       {kAxes, kKeepDims},
       shape::Reduce,
       "log(sum(exp)) over axes, max-shifted"},
      {"ReduceSumSquare", 1, 1, 1, 1, {kAxes, kKeepDims}, shape::Reduce, "sum of x^2 over axes"},
      {"ArgMax",
       1,
       1,
       1,
       1,
       {kAxis, kKeepDims, kSelectLast},
       shape::ArgReduce,
       "i64 index of the maximum along axis"},
      {"ArgMin",
       1,
       1,
       1,
       1,
       {kAxis, kKeepDims, kSelectLast},
       shape::ArgReduce,
       "i64 index of the minimum along axis"},
      {"LogSoftmax", 1, 1, 1, 1, {kAxis}, shape::Softmax, "log of softmax along axis (opset 13)"},
      {"Hardmax", 1, 1, 1, 1, {kAxis}, shape::Softmax, "one-hot of the first maximum along axis"},
      {"CumSum",
       1,
       1,
       1,
       1,
       {kAxis, {"exclusive", K::kInt, true}, {"reverse", K::kInt, true}},
       shape::CumSum,
       "running sum along axis (the ONNX axis input as an attribute)"},
      {"TopK",
       1,
       1,
       1,
       2,
       {kAxis, {"k", K::kInt, true}, {"largest", K::kInt, true}, {"sorted", K::kInt, true}},
       shape::TopK,
       "k largest/smallest along axis -> values, i64 indices (k as an attribute)"},
      {"MeanVarianceNormalization",
       1,
       1,
       1,
       1,
       {kAxes},
       shape::MeanVarianceNorm,
       "(x - mean) / (std + 1e-9) over axes"},
      {"Einsum",
       1,
       -1,
       1,
       1,
       {{"labels", K::kInts, true}, {"out_labels", K::kInts, true}},
       shape::Einsum,
       "Einsum with the equation parsed: a label per operand dim (in turn), then y's labels"},
      {"NegativeLogLikelihoodLoss",
       2,
       3,
       1,
       1,
       {kReduction, kIgnoreIndex},
       shape::NllLoss,
       "-x[n, target, d...] * weight[target] (x, target, weight?), reduced"},
      {"SoftmaxCrossEntropyLoss",
       2,
       3,
       1,
       2,
       {kReduction, kIgnoreIndex},
       shape::SoftmaxCrossEntropyLoss,
       "NLL of log-softmax over dim 1 (scores, labels, weight?) -> loss, log_prob?"},
      // --- elementwise math, logic and activations (shape_functions_math.cc; kernels_math.h).
      // Variadic Max/Min/Sum/Mean import as chains of the binary rows. ---
      {"Div", 2, 2, 1, 1, {}, shape::Arith, "a / b, numpy broadcasting (integers truncate)"},
      {"Pow", 2, 2, 1, 1, {}, shape::Pow, "a ^ b; b of any numeric type, y of a's"},
      {"Mod",
       2,
       2,
       1,
       1,
       {{"fmod", K::kInt, true}},
       shape::Mod,
       "remainder: fmod = 0 takes the divisor's sign, 1 the dividend's"},
      {"Max", 2, 2, 1, 1, {}, shape::Arith, "elementwise maximum (NaN wins)"},
      {"Min", 2, 2, 1, 1, {}, shape::Arith, "elementwise minimum (NaN wins)"},
      {"PRelu", 2, 2, 1, 1, {}, shape::PRelu, "x < 0 ? slope * x : x, slope broadcast to x"},
      {"BitShift",
       2,
       2,
       1,
       1,
       {{"direction", K::kInt, true}},
       shape::BitShift,
       "integer shift; direction 0 = left, 1 = right"},
      {"And", 2, 2, 1, 1, {}, shape::Logic, "bool a && b"},
      {"Or", 2, 2, 1, 1, {}, shape::Logic, "bool a || b"},
      {"Xor", 2, 2, 1, 1, {}, shape::Logic, "bool a != b"},
      {"Not", 1, 1, 1, 1, {}, shape::Not, "bool !x"},
      {"Equal", 2, 2, 1, 1, {}, shape::Compare, "a == b -> bool"},
      {"Greater", 2, 2, 1, 1, {}, shape::Compare, "a > b -> bool"},
      {"Less", 2, 2, 1, 1, {}, shape::Compare, "a < b -> bool"},
      {"GreaterOrEqual", 2, 2, 1, 1, {}, shape::Compare, "a >= b -> bool"},
      {"LessOrEqual", 2, 2, 1, 1, {}, shape::Compare, "a <= b -> bool"},
      {"Where", 3, 3, 1, 1, {}, shape::Where, "cond ? a : b, three-way broadcasting"},
      {"IsNaN", 1, 1, 1, 1, {}, shape::FloatClass, "x != x -> bool"},
      {"IsInf",
       1,
       1,
       1,
       1,
       {{"detect_negative", K::kInt, true}, {"detect_positive", K::kInt, true}},
       shape::IsInf,
       "x is +-inf (the signs selected) -> bool"},
      {"Abs", 1, 1, 1, 1, {}, shape::NumericUnary, "|x| (integers wrap)"},
      {"Neg", 1, 1, 1, 1, {}, shape::NumericUnary, "-x (integers wrap)"},
      {"Sign", 1, 1, 1, 1, {}, shape::NumericUnary, "-1, 0 or 1"},
      {"Shrink",
       1,
       1,
       1,
       1,
       {{"lambd", K::kFloat, true}, {"bias", K::kFloat, true}},
       shape::NumericUnary,
       "x < -lambd ? x + bias : x > lambd ? x - bias : 0"},
      {"Ceil", 1, 1, 1, 1, {}, shape::FloatMath, "round up"},
      {"Floor", 1, 1, 1, 1, {}, shape::FloatMath, "round down"},
      {"Round", 1, 1, 1, 1, {}, shape::FloatMath, "round half to even"},
      {"Reciprocal", 1, 1, 1, 1, {}, shape::FloatMath, "1 / x"},
      {"Exp", 1, 1, 1, 1, {}, shape::FloatMath, "e^x"},
      {"Log", 1, 1, 1, 1, {}, shape::FloatMath, "natural logarithm"},
      {"Sqrt", 1, 1, 1, 1, {}, shape::FloatMath, "square root"},
      {"Tanh", 1, 1, 1, 1, {}, shape::FloatMath, "hyperbolic tangent"},
      {"Sin", 1, 1, 1, 1, {}, shape::FloatMath, "sine"},
      {"Cos", 1, 1, 1, 1, {}, shape::FloatMath, "cosine"},
      {"Tan", 1, 1, 1, 1, {}, shape::FloatMath, "tangent"},
      {"Asin", 1, 1, 1, 1, {}, shape::FloatMath, "arcsine"},
      {"Acos", 1, 1, 1, 1, {}, shape::FloatMath, "arccosine"},
      {"Atan", 1, 1, 1, 1, {}, shape::FloatMath, "arctangent"},
      {"Sinh", 1, 1, 1, 1, {}, shape::FloatMath, "hyperbolic sine"},
      {"Cosh", 1, 1, 1, 1, {}, shape::FloatMath, "hyperbolic cosine"},
      {"Asinh", 1, 1, 1, 1, {}, shape::FloatMath, "inverse hyperbolic sine"},
      {"Acosh", 1, 1, 1, 1, {}, shape::FloatMath, "inverse hyperbolic cosine"},
      {"Atanh", 1, 1, 1, 1, {}, shape::FloatMath, "inverse hyperbolic tangent"},
      {"Erf", 1, 1, 1, 1, {}, shape::FloatMath, "error function"},
      {"Softsign", 1, 1, 1, 1, {}, shape::FloatMath, "x / (1 + |x|)"},
      {"Softplus", 1, 1, 1, 1, {}, shape::FloatMath, "log(1 + e^x)"},
      {"HardSwish", 1, 1, 1, 1, {}, shape::FloatMath, "x * max(0, min(1, x / 6 + 0.5))"},
      {"Elu",
       1,
       1,
       1,
       1,
       {{"alpha", K::kFloat, true}},
       shape::FloatMath,
       "x < 0 ? alpha * (e^x - 1) : x"},
      {"Selu",
       1,
       1,
       1,
       1,
       {{"alpha", K::kFloat, true}, {"gamma", K::kFloat, true}},
       shape::FloatMath,
       "gamma * (x <= 0 ? alpha * (e^x - 1) : x)"},
      {"Celu",
       1,
       1,
       1,
       1,
       {{"alpha", K::kFloat, true}},
       shape::FloatMath,
       "max(0, x) + min(0, alpha * (e^(x / alpha) - 1))"},
      {"HardSigmoid",
       1,
       1,
       1,
       1,
       {{"alpha", K::kFloat, true}, {"beta", K::kFloat, true}},
       shape::FloatMath,
       "max(0, min(1, alpha * x + beta))"},
      {"ThresholdedRelu",
       1,
       1,
       1,
       1,
       {{"alpha", K::kFloat, true}},
       shape::FloatMath,
       "x > alpha ? x : 0"},
      // --- shape and indexing family (shape_functions_index.cc). ONNX's Squeeze, Unsqueeze,
      // Split, DepthToSpace, SpaceToDepth and Compress import as Reshape / Slice / Transpose /
      // Gather; index inputs are i32 or i64 and may be negative (kernels_index.h) ---
      {"Slice",
       1,
       1,
       1,
       1,
       {{"starts", K::kInts, true}, {"ends", K::kInts, true}, {"steps", K::kInts, true}},
       shape::Slice,
       "strided window, one resolved start/end/step per dim (steps may be negative)"},
      {"Shape",
       1,
       1,
       1,
       1,
       {{"start", K::kInt, true}, {"end", K::kInt, true}},
       shape::ShapeOf,
       "i64 dims [start, end) of the input's shape"},
      {"Size", 1, 1, 1, 1, {}, shape::SizeOf, "i64 scalar element count of the input"},
      {"Gather",
       2,
       2,
       1,
       1,
       {{"axis", K::kInt, true}},
       shape::Gather,
       "data indexed along axis by every index (data, indices)"},
      {"GatherElements",
       2,
       2,
       1,
       1,
       {{"axis", K::kInt, true}},
       shape::GatherElements,
       "y[i] = data[i with axis coordinate indices[i]] (data, indices)"},
      {"GatherND",
       2,
       2,
       1,
       1,
       {{"batch_dims", K::kInt, true}},
       shape::GatherND,
       "slices of data addressed by index tuples (data, indices)"},
      {"ScatterND",
       3,
       3,
       1,
       1,
       {{"reduction", K::kInt, true}},
       shape::ScatterND,
       "data with slices at index tuples replaced (0), added (1) or multiplied (2)"},
      {"ScatterElements",
       3,
       3,
       1,
       1,
       {{"axis", K::kInt, true}, {"reduction", K::kInt, true}},
       shape::ScatterElements,
       "data with elements along axis replaced (0), added (1) or multiplied (2); also Scatter"},
      {"Expand",
       1,
       1,
       1,
       1,
       {{"shape", K::kInts, true}},
       shape::Expand,
       "broadcast to `shape` (resolved: the output shape)"},
      {"Tile", 1, 1, 1, 1, {{"repeats", K::kInts, true}}, shape::Tile, "repeat along each dim"},
      {"Trilu",
       1,
       1,
       1,
       1,
       {{"upper", K::kInt, true}, {"k", K::kInt, true}},
       shape::Trilu,
       "upper/lower triangle of the last two dims, diagonal offset k"},
      {"Range",
       3,
       3,
       1,
       1,
       {},
       shape::Range,
       "start + i * delta (start, limit, delta: constant scalars)"},
      {"ConstantOfShape",
       2,
       2,
       1,
       1,
       {},
       shape::ConstantOfShape,
       "`value` (one element) repeated over a constant shape (shape, value)"},
      {"EyeLike",
       1,
       1,
       1,
       1,
       {{"k", K::kInt, true}, {"dtype", K::kString, true}},
       shape::EyeLike,
       "2-D identity of the input's shape, diagonal offset k, element type dtype"},
      {"OneHot",
       2,
       2,
       1,
       1,
       {{"axis", K::kInt, true}, {"depth", K::kInt, true}},
       shape::OneHot,
       "one-hot rows of `depth` inserted at axis (indices, values [off, on])"},
      {"NonZero",
       1,
       1,
       1,
       1,
       {},
       shape::NonZero,
       "i64 [rank, count] coordinates of non-zeros (constant input only)"},
      {"ReverseSequence",
       2,
       2,
       1,
       1,
       {{"batch_axis", K::kInt, true}, {"time_axis", K::kInt, true}},
       shape::ReverseSequence,
       "reverse each batch's first sequence_lens[b] steps (x, sequence_lens)"},
      {"MaxUnpool",
       2,
       2,
       1,
       1,
       {{"shape", K::kInts, true}, {"index_shape", K::kInts, true}},
       shape::MaxUnpool,
       "zeros of `shape` with x written where MaxPool's flat indices into `index_shape` point"},
  };
}

}  // namespace

const std::vector<OpDef>& AllOps() {
  static const std::vector<OpDef> table = BuildTable();
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
