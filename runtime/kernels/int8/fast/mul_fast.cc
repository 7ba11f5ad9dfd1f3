// fast::Mul (fast.h): qops.h's Mul, sixteen lanes at a time on x86 and NEON, exact as in the
// reference: t = b * b_mult + b_offset (|b * b_mult| <= 2^22) in int32, clamped to [b_lo, b_hi],
// whose 16-bit bounds make the narrowing to int16 exact; then |(a + a_offset) * t| < 2^24. On x86
// both are one vpmaddwd on interleaved int16 pairs, the second as a * t + a_offset * t (|each| <
// 2^23). On NEON t is a widening vmlal of b by b_mult onto b_offset, and a + a_offset (in [-383,
// 382]) an int16 add before a widening vmull by t. The requantization, with the output offset, is
// x86_requant.h's or neon_requant.h's. A per-channel b is one B x c vector per (batch block,
// channel block), read again at every position (one pass over the whole run). Padding lanes run
// like the others and are then written 0, as mul.cc writes them.
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

int8_t MulOne(const MulParams& p, int8_t a, int8_t b) {
  int32_t t = int32_t{b} * p.b_mult + p.b_offset;
  t = t < p.b_lo ? p.b_lo : (t > p.b_hi ? p.b_hi : t);
  return Requantize((int32_t{a} + p.a_offset) * t, p.mult, p.rq, p.out_offset);
}

// A vector kernel: out[i] for i in [0, count rounded down to 16), with b[j] for a[i] where
// j = i mod b_len when b_len (a multiple of 16) is not 0, else j = i. Returns the elements done.
using MulVector = size_t (*)(const MulParams& p, const int8_t* a, const int8_t* b, size_t b_len,
                             size_t count, int8_t* out);

#if defined(__x86_64__)
__attribute__((target("avx2"))) size_t MulAvx2(const MulParams& p, const int8_t* a, const int8_t* b,
                                               size_t b_len, size_t count, int8_t* out) {
  const __m256i b_mo = _mm256_set1_epi32(static_cast<int32_t>(
      (static_cast<uint32_t>(p.b_offset) << 16) | (static_cast<uint32_t>(p.b_mult) & 0xffffu)));
  const __m256i one = _mm256_set1_epi16(1),
                a_off = _mm256_set1_epi16(static_cast<int16_t>(p.a_offset));
  const __m256i b_lo = _mm256_set1_epi32(p.b_lo), b_hi = _mm256_set1_epi32(p.b_hi);
  const __m256i mult = _mm256_set1_epi32(p.mult), offset = _mm256_set1_epi32(p.out_offset);
  const __m256i lo = _mm256_set1_epi32(p.rq.clip_lo), hi = _mm256_set1_epi32(p.rq.clip_hi);
  size_t i = 0, j = 0;
  for (; i + 16 <= count; i += 16) {
    const __m256i b16 =
        _mm256_cvtepi8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(b + j)));
    j += 16;
    if (j == b_len) j = 0;
    const __m256i a16 =
        _mm256_cvtepi8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(a + i)));
    // In-lane interleave, as in add_fast.cc: *0 hold elements 0-3 and 8-11, *1 4-7 and 12-15,
    // and packs (also in-lane) puts them back in order.
    __m256i t0 = _mm256_madd_epi16(_mm256_unpacklo_epi16(b16, one), b_mo);
    __m256i t1 = _mm256_madd_epi16(_mm256_unpackhi_epi16(b16, one), b_mo);
    t0 = _mm256_min_epi32(_mm256_max_epi32(t0, b_lo), b_hi);
    t1 = _mm256_min_epi32(_mm256_max_epi32(t1, b_lo), b_hi);
    const __m256i t16 = _mm256_packs_epi32(t0, t1);
    __m256i s0 =
        _mm256_madd_epi16(_mm256_unpacklo_epi16(a16, a_off), _mm256_unpacklo_epi16(t16, t16));
    __m256i s1 =
        _mm256_madd_epi16(_mm256_unpackhi_epi16(a16, a_off), _mm256_unpackhi_epi16(t16, t16));
    s0 = RequantClipAvx2(s0, mult, p.rq, offset, lo, hi);
    s1 = RequantClipAvx2(s1, mult, p.rq, offset, lo, hi);
    _mm_storeu_si128(reinterpret_cast<__m128i*>(out + i), PackInLaneAvx2(s0, s1));
  }
  return i;
}
#elif defined(__ARM_NEON)
size_t MulNeon(const MulParams& p, const int8_t* a, const int8_t* b, size_t b_len, size_t count,
               int8_t* out) {
  const int16x4_t b_mult = vdup_n_s16(static_cast<int16_t>(p.b_mult));
  const int32x4_t b_offset = vdupq_n_s32(p.b_offset);
  const int32x4_t b_lo = vdupq_n_s32(p.b_lo), b_hi = vdupq_n_s32(p.b_hi);
  const int16x8_t a_offset = vdupq_n_s16(static_cast<int16_t>(p.a_offset));
  const int32x4_t mult = vdupq_n_s32(p.mult), offset = vdupq_n_s32(p.out_offset);
  const int32x4_t lo = vdupq_n_s32(p.rq.clip_lo), hi = vdupq_n_s32(p.rq.clip_hi);
  const Requant rq = p.rq;  // a copy: the int8 stores could alias p, whose shifts would be reloaded
  // Four lanes: (a + a_offset) * clamp(b * b_mult + b_offset, b_lo, b_hi), requantized. Forced
  // inline, as in add_fast.cc: -Os would make it a call that reloads every constant.
  auto quarter = [&](int16x4_t a4, int16x4_t b4) __attribute__((always_inline)) {
    const int32x4_t t = vminq_s32(vmaxq_s32(vmlal_s16(b_offset, b4, b_mult), b_lo), b_hi);
    return RequantClipNeon(vmull_s16(a4, vmovn_s32(t)), mult, rq, offset, lo, hi);
  };
  size_t i = 0, j = 0;
  for (; i + 16 <= count; i += 16) {
    const int8x16_t b8 = vld1q_s8(b + j);
    j += 16;
    if (j == b_len) j = 0;
    const int8x16_t a8 = vld1q_s8(a + i);
    const int16x8_t b0 = vmovl_s8(vget_low_s8(b8)), b1 = vmovl_s8(vget_high_s8(b8));
    const int16x8_t a0 = vaddq_s16(vmovl_s8(vget_low_s8(a8)), a_offset);
    const int16x8_t a1 = vaddq_s16(vmovl_s8(vget_high_s8(a8)), a_offset);
    const int32x4_t s[4] = {
        quarter(vget_low_s16(a0), vget_low_s16(b0)), quarter(vget_high_s16(a0), vget_high_s16(b0)),
        quarter(vget_low_s16(a1), vget_low_s16(b1)), quarter(vget_high_s16(a1), vget_high_s16(b1))};
    StoreClipped<4>(s, out + i);
  }
  return i;
}
#endif

