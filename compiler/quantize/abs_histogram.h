// The histogram of |x| that calibration keeps per float activation (calibration.h): a fixed
// number of bins over [0, range); when a value beyond the range arrives the range doubles and
// pairs of bins merge, so no sample is ever dropped. The first finite value sets the range
// (value * 1.0000001, or 1e-30 for a zero); NaN and infinities are skipped.
//
// Add() sees every element of every activation of every calibration image (a seventh of a
// ResNet-18 image's time done value by value), so on x86-64 with AVX2 it computes the bins eight
// at a time. Either way the bins are exactly those of the plain definition — each value binned as
// floor(|x| / range * bins) at the range in effect when it arrived, then merged as the range
// grew — which abs_histogram_test.cc holds and compares bin for bin.
#ifndef LOOM_COMPILER_QUANTIZE_ABS_HISTOGRAM_H_
#define LOOM_COMPILER_QUANTIZE_ABS_HISTOGRAM_H_

#include <cstddef>
#include <cstdint>
#include <vector>

namespace loom::quantize {

class AbsHistogram {
 public:
  static constexpr int kBins = 2048;
  AbsHistogram() : bins_(kBins + kSpare, 0) {}

  // `vector` false forces the value-by-value path (tests compare the two).
  void Add(const float* x, int64_t n, bool vector = true);

  double max() const { return max_; }
  double range() const { return range_; }
  uint64_t count() const { return count_; }
  uint64_t bin(int b) const { return bins_[static_cast<size_t>(b)]; }

  // The upper edge of the bin holding the p-th percentile (p in (0, 100]), capped at the max.
  double Percentile(double p) const;
  // The clipping range c that minimizes the expected squared error of quantizing the observed
  // values to the grid c/127 ... c: values above c pay (|x| - c)^2, values below their rounding
  // error to the nearest step. Each bin's values are taken at its center. Candidates are every
  // kMseStride-th bin edge and the max; ties go to the larger range.
  double MseRange() const;
  // The same on a grid of c / levels (an asymmetric grid gives a one-sided value 255 levels).
  double MseRange(double levels) const;

 private:
  static constexpr int kMseStride = 4;
  // Slots past the bins where the vector path sends zeros and NaN/inf (0 between calls).
  static constexpr int kSpare = 8;

  double Error(double c, double width, double levels) const;
  void Grow(double a);
  // The bin of finite a (0 <= a < range_) by the definition.
  int ExactBin(double a) const {
    const int b = static_cast<int>(a / range_ * kBins);
    return b < kBins - 1 ? b : kBins - 1;
  }
  // Bins x[0, n) at the current range, which covers every finite value there; returns the number
  // of values binned (the finite ones).
  uint64_t AddScalar(const float* x, int64_t n);
  uint64_t AddAvx2(const float* x, int64_t n);

  std::vector<uint64_t> bins_;
  double range_ = 0.0;
  double max_ = 0.0;
  uint64_t count_ = 0;
};

}  // namespace loom::quantize

#endif  // LOOM_COMPILER_QUANTIZE_ABS_HISTOGRAM_H_
