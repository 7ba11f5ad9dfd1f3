// AVX-512 VNNI micro-kernels (x86-64; chosen at run time). vpdpbusd multiplies unsigned by signed
// bytes, so the input is offset to x + 128 (an xor of the sign bit) and each tile carries
// corr[o] = 128 * sum_i w[o][i], subtracted once per row and tile:
//   sum_i (x_i + 128) * w_i - 128 * sum_i w_i == sum_i x_i * w_i   (mod 2^32, exactly)
// vpdpbusd (not the saturating vpdpbusds) wraps like the accelerator's ACC, and a group of four
// products is at most 4 * 255 * 128 in magnitude, so no step saturates. Block % 16 == 0: one zmm
// holds sixteen output channels. Depthwise and requantization reuse the AVX2 table.
#include <cstring>

#include "runtime/kernels/int8/fast/tile_pack.h"
#include "runtime/kernels/int8/fast/tiles.h"

#if defined(__x86_64__)
#include <immintrin.h>

namespace loom::kernels::q::fast {
namespace {

#define LOOM_VNNI __attribute__((target("avx2,avx512f,avx512bw,avx512vl,avx512vnni")))

bool Supports(uint32_t c) { return c % 16 == 0 && c <= 256; }
size_t PackedBytes(uint32_t c) { return VnniTileBytes(c); }

void Pack(const int8_t* tile, uint32_t c, uint8_t* packed) { PackVnniTile(tile, c, packed); }

LOOM_VNNI inline __m512i Quad(const uint8_t* xu, uint32_t k) {
  int32_t v;
  std::memcpy(&v, xu + 4 * k, 4);
  return _mm512_set1_epi32(v);
}

// kC <= 32: the whole packed tile stays in registers for every row of the call (the compiler
// cannot hoist the loads itself: the accumulator stores may alias the byte-typed tile).
template <uint32_t kC>
LOOM_VNNI void GemmRegs(const uint8_t* packed, const RowSet& rows, int32_t* acc) {
  constexpr uint32_t nv = kC / 16, nq = kC / 4;
  const __m128i sign = _mm_set1_epi8(static_cast<char>(0x80));
  __m512i w[nq][nv], corr[nv];
  for (uint32_t k = 0; k < nq; ++k)
    for (uint32_t v = 0; v < nv; ++v) w[k][v] = _mm512_loadu_si512(packed + k * kC * 4 + 64 * v);
  for (uint32_t v = 0; v < nv; ++v) corr[v] = _mm512_loadu_si512(packed + kC * kC + 64 * v);
  uint8_t xu[kC], xu2[kC];
  uint32_t first = 0;
  if (rows.batch == 1) {
    // Two positions at a time: two independent chains of vpdpbusd per tile vector.
    for (; first + 2 <= rows.npos; first += 2, acc += 2 * kC) {
      const int8_t* in = rows.in + first * rows.pos_step;
      const int8_t* in2 = in + rows.pos_step;
      for (uint32_t i = 0; i < kC; i += 16) {
        const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(in + i));
        const __m128i v2 = _mm_loadu_si128(reinterpret_cast<const __m128i*>(in2 + i));
        _mm_storeu_si128(reinterpret_cast<__m128i*>(xu + i), _mm_xor_si128(v, sign));
        _mm_storeu_si128(reinterpret_cast<__m128i*>(xu2 + i), _mm_xor_si128(v2, sign));
      }
      __m512i a[nv], a2[nv];
      for (uint32_t v = 0; v < nv; ++v) {
        a[v] = _mm512_sub_epi32(_mm512_loadu_si512(acc + 16 * v), corr[v]);
        a2[v] = _mm512_sub_epi32(_mm512_loadu_si512(acc + kC + 16 * v), corr[v]);
      }
      for (uint32_t k = 0; k < nq; ++k) {
        const __m512i x = Quad(xu, k), x2 = Quad(xu2, k);
        for (uint32_t v = 0; v < nv; ++v) {
          a[v] = _mm512_dpbusd_epi32(a[v], x, w[k][v]);
          a2[v] = _mm512_dpbusd_epi32(a2[v], x2, w[k][v]);
        }
      }
      for (uint32_t v = 0; v < nv; ++v) {
        _mm512_storeu_si512(acc + 16 * v, a[v]);
        _mm512_storeu_si512(acc + kC + 16 * v, a2[v]);
      }
    }
  }
  for (uint32_t pos = first; pos < rows.npos; ++pos) {
    const int8_t* in = rows.in + pos * rows.pos_step;
    for (uint32_t bi = 0; bi < rows.batch; ++bi, in += kC, acc += kC) {
      for (uint32_t i = 0; i < kC; i += 16) {
        const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(in + i));
        _mm_storeu_si128(reinterpret_cast<__m128i*>(xu + i), _mm_xor_si128(v, sign));
      }
      __m512i a[nv];
      for (uint32_t v = 0; v < nv; ++v)
        a[v] = _mm512_sub_epi32(_mm512_loadu_si512(acc + 16 * v), corr[v]);
      for (uint32_t k = 0; k < nq; ++k) {
        const __m512i x = Quad(xu, k);
        for (uint32_t v = 0; v < nv; ++v) a[v] = _mm512_dpbusd_epi32(a[v], x, w[k][v]);
      }
      for (uint32_t v = 0; v < nv; ++v) _mm512_storeu_si512(acc + 16 * v, a[v]);
    }
  }
}

