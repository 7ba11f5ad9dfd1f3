// Float Conv, Gemm and MatMul through the host's BLAS (OpenBLAS's sgemm), for the interpreter that
// calibration runs once per image: the reference kernels (runtime/kernels) are plain loops, about
// 1 s per ResNet-18 image. Only the compiler links a BLAS; the runtime never does.
//
// Each function computes y and sets *done, or leaves y untouched with *done false when it does not
// take the case (a build without BLAS, a dtype or shape it does not cover); the caller then runs
// the reference kernel. The results equal the reference up to float rounding: sgemm sums the
// products in its own order.
#ifndef LOOM_COMPILER_INTERP_BLAS_OPS_H_
#define LOOM_COMPILER_INTERP_BLAS_OPS_H_

#include "runtime/kernels/kernels.h"

namespace loom::interp {

// Whether this build has the BLAS path (LOOM_HAVE_BLAS).
bool HaveBlas();

// ONNX Conv, 2-D, any group, stride, dilation and padding: im2col per image and group, then one
// sgemm [M/g, C/g*kh*kw] x [C/g*kh*kw, oh*ow] (a 1x1 convolution at stride 1 without padding reads
// x in place); 3x3 stride-1 layers where it pays by Winograd (winograd.h). `constant_w`: w is a
// graph constant, whose transform a ReuseConstantWork (interpreter.h) may keep.
Status BlasConv(const kernels::ConvParams& p, const kernels::TensorView& x,
                const kernels::TensorView& w, const kernels::TensorView* bias,
                const kernels::TensorView& y, bool constant_w, bool* done);

// ONNX Gemm: y = alpha * op(a) * op(b) + beta * c, c broadcast to [M, N].
Status BlasGemm(const kernels::GemmParams& p, const kernels::TensorView& a,
                const kernels::TensorView& b, const kernels::TensorView* c,
                const kernels::TensorView& y, bool* done);

// ONNX MatMul with numpy batching: one sgemm per batch matrix.
Status BlasMatMul(const kernels::TensorView& a, const kernels::TensorView& b,
                  const kernels::TensorView& y, bool* done);

}  // namespace loom::interp

#endif  // LOOM_COMPILER_INTERP_BLAS_OPS_H_