// The elements [0, count) of one block run, b of the same shape; `vec` null runs the plain loop.
void MulRun(MulVector vec, const MulParams& p, const int8_t* a, const int8_t* b, size_t count,
            int8_t* out) {
  size_t i = vec != nullptr ? vec(p, a, b, 0, count, out) : 0;
  for (; i < count; ++i) out[i] = MulOne(p, a[i], b[i]);
}

// The elements [0, count) of one block run, b one vector of `lanes` (B x c) for every position.
void MulBroadcastRun(MulVector vec, const MulParams& p, const int8_t* a, const int8_t* b,
                     size_t lanes, size_t count, int8_t* out) {
  size_t i = 0;
  // The vector loop reads b in steps of 16: b itself when lanes is a multiple of 16, else b
  // repeated to lcm(lanes, 16) bytes on the stack when that is at most 256 (else the plain loop).
  constexpr size_t kMaxRepeat = 256;
  int8_t repeat[kMaxRepeat];
  size_t len = lanes;
  while (len % 16 != 0) len += lanes;
  if (vec != nullptr && len == lanes) {
    i = vec(p, a, b, lanes, count, out);
  } else if (vec != nullptr && len <= kMaxRepeat) {
    for (size_t l = 0; l < len; ++l) repeat[l] = b[l % lanes];
    i = vec(p, a, repeat, len, count, out);
  }
  // j = i mod lanes, kept by a wrap, not a division per element (armv7 has no divider).
  for (size_t j = i % lanes; i < count; ++i) {
    out[i] = MulOne(p, a[i], b[j]);
    if (++j == lanes) j = 0;
  }
}

}  // namespace

Status Mul(KernelPath path, const Blocking& b, const MulParams& p, const int8_t* a,
           const int8_t* bb, int8_t* out) {
  if (path == KernelPath::kReference) return q::Mul(b, p, a, bb, out);
  LOOM_RETURN_IF_ERROR(internal::CheckMulCall(b, p, a, bb, out));
  MulVector vec = nullptr;
#if defined(__x86_64__)
  if ((path == KernelPath::kAvx2 || path == KernelPath::kAvx512Vnni) && PathSupported(path)) {
    vec = MulAvx2;
  }
#elif defined(__ARM_NEON)
  if ((path == KernelPath::kNeon || path == KernelPath::kNeonDot) && PathSupported(path)) {
    vec = MulNeon;
  }
#endif
  const uint32_t B = b.batch, C = b.block;
  const uint32_t nbs = CeilDiv(p.shape.n, B), cbs = CeilDiv(p.shape.c, C);
  const size_t lanes = size_t{B} * C;
  const size_t run = size_t{p.shape.h} * p.shape.w * lanes;  // one (batch block, channel block)
  for (uint32_t nb = 0; nb < nbs; ++nb) {
    const uint32_t real_b = std::min(B, p.shape.n - nb * B);
    for (uint32_t cb = 0; cb < cbs; ++cb) {
      const uint32_t real_c = std::min(C, p.shape.c - cb * C);
      const size_t blk = size_t{nb} * cbs + cb, at = blk * run;
      if (p.b_per_channel) {
        MulBroadcastRun(vec, p, a + at, bb + blk * lanes, lanes, run, out + at);
      } else {
        MulRun(vec, p, a + at, bb + at, run, out + at);
      }
      ZeroPaddingLanes(out + at, run / lanes, B, C, real_b, real_c);
    }
  }
  return Status::Ok();
}

}  // namespace loom::kernels::q::fast
