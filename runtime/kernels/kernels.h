// The reference kernels: one function per operator, each defined in its own file (conv.cc,
// gemm.cc, ...) with its GoogleTest beside it. They define the numerics every faster variant and
// every accelerator path is compared against, so they are written for clarity: plain loops,
// row-major tensors, float32 accumulation for float ops and exact integer arithmetic for the
// integer ops (bit-exact to the ONNX spec, round half to even, saturating).
//
// Contract shared by all of them:
// - The caller provides every output view with its final shape and a buffer of that size; kernels
//   check shapes and dtypes against each other and return InvalidArgument on a mismatch, then
//   compute without allocating.
// - Inputs are read-only. Unless a kernel says otherwise, outputs must not alias inputs.
// - Operator attributes arrive already resolved (explicit pads, no auto_pad, non-negative axes);
//   resolving them is the importer's job.
#ifndef LOOM_RUNTIME_KERNELS_KERNELS_H_
#define LOOM_RUNTIME_KERNELS_KERNELS_H_

#include <cstdint>

#include "runtime/core/status.h"
#include "runtime/kernels/tensor.h"

namespace loom::kernels {

// --- convolution and matrix products ------------------------------------------------------------

// Geometry shared by Conv, ConvInteger and QLinearConv over N-D inputs [N, C, D1..Ds]:
// weights [M, C/group, K1..Ks], output [N, M, O1..Os] with
// Oi = (Di + pads_begin[i] + pads_end[i] - dilations[i] * (Ki - 1) - 1) / strides[i] + 1.
struct ConvParams {
  int spatial = 2;  // s, 1..kMaxSpatial
  int64_t strides[kMaxSpatial] = {1, 1, 1, 1, 1, 1};
  int64_t dilations[kMaxSpatial] = {1, 1, 1, 1, 1, 1};
  int64_t pads_begin[kMaxSpatial] = {};
  int64_t pads_end[kMaxSpatial] = {};
  int64_t group = 1;
};

// conv.cc — float convolution; bias [M] is optional (nullptr).
Status Conv(const ConvParams& p, const TensorView& x, const TensorView& w, const TensorView* bias,
            const TensorView& y);

// conv_integer.cc — ONNX ConvInteger: x and w are u8 or i8, y is i32 = sum((x - x_zp) * (w -
// w_zp)). x_zp is a scalar; w_zp a scalar or one value per output channel; either may be nullptr
// (0).
Status ConvInteger(const ConvParams& p, const TensorView& x, const TensorView& w,
                   const TensorView* x_zp, const TensorView* w_zp, const TensorView& y);

// Scale/zero-point pair of a quantized operand: scale is f32, zero point u8/i8 (the operand's
// type), both scalars unless the op allows per-channel (w of QLinearConv: one per output channel).
struct QuantOperand {
  const TensorView* scale = nullptr;
  const TensorView* zero_point = nullptr;
};

// qlinear_conv.cc — ONNX QLinearConv: integer accumulation as ConvInteger plus the optional i32
// bias [M], then y = saturate(round_half_even(acc * (x_scale * w_scale / y_scale)) + y_zp).
Status QLinearConv(const ConvParams& p, const TensorView& x, QuantOperand xq, const TensorView& w,
                   QuantOperand wq, QuantOperand yq, const TensorView* bias, const TensorView& y);

struct GemmParams {
  float alpha = 1.0f;
  float beta = 1.0f;
  bool trans_a = false;
  bool trans_b = false;
};

// gemm.cc — Y[M,N] = alpha * op(A) * op(B) + beta * C, C optional and unidirectionally
// broadcastable to [M, N].
Status Gemm(const GemmParams& p, const TensorView& a, const TensorView& b, const TensorView* c,
            const TensorView& y);

// matmul.cc — numpy matmul on f32: 1-D operands are promoted (and the added dim dropped from the
// result), leading batch dims broadcast.
Status MatMul(const TensorView& a, const TensorView& b, const TensorView& y);

// matmul_integer.cc — ONNX MatMulInteger: u8/i8 operands, i32 result, numpy matmul shapes.
// a_zp is a scalar or one value per row of A ([M]); b_zp a scalar or one per column of B ([N]).
Status MatMulInteger(const TensorView& a, const TensorView& b, const TensorView* a_zp,
                     const TensorView* b_zp, const TensorView& y);

// qlinear_matmul.cc — ONNX QLinearMatMul with per-tensor scales and zero points:
// y = saturate(round_half_even(sum((a - a_zp) * (b - b_zp)) * (a_scale * b_scale / y_scale)) +
// y_zp).
Status QLinearMatMul(const TensorView& a, QuantOperand aq, const TensorView& b, QuantOperand bq,
                     QuantOperand yq, const TensorView& y);

// --- normalization and activations ---------------------------------------------------------------

// batch_norm.cc — inference BatchNormalization over axis 1 of x [N, C, ...]:
// y = (x - mean) / sqrt(var + epsilon) * scale + bias; scale, bias, mean, var are [C].
Status BatchNorm(const TensorView& x, const TensorView& scale, const TensorView& bias,
                 const TensorView& mean, const TensorView& var, float epsilon, const TensorView& y);

enum class ActivationKind : uint8_t { kNone, kRelu, kLeakyRelu, kSigmoid, kClip };
struct ActivationParams {
  ActivationKind kind = ActivationKind::kNone;
  float alpha = 0.01f;  // LeakyRelu slope
  // Clip bounds. Doubles so integer bounds (i8..i32) and float bounds are both exact.
  double min = 0;
  double max = 0;
};

// activation.cc — elementwise Relu / LeakyRelu / Sigmoid / Clip. Relu and Clip take f32, i8, u8,
// i32 and i64; LeakyRelu and Sigmoid f32. y may alias x (the fused activations of Conv, Gemm and
// Add run in place on the op's output).
Status Activation(const ActivationParams& p, const TensorView& x, const TensorView& y);

// softmax.cc — f32 softmax along `axis` (opset-13 semantics; the importer rewrites the older
// flatten-to-2-D form into this). Max-subtracted for stability.
Status Softmax(const TensorView& x, int axis, const TensorView& y);

// --- elementwise binary --------------------------------------------------------------------------

enum class BinaryOp : uint8_t {
  kAdd,
  kSub,
  kMul,
  // The elementwise math and logic family (issue 12, docs/compiler.md).
  kDiv,            // integers: truncating; x / 0 is 0 (ONNX leaves it undefined)
  kPow,            // b may have any numeric type; y has a's
  kMod,            // sign of the divisor (Python / NumPy mod); x mod 0 is 0
  kFmod,           // sign of the dividend (C fmod / %)
  kMax,            // NaN if either is NaN
  kMin,            // NaN if either is NaN
  kPRelu,          // a < 0 ? a * b : a (b is the slope)
  kBitShiftLeft,   // integers; shifting by the type's width or more gives 0
  kBitShiftRight,  // logical for unsigned types, arithmetic for signed ones
  kBitwiseAnd,
  kBitwiseOr,
  kBitwiseXor,
  kAnd,  // bool operands and result
  kOr,
  kXor,
  kEqual,  // same-typed operands, bool result
  kGreater,
  kLess,
  kGreaterOrEqual,
  kLessOrEqual,
};

// binary.cc — y = a op b with numpy broadcasting. f32, f64, f16 (computed in float), i8, u8, i16,
// i32, i64 and bool where the op allows it; integer arithmetic wraps (two's complement), as ONNX
// backends do for the uint8 tests. Comparisons write bool; And/Or/Xor take bool.
Status Binary(BinaryOp op, const TensorView& a, const TensorView& b, const TensorView& y);
// The type check Binary starts with, alone: the float-op table's prepares run it at load.
Status BinaryTypes(BinaryOp op, const TensorView& a, const TensorView& b, const TensorView& y);
// The op's ONNX name ("Add", ...), for messages.
const char* BinaryOpName(BinaryOp op);

// --- pooling -------------------------------------------------------------------------------------

struct PoolParams {
  int spatial = 2;
  int64_t kernel[kMaxSpatial] = {};
  int64_t strides[kMaxSpatial] = {1, 1, 1, 1, 1, 1};
  int64_t dilations[kMaxSpatial] = {1, 1, 1, 1, 1, 1};
  int64_t pads_begin[kMaxSpatial] = {};
  int64_t pads_end[kMaxSpatial] = {};
  // AveragePool: count padding cells (those within pads_begin/pads_end) in the divisor. Cells a
  // ceil_mode window reaches beyond the end padding are never counted.
  bool count_include_pad = false;
  // MaxPool Indices: 0 = row-major flat index into x, 1 = column-major over the spatial dims.
  int storage_order = 0;
};

// max_pool.cc — MaxPool on f32, u8, i8. The output shape (incl. ceil_mode) comes from y; windows
// are clipped to the input. indices (i64, same shape as y) is optional.
Status MaxPool(const PoolParams& p, const TensorView& x, const TensorView& y,
               const TensorView* indices);

// avg_pool.cc — AveragePool on f32 (no dilations, as in ONNX ≤ 18).
Status AvgPool(const PoolParams& p, const TensorView& x, const TensorView& y);

// global_avg_pool.cc — f32 mean over all spatial dims: [N, C, ...] -> [N, C, 1, ...].
Status GlobalAvgPool(const TensorView& x, const TensorView& y);

// --- data movement ------------------------------------------------------------------------------

// copy.cc — y = x relabelled with y's shape (Reshape, Flatten, Identity, inference Dropout).
// Same dtype and element count.
Status Copy(const TensorView& x, const TensorView& y);

// cast.cc — y = x converted elementwise to y.dtype (ONNX Cast over every numeric type; float to
// integer truncates and saturates, NaN -> 0; integers wrap; bool is != 0). Same element count.
Status Cast(const TensorView& x, const TensorView& y);

// transpose.cc — y = x with dims permuted: y.shape[i] = x.shape[perm[i]]. Any dtype.
Status Transpose(const TensorView& x, const int64_t* perm, const TensorView& y);

// concat.cc — y = inputs joined along axis. Any dtype, all inputs the same.
Status Concat(const TensorView* const* inputs, int count, int axis, const TensorView& y);

enum class PadMode : uint8_t { kConstant, kReflect, kEdge };
// pad.cc — pads [2 * rank] as ONNX orders them (all begins, then all ends). Negative pads crop
// (constant mode). `value` fills constant mode, converted to x's dtype. Any dtype.
Status Pad(const TensorView& x, const int64_t* pads, PadMode mode, double value,
           const TensorView& y);
// Pad's checks of types and shapes alone (no data read): what a loader can refuse up front.
Status PadShapes(const TensorView& x, const int64_t* pads, PadMode mode, const TensorView& y);

// --- quantization --------------------------------------------------------------------------------

// quantize_linear.cc — y = saturate(round_half_even(x / scale) + zero_point); x f32 or i32, y u8
// or i8 (the zero point's type). scale/zero_point are scalars (per-tensor, axis ignored) or 1-D of
// x.shape[axis] (per-axis).
Status QuantizeLinear(const TensorView& x, const TensorView& scale, const TensorView& zero_point,
                      int axis, const TensorView& y);

// dequantize_linear.cc — y = (x - zero_point) * scale; x u8, i8 or i32, y f32. Scales as above.
Status DequantizeLinear(const TensorView& x, const TensorView& scale, const TensorView& zero_point,
                        int axis, const TensorView& y);

}  // namespace loom::kernels

#endif  // LOOM_RUNTIME_KERNELS_KERNELS_H_
