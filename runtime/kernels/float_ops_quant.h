// The rows of the float-op table (float_ops.h) for ONNX's quantized operators, declared for the
// table in float_ops.cc: QuantizeLinear / DequantizeLinear (per tensor or per axis),
// ConvInteger and MatMulInteger (u8/i8 in, i32 out), QLinearConv and QLinearMatMul (u8/i8 in and
// out, requantized with float scales). A model that arrives quantized keeps these ops when the
// compiler cannot fold them into its own int8 layers; they run in CPU segments on the same
// reference kernels as the interpreter, so a package gives the interpreter's bits.
#ifndef LOOM_RUNTIME_KERNELS_FLOAT_OPS_QUANT_H_
#define LOOM_RUNTIME_KERNELS_FLOAT_OPS_QUANT_H_

#include "runtime/kernels/float_ops.h"

namespace loom::kernels::quant {

// The element types these rows take: floats, the 8-bit integers and the i32 accumulators.
inline constexpr const char* kQuantTypes = "f32 u8 i8 i32";

Status PrepLinear(const AttrReader& a, const TensorView* const* in, size_t n, const TensorView& y,
                  FloatOpParams* p);
Status RunQuantizeLinear(const FloatOpParams& p, const TensorView* const* in, size_t n,
                         const TensorView& y);
Status RunDequantizeLinear(const FloatOpParams& p, const TensorView* const* in, size_t n,
                           const TensorView& y);

Status RunConvInteger(const FloatOpParams& p, const TensorView* const* in, size_t n,
                      const TensorView& y);
Status RunQLinearConv(const FloatOpParams& p, const TensorView* const* in, size_t n,
                      const TensorView& y);
Status RunMatMulInteger(const FloatOpParams& p, const TensorView* const* in, size_t n,
                        const TensorView& y);
Status RunQLinearMatMul(const FloatOpParams& p, const TensorView* const* in, size_t n,
                        const TensorView& y);

}  // namespace loom::kernels::quant

#endif  // LOOM_RUNTIME_KERNELS_FLOAT_OPS_QUANT_H_
