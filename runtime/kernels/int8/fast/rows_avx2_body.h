// The AVX2 row kernels (rows.h) as templates: rows_avx2.cc makes them fast::Conv2d's table, and
// abi/kernel_abi.cc compiles them to bitcode for native code (docs/cpu.md "Native code").
// Freestanding (no Status, no allocation); every function carries its own target.
//
// A few output positions x one 8-, 16- or 32-channel output block held
// in ymm accumulators across the whole reduction, for CPUs without AVX-512 VNNI (and for block 8
// on those with it). They read the AVX2 tiles (tiles_avx2.cc: int16 [i / 2][o][2]) and a padded
// copy of the input sign-extended to int16 once per call, so one input pair is a 32-bit broadcast
// load and each vpmaddwd multiplies it with the pair's weights of eight output channels. A pair
// sum is at most 2 * 128 * 128 = 2^15: nothing saturates (vpmaddubsw would), and the int32 adds
// wrap like the accelerator's ACC, so the result is the reference's int32 in any order. The
// epilogue requantizes in registers (x86_requant.h) and stores int8.
#ifndef LOOM_RUNTIME_KERNELS_INT8_FAST_ROWS_AVX2_BODY_H_
#define LOOM_RUNTIME_KERNELS_INT8_FAST_ROWS_AVX2_BODY_H_

#include <algorithm>
#include <cstdint>
#include <cstring>

#include "runtime/kernels/int8/fast/rows_body.h"

#if defined(__x86_64__)
#include <immintrin.h>

#include "runtime/kernels/int8/fast/x86_requant.h"

namespace loom::kernels::q::fast::avx2 {

#define LOOM_AVX2 __attribute__((target("avx2")))

// Positions per call by block: P x (block / 8) accumulators, the weights of one pair, the
// broadcast and a product stay within the sixteen ymm registers (6 x 2 for block 16 spilled).
template <uint32_t kC>
inline constexpr uint32_t kMaxPos = kC == 8 ? 8 : (kC == 16 ? 5 : 2);

template <uint32_t kC, uint32_t kP>
LOOM_ROW_KERNEL LOOM_AVX2 void Rows(const uint8_t* packed, const ConvRows& r, const int32_t* bias,
                                    const int32_t* mult, const Requant& rq, int8_t* out) {
  constexpr uint32_t nv = kC / 8, npairs = kC / 2;
  __m256i a[kP][nv];
  LOOM_UNROLL
  for (uint32_t v = 0; v < nv; ++v) {
    const __m256i b = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(bias + 8 * v));
    LOOM_UNROLL
    for (uint32_t p = 0; p < kP; ++p) a[p][v] = b;
  }
  const uint8_t* tile = packed;
  for (uint32_t ib = 0; ib < r.icb; ++ib) {
    // The last block reads its real quads only; past the real channels inputs and weights are 0.
    const uint32_t pairs = ib + 1 == r.icb ? std::min(npairs, 2 * r.last_quads) : npairs;
    for (uint32_t ky = 0; ky < r.kh; ++ky) {
      const uint8_t* x = r.in + ib * r.plane_step + ky * r.row_step;
      for (uint32_t kx = 0; kx < r.kw; ++kx, x += 2 * kC, tile += r.tile_stride) {
        for (uint32_t k = 0; k < pairs; ++k) {
          __m256i w[nv];
          LOOM_UNROLL
          for (uint32_t v = 0; v < nv; ++v) {
            w[v] = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(tile + k * kC * 4 + 32 * v));
          }
          LOOM_UNROLL
          for (uint32_t p = 0; p < kP; ++p) {
            int32_t pair;
            std::memcpy(&pair, x + p * r.pos_step + 4 * k, 4);
            const __m256i xb = _mm256_set1_epi32(pair);
            LOOM_UNROLL
            for (uint32_t v = 0; v < nv; ++v) {
              a[p][v] = _mm256_add_epi32(a[p][v], _mm256_madd_epi16(xb, w[v]));
            }
          }
        }
      }
    }
  }
  const __m256i lo = _mm256_set1_epi32(rq.clip_lo), hi = _mm256_set1_epi32(rq.clip_hi);
  LOOM_UNROLL
  for (uint32_t v = 0; v < nv; ++v) {
    const __m256i m = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(mult + 8 * v));
    LOOM_UNROLL
    for (uint32_t p = 0; p < kP; ++p) {
      _mm_storel_epi64(reinterpret_cast<__m128i*>(out + p * kC + 8 * v),
                       RequantizeAvx2Reg(a[p][v], m, rq, lo, hi));
    }
  }
}

