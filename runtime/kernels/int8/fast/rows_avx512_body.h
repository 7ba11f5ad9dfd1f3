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
#include <type_traits>

#include "runtime/kernels/int8/fast/rows_body.h"

#if defined(__x86_64__)
#include <immintrin.h>

namespace loom::kernels::q::fast::vnni {

#define LOOM_VNNI __attribute__((target("avx2,avx512f,avx512bw,avx512vl,avx512vnni")))

// Twelve positions x two 16-channel blocks: 24 accumulators, two weight vectors, two corrections
// and one broadcast of the 32 zmm registers.
inline constexpr uint32_t kMaxPos = 12;
inline constexpr uint32_t kChunkBytes = kVnniChunkBytes;

inline constexpr __mmask16 kAll = 0xffff;

// The requantization's constants held in registers for a kernel's epilogue, read once from
// `rq` before any output is stored (an int8 store may alias `rq`, which would otherwise be
// reloaded, and every constant rebuilt, for each vector).
struct Requant512Consts;
LOOM_VNNI inline bool CommonForm(const Requant512Consts& k);

// Runs epilogue(std::true_type) for Requant512's common form, else epilogue(std::false_type):
// the test once per call, not once per vector.
template <typename Epilogue>
LOOM_VNNI __attribute__((always_inline)) inline void EachShiftForm(const Requant512Consts& k,
                                                                   Epilogue epilogue) {
  if (CommonForm(k)) {
    epilogue(std::true_type{});
  } else {
    epilogue(std::false_type{});
  }
}

struct Requant512Consts {
  int32_t pre, post;
  bool full_clip;             // [-128, 127]
  __m128i pre1, post1;        // n - 1, the first shift of ShrRnd for n >= 2
  __m128i pre_neg, post_neg;  // -n, the left shift for n < 0
  __m512i pre1v, post1v;      // n - 1 in every lane
  __m512i one, lo, hi;
};

LOOM_VNNI inline bool CommonForm(const Requant512Consts& k) {
  return k.pre > 1 && k.post > 1 && k.full_clip;
}

LOOM_VNNI inline Requant512Consts RequantConsts(const Requant& rq) {
  Requant512Consts k;
  k.pre = rq.pre_shift;
  k.post = rq.post_shift;
  k.full_clip = rq.clip_lo == -128 && rq.clip_hi == 127;
  k.pre1 = _mm_cvtsi32_si128(k.pre - 1);
  k.post1 = _mm_cvtsi32_si128(k.post - 1);
  k.pre_neg = _mm_cvtsi32_si128(-k.pre);
  k.post_neg = _mm_cvtsi32_si128(-k.post);
  k.pre1v = _mm512_set1_epi32(k.pre - 1);
  k.post1v = _mm512_set1_epi32(k.post - 1);
  k.one = _mm512_set1_epi32(1);
  k.lo = _mm512_set1_epi32(rq.clip_lo);
  k.hi = _mm512_set1_epi32(rq.clip_hi);
  return k;
}

// ShrRnd on sixteen lanes, as x86_requant.h's ShrRndAvx2 (which shows both forms exact): for
// n >= 2, ((a >> (n-1)) + 1) >> 1; for n == 1, (a >> 1) + bit 0 of a; n < 0 a wrapping left
// shift. The all-lanes maskz forms: GCC 12 warns on the unmasked ones' undefined pass-through
// operand.
LOOM_VNNI inline __m512i ShrRnd512(__m512i a, int32_t n, __m128i n1, __m128i neg, __m512i one) {
  if (n > 1) {
    const __m512i t = _mm512_maskz_sra_epi32(kAll, a, n1);
    return _mm512_maskz_srai_epi32(kAll, _mm512_add_epi32(t, one), 1);
  }
  if (n == 1) {
    const __m512i q = _mm512_maskz_srai_epi32(kAll, a, 1);
    return _mm512_add_epi32(q, _mm512_and_si512(a, one));
  }
  if (n < 0) return _mm512_maskz_sll_epi32(kAll, a, neg);
  return a;
}

// The accelerator's requantization (qops.h: SHR_RND, MUL keeping the low 32 bits, SHR_RND, clip)
// of sixteen accumulators; the clip bounds lie in [-128, 127], so the narrowing is exact.
// kCommon: both shifts are known to be >= 2 and the clip to be [-128, 127] (every convolution
// of the zoo but one), so each ShrRnd is its three instructions with no test and the clip is the
// narrowing's own signed saturation; the kernels pick the form once per call (EachShiftForm).
template <bool kCommon = false>
LOOM_VNNI __attribute__((always_inline)) inline __m128i Requant512(__m512i a, __m512i mult,
                                                                   const Requant512Consts& k) {
  if constexpr (kCommon) {
    // vpsravd (one uop) with the count in every lane, not vpsrad's xmm count (two).
    a = _mm512_maskz_srav_epi32(kAll, a, k.pre1v);
    a = _mm512_mullo_epi32(_mm512_maskz_srai_epi32(kAll, _mm512_add_epi32(a, k.one), 1), mult);
    a = _mm512_maskz_srav_epi32(kAll, a, k.post1v);
    a = _mm512_maskz_srai_epi32(kAll, _mm512_add_epi32(a, k.one), 1);
    return _mm512_maskz_cvtsepi32_epi8(kAll, a);
  } else {
    a = _mm512_mullo_epi32(ShrRnd512(a, k.pre, k.pre1, k.pre_neg, k.one), mult);
    a = ShrRnd512(a, k.post, k.post1, k.post_neg, k.one);
  }
  a = _mm512_maskz_min_epi32(kAll, _mm512_maskz_max_epi32(kAll, a, k.lo), k.hi);
  return _mm512_maskz_cvtepi32_epi8(kAll, a);
}

// The depthwise kernels' start: every position's accumulators = the block's bias.
template <uint32_t kC, uint32_t kP>
LOOM_VNNI __attribute__((always_inline)) inline void BiasInit(__m512i (&a)[kP][kC / 16],
                                                              const int32_t* bias) {
  LOOM_UNROLL
  for (uint32_t v = 0; v < kC / 16; ++v) {
    const __m512i b = _mm512_loadu_si512(bias + 16 * v);
    LOOM_UNROLL
    for (uint32_t p = 0; p < kP; ++p) a[p][v] = b;
  }
}

// The depthwise kernels' epilogue: kP positions x kC channels of accumulators (bias included)
// requantized and stored as int8, position p at out + p * kC. Inlined, so `a` stays in registers.
template <uint32_t kC, uint32_t kP>
LOOM_VNNI __attribute__((always_inline)) inline void RequantStore(const __m512i (&a)[kP][kC / 16],
                                                                  const int32_t* mult,
                                                                  const Requant& rq, int8_t* out) {
  const Requant512Consts k = RequantConsts(rq);
  EachShiftForm(
      k, [&](auto form) LOOM_VNNI __attribute__((always_inline)) {
        LOOM_UNROLL
        for (uint32_t v = 0; v < kC / 16; ++v) {
          const __m512i m = _mm512_loadu_si512(mult + 16 * v);
          LOOM_UNROLL
          for (uint32_t p = 0; p < kP; ++p) {
            const __m128i q = Requant512<decltype(form)::value>(a[p][v], m, k);
            _mm_storeu_si128(reinterpret_cast<__m128i*>(out + p * kC + 16 * v), q);
          }
        }
      });
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
  const Requant512Consts k = RequantConsts(rq);
  EachShiftForm(
      k, [&](auto form) LOOM_VNNI __attribute__((always_inline)) {
        LOOM_UNROLL
        for (uint32_t j = 0; j < nt; ++j) {
          // bias and mult hold kNB x kC values, so vector j's are at 16 * j.
          const __m512i b = _mm512_loadu_si512(bias + 16 * j);
          const __m512i m = _mm512_loadu_si512(mult + 16 * j);
          int8_t* o = out + (j / nv) * r.out_ob_stride + 16 * (j % nv);
          LOOM_UNROLL
          for (uint32_t p = 0; p < kP; ++p) {
            const __m128i q = Requant512<decltype(form)::value>(_mm512_add_epi32(a[p][j], b), m, k);
            _mm_storeu_si128(reinterpret_cast<__m128i*>(o + p * kC), q);
          }
        }
      });
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
  BiasInit<kC, kP>(a, bias);
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
  RequantStore<kC, kP>(a, mult, rq, out);
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

// Depthwise by tap quads. Each int32 lane of a vpdpbusd is one channel, and its four byte pairs
// are four taps of one kernel row: a row of the input is rewritten once into "quad columns",
// column x holding, for each channel c, the bytes of input columns x, x + 1, x + 2, x + 3
// (each x ^ 0x80, as the rows' padded copy stores it), and the weights likewise into
// [ky][quad][c][4] with zeros past kw. A 3x3 window is then three vpdpbusd per 16 channels and
// position, where DwRows spends nine multiplies and eighteen widenings. Rows are rewritten into
// a ring of kh slots as the output rows reach them, each once: slot r % kh holds row r while
// the window [y * stride_h, y * stride_h + kh) needs it. Every tap stays exact: the offset's
// correction, 128 * sum w, leaves the bias once per block, and vpdpbusd neither saturates nor
// loses a bit (|sum| < 2^31).
inline constexpr uint32_t kDwQuadMaxPos = 12;

// Padded input row `iy` (pad rows when outside the image) into quad columns, 16 channels at a
// time: the four columns' 16-byte groups as the four 128-bit lanes of a zmm, a dword transpose
// across lanes (vpermd), then a byte transpose inside each lane (vpshufb) gives lane L the
// quads of channels 4L..4L+3, so dword c is channel c's quad.
template <uint32_t kC>
LOOM_VNNI inline void DwQuadRow(const Conv2dParams& p, const int8_t* plane, int64_t iy,
                                uint8_t* row, uint8_t* quads) {
  const uint32_t cols = DwQuadInputColumns(p), qcols = DwQuadColumns(p);
  const uint8_t pad = static_cast<uint8_t>(p.pad_value) ^ 0x80;
  if (iy < 0 || iy >= p.in.h) {
    std::memset(row, pad, size_t{cols} * kC);
  } else {
    const uint32_t left = p.pad_left < cols ? p.pad_left : cols;
    const uint32_t real = p.in.w < cols - left ? p.in.w : cols - left;
    std::memset(row, pad, size_t{left} * kC);
    rows_internal::CopyRow(plane + size_t(iy) * p.in.w * kC, size_t{real} * kC, 0x80,
                           row + size_t{left} * kC);
    std::memset(row + size_t{left + real} * kC, pad, size_t{cols - left - real} * kC);
  }
  const __m512i dwords = _mm512_set_epi32(15, 11, 7, 3, 14, 10, 6, 2, 13, 9, 5, 1, 12, 8, 4, 0);
  const __m512i bytes = _mm512_maskz_broadcast_i32x4(
      kAll, _mm_set_epi8(15, 11, 7, 3, 14, 10, 6, 2, 13, 9, 5, 1, 12, 8, 4, 0));
  for (uint32_t x = 0; x < qcols; ++x) {
    LOOM_UNROLL
    for (uint32_t g = 0; g < kC / 16; ++g) {
      const uint8_t* s = row + size_t{x} * kC + 16 * g;
      __m512i v;
      if constexpr (kC == 16) {
        v = _mm512_loadu_si512(s);
      } else {
        auto lane = [&](uint32_t k) {
          return _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + k * kC));
        };
        v = _mm512_zextsi128_si512(lane(0));
        v = _mm512_maskz_inserti32x4(kAll, v, lane(1), 1);
        v = _mm512_maskz_inserti32x4(kAll, v, lane(2), 2);
        v = _mm512_maskz_inserti32x4(kAll, v, lane(3), 3);
      }
      v = _mm512_maskz_shuffle_epi8(~__mmask64{0}, _mm512_maskz_permutexvar_epi32(kAll, dwords, v),
                                    bytes);
      _mm512_storeu_si512(quads + (size_t{x} * kC + 16 * g) * 4, v);
    }
  }
}

