// fast::AvgPool (fast.h): qops.h's AvgPool with every lane of a position at once, as
// max_pool_fast.cc does for the max: in the blocked layout one position's B x c bytes are
// contiguous, so a window's sums are vector adds of whole positions, where the reference walks the
// window once per lane. The reference's wrapping sum of (x + x_offset) equals sum(x) + real *
// x_offset mod 2^32 (real: the window's real positions), so x_offset is added once. On x86 and
// NEON the sums run in int16 (256 values of int8 lie in [-32768, 32512], so they cannot leave it)
// and are widened every 256 positions into int32 sums that start at that bias and wrap like the
// reference's (NEON: vaddw.s8 into int16, vaddw.s16 into int32); the requantization, with the
// output offset, is x86_requant.h's or neon_requant.h's. Elsewhere the lanes run in chunks of
// int32 sums the compiler vectorizes, requantized one at a time. Padding lanes are written 0, as
// the reference writes them.
#include <algorithm>
#include <cstring>

#include "runtime/kernels/int8/fast/fast.h"
#include "runtime/kernels/int8/fast/pool_windows.h"
#include "runtime/kernels/int8/pool_internal.h"

#if defined(__x86_64__)
#include "runtime/kernels/int8/fast/x86_requant.h"
#elif defined(__ARM_NEON)
#include "runtime/kernels/int8/fast/neon_requant.h"
#endif