// Depthwise on the same int16 copy: per tap, eight channels' x * w in int16 (exact: |x * w| <=
// 2^14), widened and added to int32 accumulators held for all taps.
template <uint32_t kC, uint32_t kP>
LOOM_ROW_KERNEL LOOM_AVX2 void DwRows(const int8_t* w, const ConvRows& r, const int32_t* bias,
                                      const int32_t* mult, const Requant& rq, int8_t* out) {
  constexpr uint32_t nv = kC / 8;
  __m256i a[kP][nv];
  LOOM_UNROLL
  for (uint32_t v = 0; v < nv; ++v) {
    const __m256i b = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(bias + 8 * v));
    LOOM_UNROLL
    for (uint32_t p = 0; p < kP; ++p) a[p][v] = b;
  }
  for (uint32_t ky = 0; ky < r.kh; ++ky) {
    const uint8_t* x = r.in + ky * r.row_step;
    for (uint32_t kx = 0; kx < r.kw; ++kx, x += 2 * kC, w += kC) {
      LOOM_UNROLL
      for (uint32_t v = 0; v < nv; ++v) {
        const __m128i wv =
            _mm_cvtepi8_epi16(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(w + 8 * v)));
        LOOM_UNROLL
        for (uint32_t p = 0; p < kP; ++p) {
          const __m128i xv =
              _mm_loadu_si128(reinterpret_cast<const __m128i*>(x + p * r.pos_step + 16 * v));
          a[p][v] = _mm256_add_epi32(a[p][v], _mm256_cvtepi16_epi32(_mm_mullo_epi16(xv, wv)));
        }
      }
    }
  }
  const __m256i lo = _mm256_set1_epi32(rq.clip_lo), hi = _mm256_set1_epi32(rq.clip_hi);
  LOOM_UNROLL
  for (uint32_t v = 0; v < nv; ++v) {
    const __m256i m = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(mult + 8 * v));
    LOOM_UNROLL
    for (uint32_t p = 0; p < kP; ++p) {
      _mm_storel_epi64(reinterpret_cast<__m128i*>(out + p * kC + 8 * v),
                       RequantizeAvx2Reg(a[p][v], m, rq, lo, hi));
    }
  }
}

// npos in [1, kMaxPos<kC>] to the kernel instantiated for it (positions are template constants
// so the accumulators stay in registers).
template <uint32_t kC, uint32_t kP = 1>
inline void RowsOf(const uint8_t* packed, const ConvRows& r, uint32_t npos, const int32_t* bias,
                   const int32_t* mult, const Requant& rq, int8_t* out) {
  if constexpr (kP < kMaxPos<kC>) {
    if (npos > kP) return RowsOf<kC, kP + 1>(packed, r, npos, bias, mult, rq, out);
  }
  Rows<kC, kP>(packed, r, bias, mult, rq, out);
}

template <uint32_t kC, uint32_t kP = 1>
inline void DwRowsOf(const int8_t* w, const ConvRows& r, uint32_t npos, const int32_t* bias,
                     const int32_t* mult, const Requant& rq, int8_t* out) {
  if constexpr (kP < kMaxPos<kC>) {
    if (npos > kP) return DwRowsOf<kC, kP + 1>(w, r, npos, bias, mult, rq, out);
  }
  DwRows<kC, kP>(w, r, bias, mult, rq, out);
}

template <uint32_t kC>
inline void Avx2Rows(const uint8_t* packed, uint32_t, const ConvRows& r, uint32_t npos, uint32_t,
                     const int32_t* bias, const int32_t* mult, const Requant& rq, int8_t* out) {
  RowsOf<kC>(packed, r, npos, bias, mult, rq, out);
}

template <uint32_t kC>
inline void Avx2Depthwise(const int8_t* w, uint32_t, const ConvRows& r, uint32_t npos,
                          const int32_t* bias, const int32_t* mult, const Requant& rq,
                          int8_t* out) {
  DwRowsOf<kC>(w, r, npos, bias, mult, rq, out);
}

}  // namespace loom::kernels::q::fast::avx2

#endif  // __x86_64__
#endif  // LOOM_RUNTIME_KERNELS_INT8_FAST_ROWS_AVX2_BODY_H_
