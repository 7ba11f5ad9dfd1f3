// Shape functions of the registered ops (one per op, referenced from the op table in
// op_registry.cc) and the helpers they share. Each checks its input types and attribute values
// and sets every output's dtype and shape; errors name the node through InferContext::Error.
#ifndef LOOM_COMPILER_IR_SHAPE_FUNCTIONS_H_
#define LOOM_COMPILER_IR_SHAPE_FUNCTIONS_H_

#include <initializer_list>
#include <string>

#include "compiler/ir/op_registry.h"

namespace loom::ir {

// --- helpers (shape_functions_tensor.cc) ---

// Fails unless input i exists and has one of `allowed` dtypes.
Status ExpectDType(const InferContext& ctx, int i, std::initializer_list<DType> allowed);
// One element: shape [] or [1].
bool IsScalarLike(const Value& v);
// Numpy broadcast of two shapes.
bool BroadcastShapes(const Shape& a, const Shape& b, Shape* out);
// Checks the fused-activation attributes (activation, clip_min, clip_max) if present.
Status CheckActivationAttrs(const InferContext& ctx);

namespace shape {

// shape_functions_nn.cc
Status Conv(InferContext& ctx);
Status ConvInteger(InferContext& ctx);
Status QLinearConv(InferContext& ctx);
Status Gemm(InferContext& ctx);
Status MatMul(InferContext& ctx);
Status MatMulInteger(InferContext& ctx);
Status QLinearMatMul(InferContext& ctx);
Status BatchNormalization(InferContext& ctx);
Status MaxPool(InferContext& ctx);
Status AveragePool(InferContext& ctx);
Status GlobalAveragePool(InferContext& ctx);
Status QuantizeLinear(InferContext& ctx);
Status DequantizeLinear(InferContext& ctx);

// shape_functions_tensor.cc
Status Relu(InferContext& ctx);
Status FloatUnary(InferContext& ctx);  // LeakyRelu, Sigmoid
Status Clip(InferContext& ctx);
Status Binary(InferContext& ctx);  // Add, Sub, Mul
Status Reshape(InferContext& ctx);
Status Transpose(InferContext& ctx);
Status Concat(InferContext& ctx);
Status Pad(InferContext& ctx);
Status Softmax(InferContext& ctx);
Status Identity(InferContext& ctx);
Status Dropout(InferContext& ctx);

// shape_functions_shape.cc: element types, casts, shape and indexing
Status Cast(InferContext& ctx);

// shape_functions_quant.cc: the quantized graph's ops (q.*), docs/quantization.md
Status QConv2d(InferContext& ctx);
Status QAdd(InferContext& ctx);
Status QMul(InferContext& ctx);
Status QMaxPool(InferContext& ctx);
Status QAvgPool(InferContext& ctx);
Status QConcat(InferContext& ctx);
Status QResize(InferContext& ctx);
Status QZeroInsert(InferContext& ctx);
Status QQuantize(InferContext& ctx);
Status QDequantize(InferContext& ctx);
Status QRelayout(InferContext& ctx);

// shape_functions_vision.cc: the vision and normalization family
Status ConvTranspose(InferContext& ctx);
Status Resize(InferContext& ctx);
Status LayerNormalization(InferContext& ctx);
Status InstanceNormalization(InferContext& ctx);
Status Lrn(InferContext& ctx);
Status GlobalMaxPool(InferContext& ctx);

// shape_functions_vision2.cc: the detection/vision family
Status GridSample(InferContext& ctx);
Status RoiAlign(InferContext& ctx);
Status NonMaxSuppression(InferContext& ctx);
Status Unique(InferContext& ctx);
Status BatchNormalizationTraining(InferContext& ctx);

// shape_functions_reduce.cc: reductions, arg/top-k, cumulative sums, losses (LogSoftmax and
// Hardmax use Softmax)
Status Reduce(InferContext& ctx);     // Reduce{Sum,Mean,Max,Min,Prod,L1,L2,LogSum,LogSumExp,...}
Status ArgReduce(InferContext& ctx);  // ArgMax, ArgMin
Status CumSum(InferContext& ctx);
Status TopK(InferContext& ctx);
Status MeanVarianceNorm(InferContext& ctx);
Status Einsum(InferContext& ctx);
Status NllLoss(InferContext& ctx);
Status SoftmaxCrossEntropyLoss(InferContext& ctx);
// shape_functions_math.cc: the elementwise math, logic and activation family
Status FloatMath(InferContext& ctx);     // f32/f64/f16 -> same (Exp, Tanh, Elu, ...)
Status NumericUnary(InferContext& ctx);  // any numeric -> same (Abs, Neg, Sign, Shrink)
Status FloatClass(InferContext& ctx);    // float -> bool (IsNaN)
Status IsInf(InferContext& ctx);
Status Not(InferContext& ctx);
Status Arith(InferContext& ctx);  // same-typed numeric, broadcast (Div, Max, Min)
Status Mod(InferContext& ctx);
Status Pow(InferContext& ctx);
Status PRelu(InferContext& ctx);
Status BitShift(InferContext& ctx);
Status Logic(InferContext& ctx);    // bool, bool -> bool
Status Compare(InferContext& ctx);  // same-typed -> bool
Status Where(InferContext& ctx);
// shape_functions_index.cc: the shape and indexing family
Status Slice(InferContext& ctx);
Status ShapeOf(InferContext& ctx);  // ONNX Shape (the name Shape is the type)
Status SizeOf(InferContext& ctx);
Status Gather(InferContext& ctx);
Status GatherElements(InferContext& ctx);
Status GatherND(InferContext& ctx);
Status ScatterND(InferContext& ctx);
Status ScatterElements(InferContext& ctx);
Status Expand(InferContext& ctx);
Status Tile(InferContext& ctx);
Status Trilu(InferContext& ctx);
Status Range(InferContext& ctx);
Status ConstantOfShape(InferContext& ctx);
Status EyeLike(InferContext& ctx);
Status OneHot(InferContext& ctx);
Status NonZero(InferContext& ctx);
Status ReverseSequence(InferContext& ctx);
Status MaxUnpool(InferContext& ctx);

// shape_functions_seq.cc: the recurrent, signal and misc family
Status Recurrent(InferContext& ctx);  // RNN, GRU, LSTM
Status Dft(InferContext& ctx);
Status Stft(InferContext& ctx);
Status Window(InferContext& ctx);  // HannWindow, HammingWindow, BlackmanWindow
Status MelWeightMatrix(InferContext& ctx);
Status DynamicQuantizeLinear(InferContext& ctx);
Status Det(InferContext& ctx);

}  // namespace shape
}  // namespace loom::ir

#endif  // LOOM_COMPILER_IR_SHAPE_FUNCTIONS_H_
