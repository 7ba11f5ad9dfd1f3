// AbsHistogram (abs_histogram.h). Why the fast path gives the definition's bins exactly:
//  - Growing once to the chunk's maximum before binning it, instead of value by value, ends at
//    the same range (the smallest range * 2^k above every value). A value binned at range r and
//    merged k times lands in floor(RN(a / r) * bins) >> k; binned at r * 2^k it lands in
//    floor(RN(a / r) / 2^k * bins): the same integer (scaling by 2^k is exact, and floor then
//    shift is floor of the quotient). The clamp to the last bin never differs: RN(a / r) == 1
//    needs a double r within 2^-54 above the value a < r, and none exists.
//  - The vector path scales in float: a * RN(bins / range) is within 2.5e-4 of the definition's
//    RN(a / range) * bins (a few float roundings of the same real number, below 2048), so its
//    integer part is the definition's unless it lies within kEdge of an integer; those values
//    (about one in 500) take the definition's division.
#include "compiler/quantize/abs_histogram.h"

#include <algorithm>
#include <cmath>
#include <limits>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace loom::quantize {
namespace {

constexpr double kSymmetricLevels = 127.0;
constexpr float kFloatMax = std::numeric_limits<float>::max();
constexpr float kEdge = 1e-3f;

// max |x| over the finite elements (0 if none). Fixed-length inner loops: GCC's -O2 vectorizer
// takes them.
float FiniteAbsMax(const float* x, int64_t n) {
  constexpr int kLanes = 16;
  float lane[kLanes] = {};
  int64_t i = 0;
  for (; i + kLanes <= n; i += kLanes) {
    for (int j = 0; j < kLanes; ++j) {
      const float f = std::fabs(x[i + j]);
      lane[j] = f <= kFloatMax && f > lane[j] ? f : lane[j];
    }
  }
  float m = 0.0f;
  for (; i < n; ++i) {
    const float f = std::fabs(x[i]);
    if (f <= kFloatMax && f > m) m = f;
  }
  for (float l : lane) m = std::max(m, l);
  return m;
}

#if defined(__x86_64__)
__attribute__((target("avx2"))) float FiniteAbsMaxAvx2(const float* x, int64_t n) {
  const __m256 abs_mask = _mm256_castsi256_ps(_mm256_set1_epi32(0x7fffffff));
  const __m256 fmax = _mm256_set1_ps(kFloatMax);
  __m256 m0 = _mm256_setzero_ps(), m1 = _mm256_setzero_ps();
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) {
    const __m256 a = _mm256_and_ps(_mm256_loadu_ps(x + i), abs_mask);
    const __m256 b = _mm256_and_ps(_mm256_loadu_ps(x + i + 8), abs_mask);
    // NaN and inf fail the compare and count as 0.
    m0 = _mm256_max_ps(m0, _mm256_and_ps(a, _mm256_cmp_ps(a, fmax, _CMP_LE_OQ)));
    m1 = _mm256_max_ps(m1, _mm256_and_ps(b, _mm256_cmp_ps(b, fmax, _CMP_LE_OQ)));
  }
  alignas(32) float lanes[8];
  _mm256_store_ps(lanes, _mm256_max_ps(m0, m1));
  float m = 0.0f;
  for (float l : lanes) m = std::max(m, l);
  return std::max(m, FiniteAbsMax(x + i, n - i));
}
#endif

bool HaveAvx2() {
#if defined(__x86_64__)
  static const bool have = __builtin_cpu_supports("avx2");
  return have;
#else
  return false;
#endif
}

}  // namespace

void AbsHistogram::Add(const float* x, int64_t n, bool vector) {
  int64_t i = 0;
  if (range_ == 0.0) {
    // The first finite value sets the range, as in the definition.
    while (i < n && !(std::fabs(x[i]) <= kFloatMax)) ++i;
    if (i == n) return;
    Grow(std::fabs(static_cast<double>(x[i])));
  }
#if defined(__x86_64__)
  const double m =
      vector && HaveAvx2() ? FiniteAbsMaxAvx2(x + i, n - i) : FiniteAbsMax(x + i, n - i);
#else
  const double m = FiniteAbsMax(x + i, n - i);
#endif
  max_ = std::max(max_, m);
  if (m >= range_) Grow(m);
  // A range below about 1e-35 (every value so far denormal) has no float scale.
  const bool float_scale = static_cast<float>(kBins / range_) <= kFloatMax;
  count_ += vector && float_scale && HaveAvx2() ? AddAvx2(x + i, n - i) : AddScalar(x + i, n - i);
}

uint64_t AbsHistogram::AddScalar(const float* x, int64_t n) {
  uint64_t finite = 0;
  for (int64_t i = 0; i < n; ++i) {
    const double a = std::fabs(static_cast<double>(x[i]));
    if (!std::isfinite(a)) continue;
    ++bins_[static_cast<size_t>(ExactBin(a))];
    ++finite;
  }
  return finite;
}

