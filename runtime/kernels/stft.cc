// ONNX STFT: each frame of the signal, weighted by the window, through a direct DFT of
// frame_length points (the same arithmetic as dft.cc, in double).
#include <cmath>
#include <string>

#include "runtime/kernels/kernels_seq.h"

namespace loom::kernels {

Status Stft(const TensorView& signal, int64_t frame_step, const TensorView* window,
            int64_t frame_length, bool onesided, const TensorView& y) {
  char ss[96], ys[96];
  const int64_t comps = signal.rank == 3 ? signal.shape[2] : 0;
  const int64_t bins = onesided ? frame_length / 2 + 1 : frame_length;
  const int64_t len = signal.rank == 3 ? signal.shape[1] : 0;
  const int64_t frames = frame_step > 0 && frame_length > 0 && len >= frame_length
                             ? (len - frame_length) / frame_step + 1
                             : 0;
  const bool ok = signal.dtype == DType::kF32 && y.dtype == DType::kF32 && signal.rank == 3 &&
                  (comps == 1 || comps == 2) && frames > 0 && y.rank == 4 &&
                  y.shape[0] == signal.shape[0] && y.shape[1] == frames && y.shape[2] == bins &&
                  y.shape[3] == 2;
  if (!ok) {
    return InvalidArgument("stft: signal " + std::string(FormatShape(signal, ss, sizeof ss)) +
                           " and y " + FormatShape(y, ys, sizeof ys) + " do not fit frame_step " +
                           std::to_string(frame_step) + ", frame_length " +
                           std::to_string(frame_length) +
                           "; the signal is [batch, length >= frame_length, 1 or 2]");
  }
  if (window &&
      (window->dtype != DType::kF32 || window->rank != 1 || window->shape[0] != frame_length)) {
    return InvalidArgument("stft: window " + std::string(FormatShape(*window, ss, sizeof ss)) +
                           " must be f32[" + std::to_string(frame_length) + "]");
  }
  const double step = 2.0 * kPi / static_cast<double>(frame_length);
  const float* src = signal.As<float>();
  float* dst = y.As<float>();
  for (int64_t b = 0; b < signal.shape[0]; ++b) {
    for (int64_t f = 0; f < frames; ++f) {
      const float* frame = src + (b * len + f * frame_step) * comps;
      float* out = dst + (b * frames + f) * bins * 2;
      for (int64_t k = 0; k < bins; ++k) {
        double re = 0.0, im = 0.0;
        for (int64_t n = 0; n < frame_length; ++n) {
          const double wgt = window ? window->As<float>()[n] : 1.0;
          const double angle = -step * static_cast<double>((k * n) % frame_length);
          const double c = std::cos(angle), s = std::sin(angle);
          const double a = wgt * frame[n * comps];
          const double bi = comps == 2 ? wgt * frame[n * comps + 1] : 0.0;
          re += a * c - bi * s;
          im += a * s + bi * c;
        }
        out[2 * k] = static_cast<float>(re);
        out[2 * k + 1] = static_cast<float>(im);
      }
    }
  }
  return Status::Ok();
}

}  // namespace loom::kernels
