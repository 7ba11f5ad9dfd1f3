// ONNX SoftmaxCrossEntropyLoss: the NLL loss of log-softmax(scores) over the class axis. Each
// position's log-sum-exp is computed once per position, so the kernel needs no buffer for the
// log-probabilities unless the caller asks for them (log_prob).
#include <cmath>

#include "runtime/kernels/loss_common.h"

namespace loom::kernels {

Status SoftmaxCrossEntropy(const LossParams& p, const TensorView& scores, const TensorView& labels,
                           const TensorView* weight, const TensorView& y,
                           const TensorView* log_prob) {
  loss::Dims d;
  LOOM_RETURN_IF_ERROR(
      loss::CheckOperands("softmax-cross-entropy", scores, labels, weight, p.reduction, y, &d));
  if (log_prob != nullptr && (log_prob->dtype != DType::kF32 || !SameShape(*log_prob, scores))) {
    return InvalidArgument("softmax-cross-entropy: log_prob must be f32 of the scores' shape");
  }
  const float* s = scores.As<const float>();
  // log-sum-exp of position (n, i) over the classes, the maximum subtracted first.
  auto lse = [&](int64_t n, int64_t i) {
    const float* line = s + n * d.c * d.inner + i;
    float mx = -INFINITY;
    for (int64_t c = 0; c < d.c; ++c) mx = std::fmax(mx, line[c * d.inner]);
    double sum = 0.0;
    for (int64_t c = 0; c < d.c; ++c) sum += std::exp(double(line[c * d.inner]) - mx);
    return mx + std::log(sum);
  };
  if (log_prob != nullptr) {
    float* lp = log_prob->As<float>();
    for (int64_t n = 0; n < d.n; ++n) {
      for (int64_t i = 0; i < d.inner; ++i) {
        const double l = lse(n, i);
        for (int64_t c = 0; c < d.c; ++c) {
          const int64_t at = (n * d.c + c) * d.inner + i;
          lp[at] = static_cast<float>(s[at] - l);
        }
      }
    }
  }
  return loss::Accumulate("softmax-cross-entropy", p, d, labels, weight, y,
                          [&](int64_t n, int64_t c, int64_t i) {
                            return static_cast<float>(s[(n * d.c + c) * d.inner + i] - lse(n, i));
                          });
}

}  // namespace loom::kernels
