// Float MaxPool (2-D), same-shape Add and the fused ReLU epilogue in shapes the compiler turns into
// vector code, for the interpreter that calibration runs once per image: the reference kernels walk
// N-D index lambdas per element (ResNet-18's one MaxPool took a tenth of a calibration image). Same
// contract as blas_ops.h: *done false (and y untouched) leaves the case to the reference kernel,
// and the results are the reference's exactly (no arithmetic, only comparisons in the same order).
#ifndef LOOM_COMPILER_INTERP_FLOAT_FAST_H_
#define LOOM_COMPILER_INTERP_FLOAT_FAST_H_

#include "compiler/ir/graph.h"
#include "runtime/kernels/kernels.h"

namespace loom::interp {

// f32 MaxPool over 2-D planes without the Indices output: each output is the first maximum of
// its window in window order (taps outside the input skipped), as kernels::MaxPool.
Status FastMaxPool2d(const kernels::PoolParams& p, const kernels::TensorView& x,
                     const kernels::TensorView& y, bool* done);

// f32 y = a + b when all three have one shape (no broadcasting): one float addition per element,
// as kernels::Binary's.
Status FastAddSameShape(const kernels::TensorView& a, const kernels::TensorView& b,
                        const kernels::TensorView& y, bool* done);

// The node's fused activation applied to f32 y in place when it is a ReLU (y = y > 0 ? y : 0, so
// NaN becomes 0 as in kernels::Activation); *done false otherwise.
void FastFusedRelu(const ir::Node& n, const kernels::TensorView& y, bool* done);

}  // namespace loom::interp

#endif  // LOOM_COMPILER_INTERP_FLOAT_FAST_H_
