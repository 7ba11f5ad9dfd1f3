// The accelerator's requantization (qops.h: SHR_RND, MUL, SHR_RND, clip) on eight int32 lanes,
// for the x86 tables. Internal to fast/; include only from files whose functions carry an AVX2
// target, after <immintrin.h>.
#ifndef LOOM_RUNTIME_KERNELS_INT8_FAST_X86_REQUANT_H_
#define LOOM_RUNTIME_KERNELS_INT8_FAST_X86_REQUANT_H_

#include <immintrin.h>

#include <cstdint>

#include "runtime/kernels/int8/qops.h"

namespace loom::kernels::q::fast {

// ShrRnd without 64-bit lanes. For n >= 2, (a + 2^(n-1)) >> n == ((a >> (n-1)) + 1) >> 1: both
// are floor((a / 2^(n-1) + 1) / 2), since floor((floor(x) + 1) / 2) == floor((x + 1) / 2), and
// |a >> (n-1)| <= 2^30 so the + 1 cannot overflow. For n == 1 that sum could (a = INT32_MAX), so
// it is (a >> 1) + bit 0 of a. Both exact over all of int32. n < 0 is a wrapping left shift, as in
// ShrRnd.
__attribute__((target("avx2"))) inline __m256i ShrRndAvx2(__m256i a, int32_t n) {
  if (n > 1) {
    const __m256i t = _mm256_sra_epi32(a, _mm_cvtsi32_si128(n - 1));
    return _mm256_srai_epi32(_mm256_add_epi32(t, _mm256_set1_epi32(1)), 1);
  }
  if (n == 1) {
    return _mm256_add_epi32(_mm256_srai_epi32(a, 1), _mm256_and_si256(a, _mm256_set1_epi32(1)));
  }
  if (n < 0) return _mm256_sll_epi32(a, _mm_cvtsi32_si128(-n));
  return a;
}

// Requantize of eight accumulators up to the clip, as int32 in [clip_lo, clip_hi]; `offset` (Mul's
// and AvgPool's output zero point, broadcast) is added wrapping after the last shift, as in
// Requantize. Callers that hold several registers pack them together.
__attribute__((target("avx2"))) inline __m256i RequantClipAvx2(__m256i a, __m256i mult,
                                                               const Requant& rq, __m256i offset,
                                                               __m256i lo, __m256i hi) {
  a = ShrRndAvx2(a, rq.pre_shift);
  a = _mm256_mullo_epi32(a, mult);
  a = _mm256_add_epi32(ShrRndAvx2(a, rq.post_shift), offset);
  return _mm256_min_epi32(_mm256_max_epi32(a, lo), hi);
}

// Requantize of eight accumulators in a register, clip bounds broadcast in lo and hi; the eight
// int8 results are the low 64 bits. The clip bounds lie in [-128, 127], so the packs are exact.
__attribute__((target("avx2"))) inline __m128i RequantizeAvx2Reg(__m256i a, __m256i mult,
                                                                 const Requant& rq, __m256i lo,
                                                                 __m256i hi) {
  a = RequantClipAvx2(a, mult, rq, _mm256_setzero_si256(), lo, hi);  // the add of 0 folds away
  const __m256i p = _mm256_packs_epi32(a, a);  // [a0..a3 a0..a3 | a4..a7 a4..a7] as int16
  const __m128i w = _mm_unpacklo_epi64(_mm256_castsi256_si128(p), _mm256_extracti128_si256(p, 1));
  return _mm_packs_epi16(w, w);
}

// Sixteen lanes clipped by RequantClipAvx2 (r0: lanes 0-7, r1: 8-15) as int8, in order.
__attribute__((target("avx2"))) inline __m128i PackClippedAvx2(__m256i r0, __m256i r1) {
  // packs is in-lane: [r0 0-3, r1 0-3 | r0 4-7, r1 4-7]; the permute puts the quarters in order.
  const __m256i w = _mm256_permute4x64_epi64(_mm256_packs_epi32(r0, r1), 0xd8);
  return _mm_packs_epi16(_mm256_castsi256_si128(w), _mm256_extracti128_si256(w, 1));
}

// 16 int8 from two int32 vectors of in-lane interleaved halves (r0: elements 0-3 and 8-11, r1:
// 4-7 and 12-15, as unpacklo/unpackhi of 16 int16 leave them), in element order, saturating.
__attribute__((target("avx2"))) inline __m128i PackInLaneAvx2(__m256i r0, __m256i r1) {
  const __m256i w = _mm256_packs_epi32(r0, r1);  // int16, elements 0-7 | 8-15
  return _mm_packs_epi16(_mm256_castsi256_si128(w), _mm256_extracti128_si256(w, 1));
}

// out[0..8) = Requantize(acc[j], mult[j], rq).
__attribute__((target("avx2"))) inline void RequantizeAvx2x8(const int32_t* acc,
                                                             const int32_t* mult, const Requant& rq,
                                                             int8_t* out) {
  const __m128i q =
      RequantizeAvx2Reg(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(acc)),
                        _mm256_loadu_si256(reinterpret_cast<const __m256i*>(mult)), rq,
                        _mm256_set1_epi32(rq.clip_lo), _mm256_set1_epi32(rq.clip_hi));
  _mm_storel_epi64(reinterpret_cast<__m128i*>(out), q);
}

}  // namespace loom::kernels::q::fast

#endif  // LOOM_RUNTIME_KERNELS_INT8_FAST_X86_REQUANT_H_