namespace loom::kernels::q::fast {
namespace {

// One output position: its window's real positions and how to requantize their sums.
struct Window : PoolWindow {
  uint32_t bias = 0;  // real * x_offset, wrapping
  int32_t mult = 0;   // mult_by_count[count - 1]
};

void AvgPortable(const Window& w, const AvgPoolParams& p, size_t lanes, int8_t* out) {
  constexpr size_t kChunk = 64;
  for (size_t l0 = 0; l0 < lanes; l0 += kChunk) {
    const size_t n = std::min(kChunk, lanes - l0);
    uint32_t acc[kChunk];  // wrapping, as the reference's sum
    for (size_t l = 0; l < n; ++l) acc[l] = w.bias;
    for (uint32_t y = 0; y < w.rows; ++y)
      for (uint32_t x = 0; x < w.cols; ++x) {
        const int8_t* v = w.first + y * w.row_step + x * w.pos_step + l0;
        for (size_t l = 0; l < n; ++l) acc[l] += static_cast<uint32_t>(int32_t{v[l]});
      }
    for (size_t l = 0; l < n; ++l) {
      out[l0 + l] = Requantize(static_cast<int32_t>(acc[l]), w.mult, p.rq, p.out_offset);
    }
  }
}

#if defined(__x86_64__)
#define LOOM_AVX2 __attribute__((target("avx2")))

// acc[2g] += lanes 0-7 of part[g], acc[2g + 1] += lanes 8-15, and part restarts at 0.
template <int kG>
LOOM_AVX2 inline void Widen(__m256i* part, __m256i* acc) {
  for (int g = 0; g < kG; ++g) {
    const __m256i lo = _mm256_cvtepi16_epi32(_mm256_castsi256_si128(part[g]));
    const __m256i hi = _mm256_cvtepi16_epi32(_mm256_extracti128_si256(part[g], 1));
    acc[2 * g] = _mm256_add_epi32(acc[2 * g], lo);
    acc[2 * g + 1] = _mm256_add_epi32(acc[2 * g + 1], hi);
    part[g] = _mm256_setzero_si256();
  }
}

// Lanes [lane, lane + 16 * kG) of the window's positions: kG int16 sums of 16 lanes, widened into
// 2 * kG int32 sums of 8.
template <int kG>
LOOM_AVX2 void Avg16(const Window& w, size_t lane, const AvgPoolParams& p, int8_t* out) {
  __m256i acc[2 * kG], part[kG];
  for (int g = 0; g < kG; ++g) {
    acc[2 * g] = acc[2 * g + 1] = _mm256_set1_epi32(static_cast<int32_t>(w.bias));
    part[g] = _mm256_setzero_si256();
  }
  uint32_t k = 0;  // values in part since the last widening
  ForEachWindowPosition(w, lane, [&](const int8_t* v) LOOM_AVX2 {
    for (int g = 0; g < kG; ++g) {
      const __m128i b = _mm_loadu_si128(reinterpret_cast<const __m128i*>(v + 16 * g));
      part[g] = _mm256_add_epi16(part[g], _mm256_cvtepi8_epi16(b));
    }
    if (++k == 256) {
      Widen<kG>(part, acc);
      k = 0;
    }
  });
  Widen<kG>(part, acc);
  const __m256i mult = _mm256_set1_epi32(w.mult), offset = _mm256_set1_epi32(p.out_offset);
  const __m256i lo = _mm256_set1_epi32(p.rq.clip_lo), hi = _mm256_set1_epi32(p.rq.clip_hi);
  for (int g = 0; g < kG; ++g) {
    const __m256i r0 = RequantClipAvx2(acc[2 * g], mult, p.rq, offset, lo, hi);
    const __m256i r1 = RequantClipAvx2(acc[2 * g + 1], mult, p.rq, offset, lo, hi);
    _mm_storeu_si128(reinterpret_cast<__m128i*>(out + 16 * g), PackClippedAvx2(r0, r1));
  }
}

// Lanes [lane, lane + 8), summed in int32 directly.
LOOM_AVX2 void Avg8(const Window& w, size_t lane, const AvgPoolParams& p, int8_t* out) {
  __m256i acc = _mm256_set1_epi32(static_cast<int32_t>(w.bias));
  ForEachWindowPosition(w, lane, [&](const int8_t* v) LOOM_AVX2 {
    const __m128i b = _mm_loadl_epi64(reinterpret_cast<const __m128i*>(v));
    acc = _mm256_add_epi32(acc, _mm256_cvtepi8_epi32(b));
  });
  const __m256i r =
      RequantClipAvx2(acc, _mm256_set1_epi32(w.mult), p.rq, _mm256_set1_epi32(p.out_offset),
                      _mm256_set1_epi32(p.rq.clip_lo), _mm256_set1_epi32(p.rq.clip_hi));
  _mm_storel_epi64(reinterpret_cast<__m128i*>(out), PackClippedAvx2(r, r));
}

// Lanes in chunks of 32 (two int16 sums held over the window), then 16, then 8, then the rest
// as the portable loop.
LOOM_AVX2 void AvgAvx2(const Window& w, const AvgPoolParams& p, size_t lanes, int8_t* out) {
  size_t l = 0;
  for (; l + 32 <= lanes; l += 32) Avg16<2>(w, l, p, out + l);
  for (; l + 16 <= lanes; l += 16) Avg16<1>(w, l, p, out + l);
  for (; l + 8 <= lanes; l += 8) Avg8(w, l, p, out + l);
  if (l == lanes) return;
  Window rest = w;
  rest.first += l;
  AvgPortable(rest, p, lanes - l, out + l);
}
#elif defined(__ARM_NEON)
// acc[2e] += lanes 0-3 of part[e], acc[2e + 1] += lanes 4-7, and part restarts at 0.
template <int kE>
LOOM_NEON_INLINE void WidenNeon(int16x8_t (&part)[kE], int32x4_t (&acc)[2 * kE]) {
  LOOM_NEON_UNROLL
  for (int e = 0; e < kE; ++e) {
    acc[2 * e] = vaddw_s16(acc[2 * e], vget_low_s16(part[e]));
    acc[2 * e + 1] = vaddw_s16(acc[2 * e + 1], vget_high_s16(part[e]));
    part[e] = vdupq_n_s16(0);
  }
}

// Lanes [lane, lane + 8 * kE) of the window's positions, kE 1, 2 or
// 4: kE int16 sums of 8 lanes, widened into 2 * kE int32 sums of 4.
template <int kE>
void AvgSumsNeon(const Window& w, size_t lane, const AvgPoolParams& p, int8_t* out) {
  static_assert(kE == 1 || kE == 2 || kE == 4, "8, 16 or 32 lanes");
  int32x4_t acc[2 * kE];
  int16x8_t part[kE];
  LOOM_NEON_UNROLL
  for (int e = 0; e < kE; ++e) {
    acc[2 * e] = acc[2 * e + 1] = vdupq_n_s32(static_cast<int32_t>(w.bias));
    part[e] = vdupq_n_s16(0);
  }
  uint32_t k = 0;  // values in part since the last widening
  ForEachWindowPosition(
      w, lane, [&](const int8_t* v) __attribute__((always_inline)) {
        if constexpr (kE == 1) {
          part[0] = vaddw_s8(part[0], vld1_s8(v));
        } else {
          LOOM_NEON_UNROLL
          for (int g = 0; g < kE / 2; ++g) {
            const int8x16_t b = vld1q_s8(v + 16 * g);
            part[2 * g] = vaddw_s8(part[2 * g], vget_low_s8(b));
            part[2 * g + 1] = vaddw_s8(part[2 * g + 1], vget_high_s8(b));
          }
        }
        if (++k == 256) {
          WidenNeon<kE>(part, acc);
          k = 0;
        }
      });
  WidenNeon<kE>(part, acc);
  const int32x4_t mult = vdupq_n_s32(w.mult), offset = vdupq_n_s32(p.out_offset);
  const int32x4_t lo = vdupq_n_s32(p.rq.clip_lo), hi = vdupq_n_s32(p.rq.clip_hi);
  LOOM_NEON_UNROLL
  for (int j = 0; j < 2 * kE; ++j) acc[j] = RequantClipNeon(acc[j], mult, p.rq, offset, lo, hi);
  if constexpr (kE == 1) {
    StoreClipped<2>(acc, out);
  } else {
    LOOM_NEON_UNROLL
    for (int g = 0; g < kE / 2; ++g) StoreClipped<4>(acc + 4 * g, out + 16 * g);
  }
}

// Lanes in chunks of 32 (four int16 sums held over the window), then 16, then 8, then the rest as
// the portable loop.
void AvgNeon(const Window& w, const AvgPoolParams& p, size_t lanes, int8_t* out) {
  size_t l = 0;
  for (; l + 32 <= lanes; l += 32) AvgSumsNeon<4>(w, l, p, out + l);
  for (; l + 16 <= lanes; l += 16) AvgSumsNeon<2>(w, l, p, out + l);
  for (; l + 8 <= lanes; l += 8) AvgSumsNeon<1>(w, l, p, out + l);
  if (l == lanes) return;
  Window rest = w;
  rest.first += l;
  AvgPortable(rest, p, lanes - l, out + l);
}
#endif

}  // namespace

Status AvgPool(KernelPath path, const Blocking& b, const AvgPoolParams& p,
               const int32_t* mult_by_count, const int8_t* in, int8_t* out) {
  if (path == KernelPath::kReference) return q::AvgPool(b, p, mult_by_count, in, out);
  LOOM_RETURN_IF_ERROR(internal::CheckAvgPoolCall(b, p, mult_by_count, in, out));
  void (*avg)(const Window&, const AvgPoolParams&, size_t, int8_t*) = AvgPortable;
#if defined(__x86_64__)
  if ((path == KernelPath::kAvx2 || path == KernelPath::kAvx512Vnni) && PathSupported(path)) {
    avg = AvgAvx2;
  }
#elif defined(__ARM_NEON)
  if ((path == KernelPath::kNeon || path == KernelPath::kNeonDot) && PathSupported(path)) {
    avg = AvgNeon;
  }
#endif
  const PoolParams& pp = p.pool;
  const size_t lanes = size_t{b.batch} * b.block;
  ForEachPoolWindow(b, pp, in, out, [&](const PoolWindow& pw, int8_t* o) {
    Window w;
    static_cast<PoolWindow&>(w) = pw;
    const uint32_t real = w.rows * w.cols;
    w.bias = real * static_cast<uint32_t>(p.x_offset);
    w.mult = mult_by_count[(p.count_include_pad ? pp.kh * pp.kw : real) - 1];
    avg(w, p, lanes, o);
  });
  return Status::Ok();
}

}  // namespace loom::kernels::q::fast