#if defined(__x86_64__)
__attribute__((target("avx2,popcnt"))) uint64_t AbsHistogram::AddAvx2(const float* x, int64_t n) {
  constexpr int kBlock = 256;
  alignas(32) int32_t slot[kBlock];
  const __m256 abs_mask = _mm256_castsi256_ps(_mm256_set1_epi32(0x7fffffff));
  const __m256 fmax = _mm256_set1_ps(kFloatMax);
  const __m256 zero = _mm256_setzero_ps();
  const __m256 scale = _mm256_set1_ps(static_cast<float>(kBins / range_));
  const __m256 edge = _mm256_set1_ps(kEdge);
  const __m256i last = _mm256_set1_epi32(kBins - 1);
  // Zeros and NaN/inf go round the spare slots: a run of them in one slot would chain every
  // increment through one memory location. Zeros are counted from the masks instead.
  const __m256i spare = _mm256_setr_epi32(kBins, kBins + 1, kBins + 2, kBins + 3, kBins + 4,
                                          kBins + 5, kBins + 6, kBins + 7);
  uint64_t finite = 0, zeros = 0;
  int64_t i = 0;
  while (n - i >= 8) {
    const int len = static_cast<int>(std::min<int64_t>(kBlock, n - i) / 8 * 8);
    for (int j = 0; j < len; j += 8) {
      const __m256 f = _mm256_and_ps(_mm256_loadu_ps(x + i + j), abs_mask);
      const __m256 fin = _mm256_cmp_ps(f, fmax, _CMP_LE_OQ);
      const __m256 nonzero = _mm256_and_ps(fin, _mm256_cmp_ps(f, zero, _CMP_GT_OQ));
      const __m256 t = _mm256_mul_ps(_mm256_and_ps(f, fin), scale);  // NaN/inf scale as 0
      const __m256i b = _mm256_min_epi32(_mm256_cvttps_epi32(t), last);
      const __m256i lo = _mm256_cvttps_epi32(_mm256_sub_ps(t, edge));
      const __m256i hi = _mm256_cvttps_epi32(_mm256_add_ps(t, edge));
      _mm256_store_si256(reinterpret_cast<__m256i*>(slot + j),
                         _mm256_blendv_epi8(spare, b, _mm256_castps_si256(nonzero)));
      const int fin_bits = _mm256_movemask_ps(fin), nz_bits = _mm256_movemask_ps(nonzero);
      finite += static_cast<uint64_t>(__builtin_popcount(static_cast<unsigned>(fin_bits)));
      zeros +=
          static_cast<uint64_t>(__builtin_popcount(static_cast<unsigned>(fin_bits & ~nz_bits)));
      int near = _mm256_movemask_ps(_mm256_castsi256_ps(_mm256_cmpeq_epi32(lo, hi))) ^ 0xff;
      near &= nz_bits;
      while (near != 0) {  // rare: next to a bin edge the division decides
        const int k = __builtin_ctz(static_cast<unsigned>(near));
        near &= near - 1;
        slot[j + k] = ExactBin(std::fabs(static_cast<double>(x[i + j + k])));
      }
    }
    for (int j = 0; j < len; ++j) ++bins_[static_cast<size_t>(slot[j])];
    i += len;
  }
  bins_[0] += zeros;
  std::fill(bins_.begin() + kBins, bins_.end(), 0);
  return finite + AddScalar(x + i, n - i);
}
#else
uint64_t AbsHistogram::AddAvx2(const float* x, int64_t n) { return AddScalar(x, n); }
#endif

double AbsHistogram::Percentile(double p) const {
  if (count_ == 0) return 0.0;
  const double target = p / 100.0 * static_cast<double>(count_);
  uint64_t seen = 0;
  for (int b = 0; b < kBins; ++b) {
    seen += bins_[static_cast<size_t>(b)];
    if (static_cast<double>(seen) >= target) return std::min(max_, range_ * (b + 1) / kBins);
  }
  return max_;
}

double AbsHistogram::MseRange() const { return MseRange(kSymmetricLevels); }

double AbsHistogram::MseRange(double levels) const {
  if (count_ == 0 || max_ == 0.0) return 0.0;
  const double width = range_ / kBins;
  double best = max_, best_err = Error(max_, width, levels);
  for (int k = kMseStride; k < kBins; k += kMseStride) {
    const double c = width * k;
    if (c >= max_) break;
    const double e = Error(c, width, levels);
    if (e < best_err) best = c, best_err = e;
  }
  return best;
}

double AbsHistogram::Error(double c, double width, double levels) const {
  const double step = c / levels;
  double err = 0.0;
  for (int b = 0; b < kBins; ++b) {
    const uint64_t n = bins_[static_cast<size_t>(b)];
    if (n == 0) continue;
    const double x = width * (b + 0.5);
    const double d = x >= c ? x - c : x - step * std::nearbyint(x / step);
    err += static_cast<double>(n) * d * d;
  }
  return err;
}

void AbsHistogram::Grow(double a) {
  if (range_ == 0.0) {
    range_ = a > 0.0 ? a * 1.0000001 : 1e-30;
    return;
  }
  while (a >= range_) {
    for (int b = 0; b < kBins / 2; ++b) {
      bins_[static_cast<size_t>(b)] =
          bins_[2 * static_cast<size_t>(b)] + bins_[2 * static_cast<size_t>(b) + 1];
    }
    std::fill(bins_.begin() + kBins / 2, bins_.begin() + kBins, 0);
    range_ *= 2.0;
  }
}

}  // namespace loom::quantize
