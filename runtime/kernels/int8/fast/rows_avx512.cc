// AVX-512 VNNI row kernels (rows.h): up to eight output positions x one 16- or 32-channel output
// block held in zmm accumulators across the whole reduction. Per input quad of a packed tile
// (tiles_avx512.cc's layout: [i / 4][o][4] int8, then int32 corr[o]) one load of the weights
// serves every position, and each position's quad is one broadcast load from the padded copy,
// which stores x ^ 0x80 = x + 128 as vpdpbusd's unsigned operand. The tiles' corrections
// (128 * sum_i w[o][i]) are summed once per tile, not per position, and subtracted at the end:
//   sum (x + 128) * w - sum 128 * w == sum x * w   (mod 2^32, exactly)
// vpdpbusd wraps and never saturates (tiles_avx512.cc), so the result is the reference's int32.
#include <cstring>

#include "runtime/kernels/int8/fast/rows.h"

#if defined(__x86_64__)
#include <immintrin.h>

namespace loom::kernels::q::fast {
namespace {

#define LOOM_VNNI __attribute__((target("avx2,avx512f,avx512bw,avx512vl,avx512vnni")))

constexpr uint32_t kMaxPos = 8;

template <uint32_t kC, uint32_t kP>
LOOM_VNNI void Rows(const uint8_t* packed, const ConvRows& r, const int32_t* bias, int32_t* acc) {
  constexpr uint32_t nv = kC / 16, nq = kC / 4;
  __m512i a[kP][nv], corr[nv];
  for (uint32_t v = 0; v < nv; ++v) {
    corr[v] = _mm512_setzero_si512();
    for (uint32_t p = 0; p < kP; ++p) a[p][v] = _mm512_setzero_si512();
  }
  const uint8_t* tile = packed;
  for (uint32_t ib = 0; ib < r.icb; ++ib) {
    const uint32_t quads = ib + 1 == r.icb ? r.last_quads : nq;
    for (uint32_t ky = 0; ky < r.kh; ++ky) {
      const uint8_t* x = r.in + ib * r.plane_step + ky * r.row_step;
      for (uint32_t kx = 0; kx < r.kw; ++kx, x += kC, tile += r.tile_stride) {
        for (uint32_t v = 0; v < nv; ++v) {
          corr[v] = _mm512_add_epi32(corr[v], _mm512_loadu_si512(tile + kC * kC + 64 * v));
        }
        for (uint32_t k = 0; k < quads; ++k) {
          __m512i w[nv];
          for (uint32_t v = 0; v < nv; ++v) w[v] = _mm512_loadu_si512(tile + k * kC * 4 + 64 * v);
          for (uint32_t p = 0; p < kP; ++p) {
            int32_t q;
            std::memcpy(&q, x + p * r.pos_step + 4 * k, 4);
            const __m512i xb = _mm512_set1_epi32(q);
            for (uint32_t v = 0; v < nv; ++v) a[p][v] = _mm512_dpbusd_epi32(a[p][v], xb, w[v]);
          }
        }
      }
    }
  }
  for (uint32_t v = 0; v < nv; ++v) {
    const __m512i b = _mm512_sub_epi32(_mm512_loadu_si512(bias + 16 * v), corr[v]);
    for (uint32_t p = 0; p < kP; ++p) {
      _mm512_storeu_si512(acc + p * kC + 16 * v, _mm512_add_epi32(a[p][v], b));
    }
  }
}

template <uint32_t kC>
void RowsOf(const uint8_t* packed, const ConvRows& r, uint32_t npos, const int32_t* bias,
            int32_t* acc) {
  switch (npos) {
    case 1:
      return Rows<kC, 1>(packed, r, bias, acc);
    case 2:
      return Rows<kC, 2>(packed, r, bias, acc);
    case 3:
      return Rows<kC, 3>(packed, r, bias, acc);
    case 4:
      return Rows<kC, 4>(packed, r, bias, acc);
    case 5:
      return Rows<kC, 5>(packed, r, bias, acc);
    case 6:
      return Rows<kC, 6>(packed, r, bias, acc);
    case 7:
      return Rows<kC, 7>(packed, r, bias, acc);
    default:
      return Rows<kC, kMaxPos>(packed, r, bias, acc);
  }
}

void VnniRows(const uint8_t* packed, uint32_t block, const ConvRows& r, uint32_t npos,
              const int32_t* bias, int32_t* acc) {
  if (block == 16) return RowsOf<16>(packed, r, npos, bias, acc);
  RowsOf<32>(packed, r, npos, bias, acc);
}

constexpr RowKernels kVnniRows = {0x80, kMaxPos, VnniRows};

}  // namespace

const RowKernels* RowKernelsFor(KernelPath path, uint32_t block) {
  if (path != KernelPath::kAvx512Vnni || !PathSupported(path)) return nullptr;
  return block == 16 || block == 32 ? &kVnniRows : nullptr;
}

}  // namespace loom::kernels::q::fast

#else  // not x86-64

namespace loom::kernels::q::fast {
const RowKernels* RowKernelsFor(KernelPath, uint32_t) { return nullptr; }
}  // namespace loom::kernels::q::fast

#endif
