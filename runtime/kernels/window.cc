// The Hann, Hamming and Blackman windows as ONNX defines them (HannWindow, HammingWindow,
// BlackmanWindow): a cosine sum over n / N, N the length (periodic) or the length - 1.
#include <cmath>
#include <string>

#include "runtime/kernels/kernels_seq.h"

namespace loom::kernels {
namespace {

// w(n) = a0 - a1 cos(2 pi n / N) + a2 cos(4 pi n / N).
struct CosineSum {
  double a0, a1, a2;
};
constexpr CosineSum kWindows[] = {
    {0.5, 0.5, 0.0},                        // Hann
    {25.0 / 46.0, 1.0 - 25.0 / 46.0, 0.0},  // Hamming (ONNX's alpha, not 0.54)
    {0.42, 0.5, 0.08},                      // Blackman
};

}  // namespace

Status Window(WindowKind kind, bool periodic, const TensorView& y) {
  const int k = static_cast<int>(kind);
  if (k < 0 || k > 2 || y.rank != 1 || (y.dtype != DType::kF32 && y.dtype != DType::kF64)) {
    return InvalidArgument("window: y must be 1-D f32 or f64 and the kind 0..2, got kind " +
                           std::to_string(k) + ", " + DTypeName(y.dtype) + " of rank " +
                           std::to_string(y.rank));
  }
  const CosineSum& c = kWindows[k];
  const int64_t size = y.shape[0];
  const double denom = static_cast<double>(periodic ? size : size - 1);
  for (int64_t n = 0; n < size; ++n) {
    const double t = denom > 0 ? 2.0 * kPi * static_cast<double>(n) / denom : 0.0;
    const double w = c.a0 - c.a1 * std::cos(t) + c.a2 * std::cos(2.0 * t);
    if (y.dtype == DType::kF32) {
      y.As<float>()[n] = static_cast<float>(w);
    } else {
      y.As<double>()[n] = w;
    }
  }
  return Status::Ok();
}

}  // namespace loom::kernels
