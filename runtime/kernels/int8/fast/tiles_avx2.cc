// AVX2 micro-kernels (x86-64; chosen at run time, so only these functions carry the target).
// The tile is widened to int16 pairs and multiplied with vpmaddwd on sign-extended inputs: a
// pair sum is at most 2 * 128 * 128 = 2^15, so nothing saturates (vpmaddubsw would: 255 * 127 * 2
// overflows int16). Block % 8 == 0: one ymm holds eight output channels.
#include <cstring>

#include "runtime/kernels/int8/fast/tile_pack.h"
#include "runtime/kernels/int8/fast/tiles.h"

#if defined(__x86_64__)
#include <immintrin.h>

#include "runtime/kernels/int8/fast/x86_requant.h"

namespace loom::kernels::q::fast {
namespace {

#define LOOM_AVX2 __attribute__((target("avx2")))

bool Supports(uint32_t c) { return c % 8 == 0 && c <= 256; }
size_t PackedBytes(uint32_t c) { return Avx2TileBytes(c); }

void Pack(const int8_t* tile, uint32_t c, uint8_t* packed) { PackAvx2Tile(tile, c, packed); }

LOOM_AVX2 inline void Widen(const int8_t* in, uint32_t c, int16_t* x16) {
  uint32_t i = 0;
  for (; i + 16 <= c; i += 16) {
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(in + i));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(x16 + i), _mm256_cvtepi8_epi16(v));
  }
  if (i < c) {
    const __m128i v = _mm_loadl_epi64(reinterpret_cast<const __m128i*>(in + i));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(x16 + i), _mm_cvtepi8_epi16(v));
  }
}

LOOM_AVX2 inline __m256i Pair(const int16_t* x16, uint32_t k) {
  int32_t v;
  std::memcpy(&v, x16 + 2 * k, 4);
  return _mm256_set1_epi32(v);
}

// kC != 0: the block is known at compile time and all accumulators of a row stay in registers.
template <uint32_t kC>
LOOM_AVX2 void GemmT(const uint8_t* packed, uint32_t c_rt, const RowSet& rows, int32_t* acc) {
  const uint32_t c = kC ? kC : c_rt;
  const size_t krow = size_t{c} * 4;  // bytes of one input pair's weights
  int16_t x16[256];
  for (uint32_t pos = 0; pos < rows.npos; ++pos) {
    const int8_t* in = rows.in + pos * rows.pos_step;
    for (uint32_t bi = 0; bi < rows.batch; ++bi, in += c, acc += c) {
      Widen(in, c, x16);
      if constexpr (kC != 0) {
        constexpr uint32_t nv = kC / 8;
        __m256i a[nv];
        for (uint32_t v = 0; v < nv; ++v)
          a[v] = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(acc + 8 * v));
        for (uint32_t k = 0; k < kC / 2; ++k) {
          const __m256i x = Pair(x16, k);
          for (uint32_t v = 0; v < nv; ++v) {
            const __m256i w =
                _mm256_loadu_si256(reinterpret_cast<const __m256i*>(packed + k * krow + 32 * v));
            a[v] = _mm256_add_epi32(a[v], _mm256_madd_epi16(x, w));
          }
        }
        for (uint32_t v = 0; v < nv; ++v)
          _mm256_storeu_si256(reinterpret_cast<__m256i*>(acc + 8 * v), a[v]);
      } else {
        for (uint32_t v = 0; v < c / 8; ++v) {
          __m256i a = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(acc + 8 * v));
          for (uint32_t k = 0; k < (rows.active + 1) / 2; ++k) {
            const __m256i w =
                _mm256_loadu_si256(reinterpret_cast<const __m256i*>(packed + k * krow + 32 * v));
            a = _mm256_add_epi32(a, _mm256_madd_epi16(Pair(x16, k), w));
          }
          _mm256_storeu_si256(reinterpret_cast<__m256i*>(acc + 8 * v), a);
        }
      }
    }
  }
}

void Gemm(const uint8_t* packed, uint32_t c, const RowSet& rows, int32_t* acc) {
  if (rows.active == c && c == 8) return GemmT<8>(packed, c, rows, acc);
  if (rows.active == c && c == 16) return GemmT<16>(packed, c, rows, acc);
  if (rows.active == c && c == 32) return GemmT<32>(packed, c, rows, acc);
  GemmT<0>(packed, c, rows, acc);  // also every partly used block
}

// Products of two int8 fit int16 (at most 2^14), so vpmullw is exact; they are widened before
// the wrapping int32 add.
LOOM_AVX2 void Depthwise(const int8_t* w, uint32_t c, const RowSet& rows, int32_t* acc) {
  for (uint32_t pos = 0; pos < rows.npos; ++pos) {
    const int8_t* in = rows.in + pos * rows.pos_step;
    for (uint32_t bi = 0; bi < rows.batch; ++bi, in += c, acc += c) {
      for (uint32_t o = 0; o < c; o += 8) {
        const __m128i x =
            _mm_cvtepi8_epi16(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(in + o)));
        const __m128i k =
            _mm_cvtepi8_epi16(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(w + o)));
        const __m256i prod = _mm256_cvtepi16_epi32(_mm_mullo_epi16(x, k));
        auto* a = reinterpret_cast<__m256i*>(acc + o);
        _mm256_storeu_si256(a, _mm256_add_epi32(_mm256_loadu_si256(a), prod));
      }
    }
  }
}

LOOM_AVX2 void Requantize(const int32_t* acc, size_t rows, uint32_t c, const int32_t* mult,
                          const Requant& rq, int8_t* out) {
  for (size_t r = 0; r < rows; ++r)
    for (uint32_t o = 0; o < c; o += 8)
      RequantizeAvx2x8(acc + r * c + o, mult + o, rq, out + r * c + o);
}

constexpr TileKernels kTiles = {Supports, PackedBytes, Pack, Gemm, Depthwise, Requantize};

}  // namespace

const TileKernels* Avx2Tiles() { return &kTiles; }

}  // namespace loom::kernels::q::fast

#else  // not x86-64

namespace loom::kernels::q::fast {
const TileKernels* Avx2Tiles() { return nullptr; }
}  // namespace loom::kernels::q::fast

#endif