// kP positions x kC channels over the kh rewritten rows: position i's quad j of row ky is at
// rows[ky] + (i * stride_w + 4 * j) * kC * 4.
template <uint32_t kC, uint32_t kP>
LOOM_ROW_KERNEL LOOM_VNNI void DwQuadRows(const uint8_t* const* rows, size_t pos_step, uint32_t kh,
                                          uint32_t nq, const uint8_t* wq, const int32_t* bias,
                                          const int32_t* mult, const Requant& rq, int8_t* out) {
  constexpr uint32_t nv = kC / 16;
  __m512i a[kP][nv];
  BiasInit<kC, kP>(a, bias);
  for (uint32_t ky = 0; ky < kh; ++ky) {
    for (uint32_t j = 0; j < nq; ++j, wq += kC * 4) {
      const uint8_t* x = rows[ky] + size_t{j} * 4 * kC * 4;
      LOOM_UNROLL
      for (uint32_t v = 0; v < nv; ++v) {
        const __m512i w = _mm512_loadu_si512(wq + 64 * v);
        LOOM_UNROLL
        for (uint32_t i = 0; i < kP; ++i) {
          a[i][v] = _mm512_dpbusd_epi32(a[i][v], _mm512_loadu_si512(x + i * pos_step + 64 * v), w);
        }
      }
    }
  }
  RequantStore<kC, kP>(a, mult, rq, out);
}

