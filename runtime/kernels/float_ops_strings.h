// The rows of the float-op table (float_ops.h) whose attributes include a string, which a
// package carries since 1.7 (FloatAttr.text): the two losses (`reduction`), Pad (`mode`) and
// EyeLike (`dtype`), and TopK beside them (its indices are a second output). Each prepare turns
// the string into its enum once, at load, and refuses one it does not know, naming it and the
// values it takes; the kernels never see a string.
//
// A generator's `dtype` is the type of its output tensor, which the package stores anyway: the
// prepare only checks that the two agree, so a package cannot say one type and hold another. The
// window generators and MelWeightMatrix have no row: they have no inputs, so constant folding
// turns them into constants before partitioning.
#ifndef LOOM_RUNTIME_KERNELS_FLOAT_OPS_STRINGS_H_
#define LOOM_RUNTIME_KERNELS_FLOAT_OPS_STRINGS_H_

#include "runtime/kernels/float_ops.h"

namespace loom::kernels::strings {

// NegativeLogLikelihoodLoss (x, target, weight?) and SoftmaxCrossEntropyLoss (scores, labels,
// weight? -> loss, log_prob?): reduction none | sum | mean (ONNX's default), ignore_index.
Status PrepLoss(const AttrReader& a, const TensorView* const* in, size_t n, const TensorView& y,
                FloatOpParams* p);
Status RunNllLoss(const FloatOpParams& p, const TensorView* const* in, size_t n,
                  const TensorView& y);
Status RunSoftmaxCrossEntropy(const FloatOpParams& p, const TensorView* const* in, size_t n,
                              const TensorView* const* out, size_t num_outputs, void* scratch);

// Pad: mode constant | reflect | edge, pads (2 * rank), value (constant mode). Any type.
Status PrepPad(const AttrReader& a, const TensorView* const* in, size_t n, const TensorView& y,
               FloatOpParams* p);
Status RunPad(const FloatOpParams& p, const TensorView* const* in, size_t n, const TensorView& y);

// EyeLike: the identity of the input's 2-D shape with diagonal offset k, in type `dtype`.
Status PrepEyeLike(const AttrReader& a, const TensorView* const* in, size_t n, const TensorView& y,
                   FloatOpParams* p);
Status RunEyeLike(const FloatOpParams& p, const TensorView* const* in, size_t n,
                  const TensorView& y);

// TopK (x -> values, indices?): axis, largest; k is the outputs' shape, and the kernel always
// sorts (which `sorted` = 0 allows). A model that drops the indices gets them in scratch.
Status PrepTopK(const AttrReader& a, const TensorView* const* in, size_t n, const TensorView& y,
                FloatOpParams* p);
Status RunTopK(const FloatOpParams& p, const TensorView* const* in, size_t n,
               const TensorView* const* out, size_t num_outputs, void* scratch);
size_t TopKScratch(const FloatOpParams& p, const TensorView* const* in, size_t n,
                   const TensorView& y);

}  // namespace loom::kernels::strings

#endif  // LOOM_RUNTIME_KERNELS_FLOAT_OPS_STRINGS_H_
