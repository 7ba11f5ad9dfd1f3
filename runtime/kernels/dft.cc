// ONNX DFT: a direct O(N * L) transform per line along `axis`, in double. The angle's argument is
// reduced as (k * n) mod L before scaling, so long transforms keep their phase exact.
#include <cmath>
#include <string>

#include "runtime/kernels/kernels_seq.h"

namespace loom::kernels {

Status Dft(const TensorView& x, int axis, int64_t dft_length, bool inverse, bool onesided,
           const TensorView& y) {
  char xs[96], ys[96];
  const int rank = x.rank;
  const int64_t comps = rank > 0 ? x.shape[rank - 1] : 0;
  const int64_t bins = onesided ? dft_length / 2 + 1 : dft_length;
  bool ok = x.dtype == DType::kF32 && y.dtype == DType::kF32 && rank >= 2 && y.rank == rank &&
            axis >= 0 && axis < rank - 1 && (comps == 1 || comps == 2) && dft_length > 0 &&
            y.shape[rank - 1] == 2 && y.shape[axis] == bins;
  for (int d = 0; ok && d < rank - 1; ++d) ok = d == axis || x.shape[d] == y.shape[d];
  if (!ok) {
    return InvalidArgument("dft: x " + std::string(FormatShape(x, xs, sizeof xs)) + " and y " +
                           FormatShape(y, ys, sizeof ys) + " do not fit axis " +
                           std::to_string(axis) + ", dft_length " + std::to_string(dft_length) +
                           (onesided ? " (onesided)" : "") +
                           "; the last dim is 1 (real) or 2 (complex)");
  }
  int64_t outer = 1, inner = 1;
  for (int d = 0; d < axis; ++d) outer *= x.shape[d];
  for (int d = axis + 1; d < rank - 1; ++d) inner *= x.shape[d];
  const int64_t n_in = x.shape[axis] < dft_length ? x.shape[axis] : dft_length;
  const double sign = inverse ? 1.0 : -1.0;
  const double scale = inverse ? 1.0 / static_cast<double>(dft_length) : 1.0;
  const double step = 2.0 * kPi / static_cast<double>(dft_length);
  const float* src = x.As<float>();
  float* dst = y.As<float>();
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t i = 0; i < inner; ++i) {
      const float* line = src + (o * x.shape[axis] * inner + i) * comps;
      float* out = dst + (o * bins * inner + i) * 2;
      for (int64_t k = 0; k < bins; ++k) {
        double re = 0.0, im = 0.0;
        for (int64_t n = 0; n < n_in; ++n) {
          const double angle = sign * step * static_cast<double>((k * n) % dft_length);
          const double c = std::cos(angle), s = std::sin(angle);
          const double a = line[n * inner * comps];
          const double b = comps == 2 ? line[n * inner * comps + 1] : 0.0;
          re += a * c - b * s;
          im += a * s + b * c;
        }
        out[k * inner * 2] = static_cast<float>(re * scale);
        out[k * inner * 2 + 1] = static_cast<float>(im * scale);
      }
    }
  }
  return Status::Ok();
}

}  // namespace loom::kernels
