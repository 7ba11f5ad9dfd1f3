// The part NegativeLogLikelihoodLoss and SoftmaxCrossEntropyLoss share: checking the operand
// shapes and walking every target with its weight, given a way to read the log-probability of
// class c at a position. Internal to nll_loss.cc and softmax_cross_entropy.cc.
#ifndef LOOM_RUNTIME_KERNELS_LOSS_COMMON_H_
#define LOOM_RUNTIME_KERNELS_LOSS_COMMON_H_

#include <string>

#include "runtime/kernels/kernels_reduce.h"

namespace loom::kernels::loss {

// x [N, C, D...] seen as [N, C, inner].
struct Dims {
  int64_t n = 0, c = 0, inner = 1;
};

inline Status CheckOperands(const char* name, const TensorView& x, const TensorView& target,
                            const TensorView* weight, LossReduction reduction, const TensorView& y,
                            Dims* d) {
  const std::string op(name);
  if (x.dtype != DType::kF32 || y.dtype != DType::kF32 ||
      (weight != nullptr && weight->dtype != DType::kF32)) {
    return InvalidArgument(op + ": input, weight and loss must be f32");
  }
  if (target.dtype != DType::kI64 && target.dtype != DType::kI32) {
    return InvalidArgument(op + ": the target must be i32 or i64");
  }
  if (x.rank < 2 || target.rank != x.rank - 1 || target.shape[0] != x.shape[0]) {
    return InvalidArgument(op + ": input must be [N, C, D...] and the target [N, D...]");
  }
  d->n = x.shape[0];
  d->c = x.shape[1];
  d->inner = 1;
  for (int i = 2; i < x.rank; ++i) {
    if (target.shape[i - 1] != x.shape[i]) {
      return InvalidArgument(op + ": the target's dim " + std::to_string(i - 1) +
                             " differs from the input's dim " + std::to_string(i));
    }
    d->inner *= x.shape[i];
  }
  if (weight != nullptr && (weight->rank != 1 || weight->shape[0] != d->c)) {
    return InvalidArgument(op + ": weight must be [C] = [" + std::to_string(d->c) + "]");
  }
  const bool none = reduction == LossReduction::kNone;
  if ((none && !SameShape(y, target)) || (!none && y.NumElements() != 1)) {
    return InvalidArgument(op + ": the loss must have the target's shape (reduction none) or " +
                           "one element");
  }
  return Status::Ok();
}

// Fills y from log_prob(n, c, i) (i indexes the flattened D...). Fails on a target outside
// [0, C) that is not the ignore_index, naming its position.
template <typename LogProb>
Status Accumulate(const char* name, const LossParams& p, const Dims& d, const TensorView& target,
                  const TensorView* weight, const TensorView& y, LogProb log_prob) {
  float* yd = y.As<float>();
  const float* w = weight != nullptr ? weight->As<const float>() : nullptr;
  double sum = 0.0, wsum = 0.0;
  for (int64_t n = 0; n < d.n; ++n) {
    for (int64_t i = 0; i < d.inner; ++i) {
      const int64_t at = n * d.inner + i;
      const int64_t t = target.dtype == DType::kI64 ? target.As<const int64_t>()[at]
                                                    : target.As<const int32_t>()[at];
      float loss = 0.0f;
      if (!(p.has_ignore_index && t == p.ignore_index)) {
        if (t < 0 || t >= d.c) {
          return InvalidArgument(std::string(name) + ": target " + std::to_string(t) +
                                 " at flat position " + std::to_string(at) +
                                 " is outside the classes [0, " + std::to_string(d.c) + ")");
        }
        const float wt = w != nullptr ? w[t] : 1.0f;
        loss = -log_prob(n, t, i) * wt;
        wsum += wt;
      }
      if (p.reduction == LossReduction::kNone) {
        yd[at] = loss;
      } else {
        sum += loss;
      }
    }
  }
  if (p.reduction == LossReduction::kSum) yd[0] = static_cast<float>(sum);
  if (p.reduction == LossReduction::kMean) yd[0] = static_cast<float>(sum / wsum);
  return Status::Ok();
}

}  // namespace loom::kernels::loss

#endif  // LOOM_RUNTIME_KERNELS_LOSS_COMMON_H_
