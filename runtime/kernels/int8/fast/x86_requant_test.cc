// The x86 requantization helpers (x86_requant.h) against the reference ShrRnd and Requantize on
// every shift in [-31, 31] and the values where rounding can go wrong: the ends of int32 (where
// a + 2^(n-1) would overflow), powers of two and their neighbours, and random values.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <vector>

#include "runtime/kernels/int8/fast/fast.h"
#include "runtime/kernels/int8/qops.h"

#if defined(__x86_64__)
#include "runtime/kernels/int8/fast/x86_requant.h"

namespace loom::kernels::q::fast {
namespace {

std::vector<int32_t> EdgeValues() {
  std::vector<int32_t> v = {INT32_MIN, INT32_MIN + 1, INT32_MAX, INT32_MAX - 1, -1, 0, 1};
  for (int b = 0; b < 31; ++b) {
    const int32_t p = int32_t{1} << b;
    for (int32_t d : {-1, 0, 1}) {
      v.push_back(p + d);
      v.push_back(-p + d);
      v.push_back(p + p / 2 + d);  // exactly half way for a shift of b
      v.push_back(-p - p / 2 + d);
    }
  }
  std::mt19937 rng(41);
  std::uniform_int_distribution<int32_t> d(INT32_MIN, INT32_MAX);
  for (int i = 0; i < 2000; ++i) v.push_back(d(rng));
  while (v.size() % 8 != 0) v.push_back(0);
  return v;
}

__attribute__((target("avx2"))) void ShrRnd8(const int32_t* a, int32_t n, int32_t* out) {
  const __m256i r = ShrRndAvx2(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(a)), n);
  _mm256_storeu_si256(reinterpret_cast<__m256i*>(out), r);
}

TEST(X86Requant, ShrRndMatchesReferenceOnEveryShift) {
  if (!PathSupported(KernelPath::kAvx2)) GTEST_SKIP() << "this CPU has no AVX2";
  const std::vector<int32_t> v = EdgeValues();
  for (int32_t n = -31; n <= 31; ++n) {
    for (size_t i = 0; i < v.size(); i += 8) {
      int32_t got[8];
      ShrRnd8(v.data() + i, n, got);
      for (size_t j = 0; j < 8; ++j) {
        ASSERT_EQ(got[j], ShrRnd(v[i + j], n)) << "ShrRnd(" << v[i + j] << ", " << n << ")";
      }
    }
  }
}

TEST(X86Requant, RequantizeMatchesReference) {
  if (!PathSupported(KernelPath::kAvx2)) GTEST_SKIP() << "this CPU has no AVX2";
  const std::vector<int32_t> v = EdgeValues();
  std::mt19937 rng(42);
  std::uniform_int_distribution<int32_t> any(INT32_MIN, INT32_MAX), shift(-31, 31);
  for (int t = 0; t < 400; ++t) {
    Requant rq;
    rq.pre_shift = shift(rng);
    rq.post_shift = shift(rng);
    rq.clip_lo = std::uniform_int_distribution<int32_t>(-128, 0)(rng);
    rq.clip_hi = std::uniform_int_distribution<int32_t>(rq.clip_lo, 127)(rng);
    int32_t mult[8];
    for (int32_t& m : mult) m = t % 4 == 0 ? (t % 8 == 0 ? INT32_MIN : INT32_MAX) : any(rng);
    for (size_t i = 0; i < v.size(); i += 8) {
      int8_t got[8];
      RequantizeAvx2x8(v.data() + i, mult, rq, got);
      for (size_t j = 0; j < 8; ++j) {
        ASSERT_EQ(got[j], Requantize(v[i + j], mult[j], rq))
            << "acc " << v[i + j] << " mult " << mult[j] << " shifts " << rq.pre_shift << "/"
            << rq.post_shift;
      }
    }
  }
}

}  // namespace
}  // namespace loom::kernels::q::fast

#endif  // __x86_64__
