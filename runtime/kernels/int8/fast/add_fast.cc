// fast::Add (fast.h): qops.h's Add, sixteen lanes at a time on x86 and NEON. A block with padding
// lanes (channels past c, batch rows past n) runs the same way over all its lanes, and the padding
// lanes are then written 0, as add.cc writes them. Each product is at most 128 * 32768 = 2^22, so
// a * mult_a + b * mult_b cannot overflow int32 and equals the reference's sum: on x86 one
// vpmaddwd on interleaved int16 pairs, on NEON a widening vmull + vmlal of the int16 values by
// the int16 multipliers. ShrRnd, the clip and the narrowing are those of the requantization
// (x86_requant.h, neon_requant.h).
#include <algorithm>
#include <cstring>

#include "runtime/kernels/int8/fast/fast.h"
#include "runtime/kernels/int8/fast/padding_lanes.h"
#include "runtime/kernels/int8/internal.h"

#if defined(__x86_64__)
#include "runtime/kernels/int8/fast/x86_requant.h"
#elif defined(__ARM_NEON)
#include "runtime/kernels/int8/fast/neon_requant.h"
#endif

namespace loom::kernels::q::fast {
namespace {

int8_t AddOne(const AddParams& p, int8_t a, int8_t b) {
  int32_t v = ShrRnd(int32_t{a} * p.mult_a + int32_t{b} * p.mult_b, p.shift);
  v = v < p.clip_lo ? p.clip_lo : (v > p.clip_hi ? p.clip_hi : v);
  return Saturate8(v);
}

#if defined(__x86_64__)
__attribute__((target("avx2"))) size_t AddAvx2(const AddParams& p, const int8_t* a, const int8_t* b,
                                               size_t count, int8_t* out) {
  const __m256i mults = _mm256_set1_epi32(static_cast<int32_t>(
      (static_cast<uint32_t>(p.mult_b) << 16) | (static_cast<uint32_t>(p.mult_a) & 0xffffu)));
  const __m256i lo = _mm256_set1_epi32(p.clip_lo), hi = _mm256_set1_epi32(p.clip_hi);
  size_t i = 0;
  for (; i + 16 <= count; i += 16) {
    const __m256i a16 =
        _mm256_cvtepi8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(a + i)));
    const __m256i b16 =
        _mm256_cvtepi8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(b + i)));
    // In-lane interleave: s0 holds elements 0-3 and 8-11, s1 4-7 and 12-15; packs (also in-lane)
    // puts them back in order.
    __m256i s0 = _mm256_madd_epi16(_mm256_unpacklo_epi16(a16, b16), mults);
    __m256i s1 = _mm256_madd_epi16(_mm256_unpackhi_epi16(a16, b16), mults);
    s0 = _mm256_min_epi32(_mm256_max_epi32(ShrRndAvx2(s0, p.shift), lo), hi);
    s1 = _mm256_min_epi32(_mm256_max_epi32(ShrRndAvx2(s1, p.shift), lo), hi);
    _mm_storeu_si128(reinterpret_cast<__m128i*>(out + i), PackInLaneAvx2(s0, s1));
  }
  return i;
}
#elif defined(__ARM_NEON)
// out[i] for i in [0, count rounded down to 16). Returns the elements done.
size_t AddNeon(const AddParams& p, const int8_t* a, const int8_t* b, size_t count, int8_t* out) {
  const int16x4_t ma = vdup_n_s16(static_cast<int16_t>(p.mult_a));
  const int16x4_t mb = vdup_n_s16(static_cast<int16_t>(p.mult_b));
  const int32x4_t lo = vdupq_n_s32(p.clip_lo), hi = vdupq_n_s32(p.clip_hi);
  const int32_t shift = p.shift;  // a copy: the int8 stores could alias p, so it would be reloaded
  // Four lanes: ShrRnd(a * mult_a + b * mult_b, shift), clipped. Forced inline, as neon_requant.h's
  // helpers are: -Os (the bare-metal build) would make it a call that reloads every constant.
  auto quarter = [&](int16x4_t a4, int16x4_t b4) __attribute__((always_inline)) {
    const int32x4_t s = vmlal_s16(vmull_s16(a4, ma), b4, mb);
    return vminq_s32(vmaxq_s32(ShrRndNeon(s, shift), lo), hi);
  };
  size_t i = 0;
  for (; i + 16 <= count; i += 16) {
    const int8x16_t a8 = vld1q_s8(a + i), b8 = vld1q_s8(b + i);
    const int16x8_t a0 = vmovl_s8(vget_low_s8(a8)), a1 = vmovl_s8(vget_high_s8(a8));
    const int16x8_t b0 = vmovl_s8(vget_low_s8(b8)), b1 = vmovl_s8(vget_high_s8(b8));
    const int32x4_t s[4] = {
        quarter(vget_low_s16(a0), vget_low_s16(b0)), quarter(vget_high_s16(a0), vget_high_s16(b0)),
        quarter(vget_low_s16(a1), vget_low_s16(b1)), quarter(vget_high_s16(a1), vget_high_s16(b1))};
    StoreClipped<4>(s, out + i);
  }
  return i;
}
#endif

// The elements [0, count) of one fully real block run.
void AddRun(KernelPath path, const AddParams& p, const int8_t* a, const int8_t* b, size_t count,
            int8_t* out) {
  size_t i = 0;
#if defined(__x86_64__)
  if ((path == KernelPath::kAvx2 || path == KernelPath::kAvx512Vnni) && PathSupported(path)) {
    i = AddAvx2(p, a, b, count, out);
  }
#elif defined(__ARM_NEON)
  if ((path == KernelPath::kNeon || path == KernelPath::kNeonDot) && PathSupported(path)) {
    i = AddNeon(p, a, b, count, out);
  }
#endif
  (void)path;
  for (; i < count; ++i) out[i] = AddOne(p, a[i], b[i]);
}

}  // namespace

Status Add(KernelPath path, const Blocking& b, const AddParams& p, const int8_t* a,
           const int8_t* bb, int8_t* out) {
  if (path == KernelPath::kReference) return q::Add(b, p, a, bb, out);
  LOOM_RETURN_IF_ERROR(internal::CheckAddCall(b, p, a, bb, out));
  const uint32_t B = b.batch, C = b.block;
  const uint32_t nbs = CeilDiv(p.shape.n, B), cbs = CeilDiv(p.shape.c, C);
  const size_t run = size_t{p.shape.h} * p.shape.w * B * C;  // one (batch block, channel block)
  for (uint32_t nb = 0; nb < nbs; ++nb) {
    const uint32_t real_b = std::min(B, p.shape.n - nb * B);
    for (uint32_t cb = 0; cb < cbs; ++cb) {
      const uint32_t real_c = std::min(C, p.shape.c - cb * C);
      const size_t at = (size_t{nb} * cbs + cb) * run;
      AddRun(path, p, a + at, bb + at, run, out + at);
      ZeroPaddingLanes(out + at, run / (size_t{B} * C), B, C, real_b, real_c);
    }
  }
  return Status::Ok();
}

}  // namespace loom::kernels::q::fast
