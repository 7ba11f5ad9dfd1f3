// ONNX LRN (local response normalization across channels) on f32 [N, C, ...]. The window of
// channel c is [c - floor((size - 1) / 2), c + ceil((size - 1) / 2)], clipped to [0, C).
#include <cmath>

#include "runtime/kernels/kernels_vision.h"

namespace loom::kernels {

Status Lrn(const LrnParams& p, const TensorView& x, const TensorView& y) {
  if (x.dtype != DType::kF32 || y.dtype != DType::kF32 || !SameShape(x, y) || x.rank < 3) {
    return InvalidArgument("lrn: x and y must be f32 [N, C, D1, ...] of the same shape");
  }
  if (p.size < 1) return InvalidArgument("lrn: size must be >= 1, got " + std::to_string(p.size));
  const int64_t channels = x.shape[1];
  int64_t inner = 1;
  for (int i = 2; i < x.rank; ++i) inner *= x.shape[i];
  const int64_t before = (p.size - 1) / 2, after = p.size - 1 - before;
  const float* xd = x.As<const float>();
  float* yd = y.As<float>();
  for (int64_t n = 0; n < x.shape[0]; ++n) {
    for (int64_t c = 0; c < channels; ++c) {
      const int64_t lo = c - before < 0 ? 0 : c - before;
      const int64_t hi = c + after >= channels ? channels - 1 : c + after;
      for (int64_t i = 0; i < inner; ++i) {
        double sq = 0;
        for (int64_t k = lo; k <= hi; ++k) {
          const double v = xd[(n * channels + k) * inner + i];
          sq += v * v;
        }
        const int64_t at = (n * channels + c) * inner + i;
        const double denom =
            std::pow(static_cast<double>(p.bias) +
                         static_cast<double>(p.alpha) / static_cast<double>(p.size) * sq,
                     static_cast<double>(p.beta));
        yd[at] = static_cast<float>(xd[at] / denom);
      }
    }
  }
  return Status::Ok();
}

}  // namespace loom::kernels