template <uint32_t kC, uint32_t kP = 1>
inline void DwQuadRowsOf(uint32_t npos, const uint8_t* const* rows, size_t pos_step, uint32_t kh,
                         uint32_t nq, const uint8_t* wq, const int32_t* bias, const int32_t* mult,
                         const Requant& rq, int8_t* out) {
  if constexpr (kP < kDwQuadMaxPos) {
    if (npos > kP) {
      return DwQuadRowsOf<kC, kP + 1>(npos, rows, pos_step, kh, nq, wq, bias, mult, rq, out);
    }
  }
  DwQuadRows<kC, kP>(rows, pos_step, kh, nq, wq, bias, mult, rq, out);
}

// One (image, block) plane of a depthwise convolution: `in` the block's stored input plane,
// `w` its stored [kh][kw][kC] weights, `out` its output plane, lanes past real_c zeroed.
template <uint32_t kC>
void DwQuadPlane(const Conv2dParams& p, const int8_t* in, const int8_t* w, const int32_t* bias,
                 const int32_t* mult, uint32_t real_c, uint8_t* scratch, int8_t* out) {
  const uint32_t nq = DwQuadsPerRow(p), qcols = DwQuadColumns(p);
  const size_t slot_bytes = size_t{qcols} * kC * 4;
  uint8_t* slots = scratch;
  uint8_t* row = slots + size_t{p.kh} * slot_bytes;
  uint8_t* wq = row + size_t{DwQuadInputColumns(p)} * kC;
  // Weights as [ky][quad][c][4], and the bias less 128 * sum w per channel (mod 2^32).
  int32_t adj[kC];
  for (uint32_t c = 0; c < kC; ++c) {
    uint32_t sum = 0;
    for (uint32_t ky = 0; ky < p.kh; ++ky) {
      for (uint32_t kx = 0; kx < 4 * nq; ++kx) {
        const int8_t v = kx < p.kw ? w[(size_t{ky} * p.kw + kx) * kC + c] : 0;
        wq[((size_t{ky} * nq + kx / 4) * kC + c) * 4 + kx % 4] = static_cast<uint8_t>(v);
        sum += static_cast<uint32_t>(int32_t{v});
      }
    }
    adj[c] = static_cast<int32_t>(static_cast<uint32_t>(bias[c]) - 128u * sum);
  }
  constexpr uint32_t kNoRow = 0xffffffffu;
  uint32_t held[16];  // the padded row each ring slot holds (kh <= 16: the callers check)
  for (uint32_t s = 0; s < p.kh; ++s) held[s] = kNoRow;
  const uint8_t* rows[16];
  const ActShape os = p.out();
  const uint32_t groups = (os.w + kDwQuadMaxPos - 1) / kDwQuadMaxPos, q = os.w / groups;
  const uint32_t big = os.w - q * groups;
  const size_t pos_step = size_t{p.stride_w} * kC * 4;
  for (uint32_t y = 0; y < os.h; ++y) {
    for (uint32_t ky = 0; ky < p.kh; ++ky) {
      const uint32_t r = y * p.stride_h + ky, s = r % p.kh;
      uint8_t* slot = slots + s * slot_bytes;
      if (held[s] != r) {
        DwQuadRow<kC>(p, in, int64_t{r} - p.pad_top, row, slot);
        held[s] = r;
      }
      rows[ky] = slot;
    }
    int8_t* dst = out + size_t{y} * os.w * kC;
    uint32_t x = 0;
    for (uint32_t g = 0; g < groups; ++g) {
      const uint32_t n = g < big ? q + 1 : q;
      const uint8_t* at[16];
      for (uint32_t ky = 0; ky < p.kh; ++ky) at[ky] = rows[ky] + x * pos_step;
      DwQuadRowsOf<kC>(n, at, pos_step, p.kh, nq, wq, adj, mult, p.rq, dst + size_t{x} * kC);
      x += n;
    }
    if (real_c != kC) {
      for (uint32_t i = 0; i < os.w; ++i)
        std::memset(dst + size_t{i} * kC + real_c, 0, kC - real_c);
    }
  }
}

inline void VnniDepthwisePlane(const Conv2dParams& p, uint32_t block, const int8_t* in,
                               const int8_t* w, const int32_t* bias, const int32_t* mult,
                               uint32_t real_c, uint8_t* scratch, int8_t* out) {
  if (block == 16) return DwQuadPlane<16>(p, in, w, bias, mult, real_c, scratch, out);
  DwQuadPlane<32>(p, in, w, bias, mult, real_c, scratch, out);
}

}  // namespace loom::kernels::q::fast::vnni

#endif  // __x86_64__
#endif  // LOOM_RUNTIME_KERNELS_INT8_FAST_ROWS_AVX512_BODY_H_
