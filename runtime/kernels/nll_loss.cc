// ONNX NegativeLogLikelihoodLoss: -x[n, target, d] * weight[target], reduced (loss_common.h).
#include "runtime/kernels/loss_common.h"

namespace loom::kernels {

Status NllLoss(const LossParams& p, const TensorView& x, const TensorView& target,
               const TensorView* weight, const TensorView& y) {
  loss::Dims d;
  LOOM_RETURN_IF_ERROR(loss::CheckOperands("nll-loss", x, target, weight, p.reduction, y, &d));
  const float* xd = x.As<const float>();
  return loss::Accumulate(
      "nll-loss", p, d, target, weight, y,
      [&](int64_t n, int64_t c, int64_t i) { return xd[(n * d.c + c) * d.inner + i]; });
}

}  // namespace loom::kernels