// Any block % 16 == 0: the tile is read from memory (L1) per row.
LOOM_VNNI void GemmAny(const uint8_t* packed, uint32_t c, const RowSet& rows, int32_t* acc) {
  const size_t krow = size_t{c} * 4;  // bytes of one input quad's weights
  const uint8_t* corr = packed + size_t{c} * c;
  const __m128i sign = _mm_set1_epi8(static_cast<char>(0x80));
  uint8_t xu[256];
  for (uint32_t pos = 0; pos < rows.npos; ++pos) {
    const int8_t* in = rows.in + pos * rows.pos_step;
    for (uint32_t bi = 0; bi < rows.batch; ++bi, in += c, acc += c) {
      for (uint32_t i = 0; i < c; i += 16) {
        const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(in + i));
        _mm_storeu_si128(reinterpret_cast<__m128i*>(xu + i), _mm_xor_si128(v, sign));
      }
      for (uint32_t v = 0; v < c / 16; ++v) {
        __m512i a =
            _mm512_sub_epi32(_mm512_loadu_si512(acc + 16 * v), _mm512_loadu_si512(corr + 64 * v));
        for (uint32_t k = 0; k < (rows.active + 3) / 4; ++k)
          a = _mm512_dpbusd_epi32(a, Quad(xu, k), _mm512_loadu_si512(packed + k * krow + 64 * v));
        _mm512_storeu_si512(acc + 16 * v, a);
      }
    }
  }
}

void Gemm(const uint8_t* packed, uint32_t c, const RowSet& rows, int32_t* acc) {
  if (rows.active == c && c == 16) return GemmRegs<16>(packed, rows, acc);
  if (rows.active == c && c == 32) return GemmRegs<32>(packed, rows, acc);
  GemmAny(packed, c, rows, acc);  // also every partly used block
}

}  // namespace

const TileKernels* Avx512VnniTiles() {
  static const TileKernels tiles = {
      Supports, PackedBytes, Pack, Gemm, Avx2Tiles()->depthwise, Avx2Tiles()->requant};
  return &tiles;
}

}  // namespace loom::kernels::q::fast

#else  // not x86-64

namespace loom::kernels::q::fast {
const TileKernels* Avx512VnniTiles() { return nullptr; }
}  // namespace loom::kernels::q::fast

#endif
