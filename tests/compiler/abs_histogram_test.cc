// AbsHistogram's Add() (the vector path where the CPU has it, and the value-by-value path)
// against the plain definition: value by value, a division each, the range doubling as values
// arrive. Bin for bin.
#include "compiler/quantize/abs_histogram.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <vector>

namespace loom::quantize {
namespace {

// The definition, as calibration computed it before the fast path.
struct PlainHistogram {
  static constexpr int kBins = AbsHistogram::kBins;
  std::vector<uint64_t> bins = std::vector<uint64_t>(kBins, 0);
  double range = 0.0, max = 0.0;
  uint64_t count = 0;

  void Add(const float* x, int64_t n) {
    for (int64_t i = 0; i < n; ++i) {
      const double a = std::fabs(static_cast<double>(x[i]));
      if (!std::isfinite(a)) continue;
      max = std::max(max, a);
      if (a >= range) Grow(a);
      ++bins[static_cast<size_t>(std::min(kBins - 1, static_cast<int>(a / range * kBins)))];
      ++count;
    }
  }
  void Grow(double a) {
    if (range == 0.0) {
      range = a > 0.0 ? a * 1.0000001 : 1e-30;
      return;
    }
    while (a >= range) {
      for (int b = 0; b < kBins / 2; ++b) bins[b] = bins[2 * b] + bins[2 * b + 1];
      std::fill(bins.begin() + kBins / 2, bins.end(), 0);
      range *= 2.0;
    }
  }
};

void ExpectSame(const PlainHistogram& want, const AbsHistogram& got) {
  ASSERT_EQ(want.range, got.range());
  ASSERT_EQ(want.max, got.max());
  ASSERT_EQ(want.count, got.count());
  for (int b = 0; b < AbsHistogram::kBins; ++b) ASSERT_EQ(want.bins[b], got.bin(b)) << "bin " << b;
}

// Feeds the same chunks to the definition and to both paths.
void Check(const std::vector<std::vector<float>>& chunks) {
  for (bool vector : {true, false}) {
    SCOPED_TRACE(vector ? "vector path" : "scalar path");
    PlainHistogram want;
    AbsHistogram got;
    for (const auto& c : chunks) {
      want.Add(c.data(), static_cast<int64_t>(c.size()));
      got.Add(c.data(), static_cast<int64_t>(c.size()), vector);
      ExpectSame(want, got);
    }
  }
}

TEST(AbsHistogram, RandomChunksMatchTheDefinition) {
  std::mt19937 rng(3);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::uniform_int_distribution<int> len(0, 700);
  for (int trial = 0; trial < 40; ++trial) {
    std::vector<std::vector<float>> chunks(8);
    // Growing scales make the range double between and inside chunks; ReLU-like halves of zeros.
    float scale = std::ldexp(1.0f, trial % 20 - 10);
    for (auto& c : chunks) {
      c.resize(static_cast<size_t>(len(rng)));
      for (float& v : c) {
        v = normal(rng) * scale;
        if (trial % 2 == 0 && v < 0.0f) v = 0.0f;
      }
      scale *= trial % 3 == 0 ? 1.0f : 3.7f;
    }
    Check(chunks);
  }
}

TEST(AbsHistogram, SpecialValuesMatchTheDefinition) {
  const float inf = std::numeric_limits<float>::infinity();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float den = std::numeric_limits<float>::denorm_min();
  const float big = std::numeric_limits<float>::max();
  // First value NaN, then zero (range 1e-30), then denormals and growth to float's max.
  Check({{nan, -inf, 0.0f, -0.0f}, {den, -den * 3, 0.0f}, {1e-20f, nan, 2.5f, -0.0f}, {big, -big}});
  // Nothing finite at all, then one value.
  Check({{nan, inf}, {}, {-inf}, {7.0f}});
  // Only denormals for a while (no float scale), then NaN, inf and zeros inside vector blocks.
  std::vector<float> mixed(300, 0.0f);
  for (size_t i = 0; i < mixed.size(); ++i) {
    mixed[i] = i % 7 == 0 ? nan : i % 11 == 0 ? -inf : i % 3 == 0 ? 0.0f : 0.01f * i;
  }
  Check({{den, den * 5, den * 2, den, den, den, den, den, den}, mixed});
}

// Values on and next to every bin edge, where the float multiply and the division may round apart.
TEST(AbsHistogram, BinEdgesMatchTheDefinition) {
  for (float first : {1.0f, 3.0f, 0.1f, 123.456f, 6.02e23f}) {
    PlainHistogram plain;
    plain.Add(&first, 1);
    std::vector<float> edges;
    for (int k = 0; k <= 2 * AbsHistogram::kBins; ++k) {
      const float e = static_cast<float>(plain.range * k / AbsHistogram::kBins);
      for (float v : {std::nextafter(e, 0.0f), e, std::nextafter(e, 1e38f)}) edges.push_back(v);
    }
    Check({{first}, edges});
  }
}

TEST(AbsHistogram, PercentileAndMse) {
  AbsHistogram h;
  EXPECT_EQ(h.Percentile(99.0), 0.0);
  EXPECT_EQ(h.MseRange(), 0.0);
  std::vector<float> x(1000);
  for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(i + 1);
  h.Add(x.data(), static_cast<int64_t>(x.size()));
  EXPECT_EQ(h.max(), 1000.0);
  EXPECT_EQ(h.Percentile(100.0), 1000.0);
  // 500 of 1000 values are <= 500: the 50th percentile is the upper edge of 500's bin.
  const double width = h.range() / AbsHistogram::kBins;
  EXPECT_GE(h.Percentile(50.0), 500.0);
  EXPECT_LE(h.Percentile(50.0), 500.0 + width);
  EXPECT_GT(h.MseRange(), 0.0);
  EXPECT_LE(h.MseRange(), 1000.0);
}

}  // namespace
}  // namespace loom::quantize
