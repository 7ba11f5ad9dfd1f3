// The AVX-512 VNNI row kernels (rows.h) as templates: rows_avx512.cc makes them fast::Conv2d's
// table, and abi/kernel_abi.cc compiles them to bitcode for native code (docs/cpu.md "Native
// code"). Freestanding (no Status, no allocation); every function carries its own target, so the
// header builds in any x86-64 translation unit.
//
// Up to twelve output positions x one 32-channel output block or two 16-channel ones, held in
// zmm accumulators across the reduction (or a chunk of it, rows.h RowKernels::chunk_bytes). Per
// input quad of a packed tile (tiles_avx512.cc's layout: [i / 4][o][4] int8, then int32 corr[o])
// one load of the weights serves every position, and each position's quad is one broadcast load
// from the padded copy, which stores x ^ 0x80 = x + 128 as vpdpbusd's unsigned operand. The
// tiles' corrections (128 * sum_i w[o][i]) are summed over all of a block's tiles once, when the
// weights are packed (tile_pack.h VnniBiasAdjust), and the caller adds that to the bias:
//   sum (x + 128) * w - sum 128 * w == sum x * w   (mod 2^32, exactly)
// so the kernel's loop reads weights and inputs only. vpdpbusd wraps and never saturates
// (tiles_avx512.cc), so the result is the reference's int32; the epilogue requantizes it in
// registers and stores int8 (no int32 strip in memory, but between chunks).
#ifndef LOOM_RUNTIME_KERNELS_INT8_FAST_ROWS_AVX512_BODY_H_
#define LOOM_RUNTIME_KERNELS_INT8_FAST_ROWS_AVX512_BODY_H_

#include <cstdint>
#include <cstring>

#include "runtime/kernels/int8/fast/rows_body.h"

#if defined(__x86_64__)
#include <immintrin.h>

