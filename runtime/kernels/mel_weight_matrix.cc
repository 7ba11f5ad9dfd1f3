// ONNX MelWeightMatrix: num_mel_bins + 2 points evenly spaced on the mel scale between the edge
// frequencies, mapped to DFT bins (floor((dft_length + 1) * hz / sample_rate)); filter m rises
// linearly from point m to point m + 1 and falls to point m + 2, as ONNX's reference builds it.
#include <cmath>
#include <cstring>
#include <string>

#include "runtime/kernels/kernels_seq.h"

namespace loom::kernels {
namespace {

double HzToMel(double hz) { return 2595.0 * std::log1p(hz / 700.0) / std::log(10.0); }
double MelToHz(double mel) { return 700.0 * std::expm1(mel / 2595.0 * std::log(10.0)); }

}  // namespace

Status MelWeightMatrix(int64_t dft_length, int64_t sample_rate, double lower_hz, double upper_hz,
                       const TensorView& y) {
  const int64_t rows = dft_length / 2 + 1;
  if (y.rank != 2 || y.shape[0] != rows || y.shape[1] < 1 || sample_rate <= 0 ||
      (y.dtype != DType::kF32 && y.dtype != DType::kF64) || !(lower_hz >= 0) ||
      !(upper_hz > lower_hz)) {
    char ys[96];
    return InvalidArgument("mel_weight_matrix: y " + std::string(FormatShape(y, ys, sizeof ys)) +
                           " must be f32/f64 [" + std::to_string(rows) +
                           ", num_mel_bins], sample_rate > 0 and 0 <= lower_edge < upper_edge");
  }
  const int64_t mels = y.shape[1];
  const double low = HzToMel(lower_hz);
  const double step = (HzToMel(upper_hz) - low) / static_cast<double>(mels + 2);
  auto bin = [&](int64_t i) {
    const double hz = MelToHz(static_cast<double>(i) * step + low);
    return static_cast<int64_t>(
        std::floor(static_cast<double>(dft_length + 1) * hz / static_cast<double>(sample_rate)));
  };
  // The last point is the highest; every point must name a row of y.
  if (bin(mels + 1) >= rows || bin(0) < 0) {
    return InvalidArgument("mel_weight_matrix: upper_edge_hertz " + std::to_string(upper_hz) +
                           " maps past the last DFT bin (" + std::to_string(rows - 1) +
                           "); keep it at or below sample_rate / 2");
  }
  const size_t es = DTypeSize(y.dtype);
  std::memset(y.data, 0, static_cast<size_t>(rows * mels) * es);
  auto set = [&](int64_t row, int64_t col, double v) {
    if (y.dtype == DType::kF32) {
      y.As<float>()[row * mels + col] = static_cast<float>(v);
    } else {
      y.As<double>()[row * mels + col] = v;
    }
  };
  for (int64_t m = 0; m < mels; ++m) {
    const int64_t left = bin(m), center = bin(m + 1), right = bin(m + 2);
    if (center == left) {
      set(center, m, 1.0);
    } else {
      for (int64_t j = left; j <= center; ++j) {
        set(j, m, static_cast<double>(j - left) / static_cast<double>(center - left));
      }
    }
    for (int64_t j = center; j < right; ++j) {
      set(j, m, static_cast<double>(right - j) / static_cast<double>(right - center));
    }
  }
  return Status::Ok();
}

}  // namespace loom::kernels
