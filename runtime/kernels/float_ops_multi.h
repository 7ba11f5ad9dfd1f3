// The rows of the float-op table (float_ops.h) whose operator has several outputs or needs
// scratch, declared for the table in float_ops.cc: LayerNormalization with its Mean and
// InvStdDev, BatchNormalization in training mode with its running statistics, RNN / GRU / LSTM
// (Y, Y_h, Y_c over gate scratch), DynamicQuantizeLinear with its scale and zero point, Det
// (LU scratch), MaxPool with its Indices and Dropout with its mask. Each runs through
// FloatOpDef::run_multi; the scratch is sized at load from the operand shapes, never allocated
// during a run.
#ifndef LOOM_RUNTIME_KERNELS_FLOAT_OPS_MULTI_H_
#define LOOM_RUNTIME_KERNELS_FLOAT_OPS_MULTI_H_

#include "runtime/kernels/float_ops.h"

namespace loom::kernels::multi {

Status RunLayerNorm(const FloatOpParams& p, const TensorView* const* in, size_t n,
                    const TensorView* const* out, size_t m, void* scratch);

Status PrepBatchNormTraining(const AttrReader& a, const TensorView* const* in, size_t n,
                             const TensorView& y, FloatOpParams* p);
Status RunBatchNormTraining(const FloatOpParams& p, const TensorView* const* in, size_t n,
                            const TensorView* const* out, size_t m, void* scratch);

template <int kGates>
Status PrepRecurrent(const AttrReader& a, const TensorView* const* in, size_t n,
                     const TensorView& y, FloatOpParams* p);
size_t RecurrentScratch(const FloatOpParams& p, const TensorView* const* in, size_t n,
                        const TensorView& y);
Status RunRecurrent(const FloatOpParams& p, const TensorView* const* in, size_t n,
                    const TensorView* const* out, size_t m, void* scratch);

Status RunDynamicQuantizeLinear(const FloatOpParams& p, const TensorView* const* in, size_t n,
                                const TensorView* const* out, size_t m, void* scratch);

Status PrepDet(const AttrReader& a, const TensorView* const* in, size_t n, const TensorView& y,
               FloatOpParams* p);
size_t DetScratch(const FloatOpParams& p, const TensorView* const* in, size_t n,
                  const TensorView& y);
Status RunDet(const FloatOpParams& p, const TensorView* const* in, size_t n,
              const TensorView* const* out, size_t m, void* scratch);

// MaxPool (f32, u8, i8) with its optional Indices output (i64, ONNX's flat index order).
Status PrepMaxPool(const AttrReader& a, const TensorView* const* in, size_t n, const TensorView& y,
                   FloatOpParams* p);
Status RunMaxPool(const FloatOpParams& p, const TensorView* const* in, size_t n,
                  const TensorView* const* out, size_t m, void* scratch);

// Dropout at inference: y = x, and the optional mask all true.
Status PrepDropout(const AttrReader& a, const TensorView* const* in, size_t n, const TensorView& y,
                   FloatOpParams* p);
Status RunDropout(const FloatOpParams& p, const TensorView* const* in, size_t n,
                  const TensorView* const* out, size_t m, void* scratch);

}  // namespace loom::kernels::multi

#endif  // LOOM_RUNTIME_KERNELS_FLOAT_OPS_MULTI_H_
