// fast::QuantizeF32 (fast.h): the graph input's float -> int8 step, eight lanes at a time on x86.
// The reference (quantize.cc) divides, saturates at [-128, 127], rounds half to even and maps NaN
// to 0, one element at a time through libm's floor (the build has no SSE4.1 baseline, so floor is
// a call). The same steps in AVX2: vdivps is the same correctly rounded division as divss;
// clamping to [-128, 127] before rounding gives the reference's saturation (every value in
// between rounds to a value in range; with a zero point z the bounds are [-128 - z, 127 - z] and z
// is added after the rounding); vroundps with round-to-nearest is round half to even, whatever
// the MXCSR mode; NaN lanes are masked to 0 at the end, which is z after the addition.
#include "runtime/kernels/int8/fast/fast.h"
#include "runtime/kernels/int8/internal.h"

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace loom::kernels::q::fast {
namespace {

#if defined(__x86_64__)
__attribute__((target("avx2"))) size_t QuantizeAvx2(const float* x, size_t count, float scale,
                                                    int32_t z, int8_t* q) {
  const __m256 s = _mm256_set1_ps(scale);
  const __m256 lo = _mm256_set1_ps(static_cast<float>(-128 - z));
  const __m256 hi = _mm256_set1_ps(static_cast<float>(127 - z));
  const __m256i zv = _mm256_set1_epi32(z);
  size_t i = 0;
  for (; i + 8 <= count; i += 8) {
    const __m256 v = _mm256_div_ps(_mm256_loadu_ps(x + i), s);
    const __m256i nan = _mm256_castps_si256(_mm256_cmp_ps(v, v, _CMP_UNORD_Q));
    const __m256 c = _mm256_min_ps(_mm256_max_ps(v, lo), hi);  // NaN lanes: masked below
    const __m256 r = _mm256_round_ps(c, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    const __m256i n = _mm256_add_epi32(_mm256_andnot_si256(nan, _mm256_cvtps_epi32(r)), zv);
    const __m128i w = _mm_packs_epi32(_mm256_castsi256_si128(n), _mm256_extracti128_si256(n, 1));
    _mm_storel_epi64(reinterpret_cast<__m128i*>(q + i), _mm_packs_epi16(w, w));
  }
  return i;
}
#endif

}  // namespace

Status QuantizeF32(KernelPath path, const float* x, size_t count, float scale, int32_t zero_point,
                   int8_t* q) {
#if defined(__x86_64__)
  if ((path == KernelPath::kAvx2 || path == KernelPath::kAvx512Vnni) && PathSupported(path) &&
      count >= 8) {
    // The reference's checks and messages first (a count of 0 checks only the scale).
    LOOM_RETURN_IF_ERROR(q::QuantizeF32(x, 0, scale, zero_point, q));
    LOOM_RETURN_IF_ERROR(internal::CheckNotNull(x, "QuantizeF32: input"));
    LOOM_RETURN_IF_ERROR(internal::CheckNotNull(q, "QuantizeF32: output"));
    LOOM_RETURN_IF_ERROR(internal::CheckNoAlias(x, count * sizeof(float), q, count, "QuantizeF32"));
    const size_t done = QuantizeAvx2(x, count, scale, zero_point, q);
    return q::QuantizeF32(x + done, count - done, scale, zero_point, q + done);
  }
#endif
  (void)path;
  return q::QuantizeF32(x, count, scale, zero_point, q);
}

}  // namespace loom::kernels::q::fast