namespace loom::kernels::q::fast::vnni {

#define LOOM_VNNI __attribute__((target("avx2,avx512f,avx512bw,avx512vl,avx512vnni")))

// Twelve positions x two 16-channel blocks: 24 accumulators, two weight vectors, two corrections
// and one broadcast of the 32 zmm registers.
inline constexpr uint32_t kMaxPos = 12;
// A call's weights kept within half of L1 (48 KiB on Ice Lake and Sapphire Rapids): ResNet-18's
// 256- and 512-channel layers read 92 and 184 KiB per call whole, streamed from L2 for every
// output row (rows.h RowKernels::chunk_bytes).
inline constexpr uint32_t kChunkBytes = 24 * 1024;

// ShrRnd on sixteen lanes, as x86_requant.h's ShrRndAvx2 (which shows both forms exact): for
// n >= 2, ((a >> (n-1)) + 1) >> 1; for n == 1, (a >> 1) + bit 0 of a; n < 0 a wrapping left
// shift. The all-lanes maskz forms: GCC 12 warns on the unmasked ones' undefined pass-through
// operand.
inline constexpr __mmask16 kAll = 0xffff;

LOOM_VNNI inline __m512i ShrRnd512(__m512i a, int32_t n) {
  if (n > 1) {
    const __m512i t = _mm512_maskz_sra_epi32(kAll, a, _mm_cvtsi32_si128(n - 1));
    return _mm512_maskz_srai_epi32(kAll, _mm512_add_epi32(t, _mm512_set1_epi32(1)), 1);
  }
  if (n == 1) {
    const __m512i q = _mm512_maskz_srai_epi32(kAll, a, 1);
    return _mm512_add_epi32(q, _mm512_and_si512(a, _mm512_set1_epi32(1)));
  }
  if (n < 0) return _mm512_maskz_sll_epi32(kAll, a, _mm_cvtsi32_si128(-n));
  return a;
}

// The accelerator's requantization (qops.h: SHR_RND, MUL keeping the low 32 bits, SHR_RND, clip)
// of sixteen accumulators; the clip bounds lie in [-128, 127], so the narrowing is exact.
LOOM_VNNI inline __m128i Requant512(__m512i a, __m512i mult, const Requant& rq, __m512i lo,
                                    __m512i hi) {
  a = _mm512_mullo_epi32(ShrRnd512(a, rq.pre_shift), mult);
  a = _mm512_maskz_min_epi32(kAll, _mm512_maskz_max_epi32(kAll, ShrRnd512(a, rq.post_shift), lo),
                             hi);
  return _mm512_maskz_cvtepi32_epi8(kAll, a);
}

// kNB output-channel blocks (1, or 2 with block 16) share each broadcast: vector j covers channels
// 16 * (j % nv) of block j / nv, whose tiles start ob_stride bytes after the previous block's.
template <uint32_t kC, uint32_t kP, uint32_t kNB>
LOOM_ROW_KERNEL LOOM_VNNI void Rows(const uint8_t* packed, const ConvRows& r, const int32_t* bias,
                                    const int32_t* mult, const Requant& rq, int8_t* out) {
  constexpr uint32_t nv = kC / 16, nt = nv * kNB, nq = kC / 4;
  __m512i a[kP][nt];
  LOOM_UNROLL
  for (uint32_t j = 0; j < nt; ++j) {
    LOOM_UNROLL
    for (uint32_t p = 0; p < kP; ++p) {
      a[p][j] = r.acc_in != nullptr ? _mm512_loadu_si512(r.acc_in + (p * nt + j) * 16)
                                    : _mm512_setzero_si512();
    }
  }
  const uint8_t* tile = packed;
  for (uint32_t ib = 0; ib < r.icb; ++ib) {
    const uint32_t quads = ib + 1 == r.icb ? r.last_quads : nq;
    for (uint32_t ky = 0; ky < r.kh; ++ky) {
      const uint8_t* x = r.in + ib * r.plane_step + ky * r.row_step;
      for (uint32_t kx = 0; kx < r.kw; ++kx, x += kC, tile += r.tile_stride) {
        for (uint32_t k = 0; k < quads; ++k) {
          __m512i w[nt];
          LOOM_UNROLL
          for (uint32_t j = 0; j < nt; ++j) {
            w[j] = _mm512_loadu_si512(tile + (j / nv) * r.ob_stride + k * kC * 4 + 64 * (j % nv));
          }
          LOOM_UNROLL
          for (uint32_t p = 0; p < kP; ++p) {
            int32_t q;
            std::memcpy(&q, x + p * r.pos_step + 4 * k, 4);
            const __m512i xb = _mm512_set1_epi32(q);
            LOOM_UNROLL
            for (uint32_t j = 0; j < nt; ++j) a[p][j] = _mm512_dpbusd_epi32(a[p][j], xb, w[j]);
          }
        }
      }
    }
  }
  if (r.acc_out != nullptr) {  // not the last chunk: the partial sums, as they are
    LOOM_UNROLL
    for (uint32_t j = 0; j < nt; ++j) {
      LOOM_UNROLL
      for (uint32_t p = 0; p < kP; ++p) _mm512_storeu_si512(r.acc_out + (p * nt + j) * 16, a[p][j]);
    }
    return;
  }
  const __m512i lo = _mm512_set1_epi32(rq.clip_lo), hi = _mm512_set1_epi32(rq.clip_hi);
  LOOM_UNROLL
  for (uint32_t j = 0; j < nt; ++j) {
    // bias and mult hold kNB x kC values, so vector j's are at 16 * j.
    const __m512i b = _mm512_loadu_si512(bias + 16 * j);
    const __m512i m = _mm512_loadu_si512(mult + 16 * j);
    int8_t* o = out + (j / nv) * r.out_ob_stride + 16 * (j % nv);
    LOOM_UNROLL
    for (uint32_t p = 0; p < kP; ++p) {
      const __m128i q = Requant512(_mm512_add_epi32(a[p][j], b), m, rq, lo, hi);
      _mm_storeu_si128(reinterpret_cast<__m128i*>(o + p * kC), q);
    }
  }
}

// npos in [1, kMaxPos] to the kernel instantiated for it (positions are template constants so
// the accumulators stay in registers).
template <uint32_t kC, uint32_t kNB, uint32_t kP = 1>
inline void RowsOf(const uint8_t* packed, const ConvRows& r, uint32_t npos, const int32_t* bias,
                   const int32_t* mult, const Requant& rq, int8_t* out) {
  if constexpr (kP < kMaxPos) {
    if (npos > kP) return RowsOf<kC, kNB, kP + 1>(packed, r, npos, bias, mult, rq, out);
  }
  Rows<kC, kP, kNB>(packed, r, bias, mult, rq, out);
}

inline void VnniRows(const uint8_t* packed, uint32_t block, const ConvRows& r, uint32_t npos,
                     uint32_t nob, const int32_t* bias, const int32_t* mult, const Requant& rq,
                     int8_t* out) {
  if (block == 16 && nob == 2) return RowsOf<16, 2>(packed, r, npos, bias, mult, rq, out);
  if (block == 16) return RowsOf<16, 1>(packed, r, npos, bias, mult, rq, out);
  RowsOf<32, 1>(packed, r, npos, bias, mult, rq, out);
}

// Depthwise: P positions x the block in zmm accumulators over the taps. x * w is exact in int16
// (|x * w| <= 2^14), then widened and added in int32, as the AVX2 table's depthwise.
template <uint32_t kC, uint32_t kP>
LOOM_ROW_KERNEL LOOM_VNNI void DwRows(const int8_t* w, const ConvRows& r, const int32_t* bias,
                                      const int32_t* mult, const Requant& rq, int8_t* out) {
  constexpr uint32_t nv = kC / 16;
  __m512i a[kP][nv];
  LOOM_UNROLL
  for (uint32_t v = 0; v < nv; ++v) {
    const __m512i b = _mm512_loadu_si512(bias + 16 * v);
    LOOM_UNROLL
    for (uint32_t p = 0; p < kP; ++p) a[p][v] = b;
  }
  for (uint32_t ky = 0; ky < r.kh; ++ky) {
    const uint8_t* x = r.in + ky * r.row_step;
    for (uint32_t kx = 0; kx < r.kw; ++kx, x += kC, w += kC) {
      LOOM_UNROLL
      for (uint32_t v = 0; v < nv; ++v) {
        const __m256i wv =
            _mm256_cvtepi8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(w + 16 * v)));
        LOOM_UNROLL
        for (uint32_t p = 0; p < kP; ++p) {
          const __m256i xv = _mm256_cvtepi8_epi16(
              _mm_loadu_si128(reinterpret_cast<const __m128i*>(x + p * r.pos_step + 16 * v)));
          a[p][v] = _mm512_add_epi32(a[p][v],
                                     _mm512_maskz_cvtepi16_epi32(kAll, _mm256_mullo_epi16(xv, wv)));
        }
      }
    }
  }
  const __m512i lo = _mm512_set1_epi32(rq.clip_lo), hi = _mm512_set1_epi32(rq.clip_hi);
  LOOM_UNROLL
  for (uint32_t v = 0; v < nv; ++v) {
    const __m512i m = _mm512_loadu_si512(mult + 16 * v);
    LOOM_UNROLL
    for (uint32_t p = 0; p < kP; ++p) {
      const __m128i q = Requant512(a[p][v], m, rq, lo, hi);
      _mm_storeu_si128(reinterpret_cast<__m128i*>(out + p * kC + 16 * v), q);
    }
  }
}

template <uint32_t kC, uint32_t kP = 1>
inline void DwRowsOf(const int8_t* w, const ConvRows& r, uint32_t npos, const int32_t* bias,
                     const int32_t* mult, const Requant& rq, int8_t* out) {
  if constexpr (kP < kMaxPos) {
    if (npos > kP) return DwRowsOf<kC, kP + 1>(w, r, npos, bias, mult, rq, out);
  }
  DwRows<kC, kP>(w, r, bias, mult, rq, out);
}

inline void VnniDepthwise(const int8_t* w, uint32_t block, const ConvRows& r, uint32_t npos,
                          const int32_t* bias, const int32_t* mult, const Requant& rq,
                          int8_t* out) {
  if (block == 16) return DwRowsOf<16>(w, r, npos, bias, mult, rq, out);
  DwRowsOf<32>(w, r, npos, bias, mult, rq, out);
}

}  // namespace loom::kernels::q::fast::vnni

#endif  // __x86_64__
#endif  // LOOM_RUNTIME_KERNELS_INT8_FAST_ROWS_AVX512_BODY_H_
