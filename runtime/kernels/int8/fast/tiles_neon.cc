// NEON micro-kernels for armv7 (Cortex-A9: the build enables NEON) and aarch64 (always there),
// and on aarch64 the dot-product table where the CPU has it (kernel_path.cc detects it).
// smlal: int16 weights times one int16 input lane, widened into int32 lanes, exact (no
// saturating or doubling variant). sdot: four int8 x int8 products per int32 lane, signed on both
// sides, so no offset is needed. Both wrap in int32 like the accelerator's ACC.
// Block % 4 == 0: one q register holds four output channels.
#include <cstring>

#include "runtime/kernels/int8/fast/tile_pack.h"
#include "runtime/kernels/int8/fast/tiles.h"

#if defined(__ARM_NEON)
#include <arm_neon.h>

#include "runtime/kernels/int8/fast/neon_requant.h"

namespace loom::kernels::q::fast {
namespace {

bool Supports(uint32_t c) { return c % 4 == 0 && c <= 256; }
size_t PackedBytes(uint32_t c) { return NeonTileBytes(c); }

// int16 [i][o]: the weights one input channel meets, for every output channel.
void Pack(const int8_t* tile, uint32_t c, uint8_t* packed) { PackNeonTile(tile, c, packed); }

inline int16x4_t W4(const uint8_t* packed, uint32_t c, uint32_t i, uint32_t o) {
  int16_t w[4];
  std::memcpy(w, packed + (size_t{i} * c + o) * 2, 8);
  return vld1_s16(w);
}

inline void Widen(const int8_t* in, uint32_t c, int16_t* x16) {
  const uint32_t whole = c / 8 * 8;
  for (uint32_t i = 0; i < whole; i += 8) vst1q_s16(x16 + i, vmovl_s8(vld1_s8(in + i)));
  if (whole != c) {  // c % 4 == 0 (Supports): four left
    x16[whole] = in[whole];
    x16[whole + 1] = in[whole + 1];
    x16[whole + 2] = in[whole + 2];
    x16[whole + 3] = in[whole + 3];
  }
}

template <uint32_t kC>
void GemmT(const uint8_t* packed, uint32_t c_rt, const RowSet& rows, int32_t* acc) {
  const uint32_t c = kC ? kC : c_rt;
  const uint32_t ni = kC ? kC : (rows.active + 3) / 4 * 4;  // c % 4 == 0, so ni <= c
  int16_t x16[256];
  for (uint32_t pos = 0; pos < rows.npos; ++pos) {
    const int8_t* in = rows.in + pos * rows.pos_step;
    for (uint32_t bi = 0; bi < rows.batch; ++bi, in += c, acc += c) {
      Widen(in, c, x16);
      for (uint32_t o = 0; o < c; o += 4) {
        int32x4_t a = vld1q_s32(acc + o);
        for (uint32_t i = 0; i < ni; i += 4) {
          const int16x4_t x = vld1_s16(x16 + i);
          a = vmlal_lane_s16(a, W4(packed, c, i + 0, o), x, 0);
          a = vmlal_lane_s16(a, W4(packed, c, i + 1, o), x, 1);
          a = vmlal_lane_s16(a, W4(packed, c, i + 2, o), x, 2);
          a = vmlal_lane_s16(a, W4(packed, c, i + 3, o), x, 3);
        }
        vst1q_s32(acc + o, a);
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

inline void AddWrap(int32_t* acc, int32_t v) {
  *acc = static_cast<int32_t>(static_cast<uint32_t>(*acc) + static_cast<uint32_t>(v));
}

void Depthwise(const int8_t* w, uint32_t c, const RowSet& rows, int32_t* acc) {
  for (uint32_t pos = 0; pos < rows.npos; ++pos) {
    const int8_t* in = rows.in + pos * rows.pos_step;
    for (uint32_t bi = 0; bi < rows.batch; ++bi, in += c, acc += c) {
      uint32_t o = 0;
      for (; o + 8 <= c; o += 8) {
        const int16x8_t p = vmull_s8(vld1_s8(in + o), vld1_s8(w + o));  // |p| <= 2^14
        vst1q_s32(acc + o, vaddw_s16(vld1q_s32(acc + o), vget_low_s16(p)));
        vst1q_s32(acc + o + 4, vaddw_s16(vld1q_s32(acc + o + 4), vget_high_s16(p)));
      }
      for (; o < c; ++o) AddWrap(acc + o, int32_t{in[o]} * w[o]);
    }
  }
}

void Requantize(const int32_t* acc, size_t rows, uint32_t c, const int32_t* mult, const Requant& rq,
                int8_t* out) {
  const int32x4_t lo = vdupq_n_s32(rq.clip_lo), hi = vdupq_n_s32(rq.clip_hi);
  for (size_t r = 0; r < rows; ++r) {
    for (uint32_t o = 0; o < c; o += 4) {
      const int32x4_t a = RequantNeon(vld1q_s32(acc + r * c + o), vld1q_s32(mult + o), rq, lo, hi);
      StoreClipped<1>(&a, out + r * c + o);
    }
  }
}

constexpr TileKernels kTiles = {Supports, PackedBytes, Pack, Gemm, Depthwise, Requantize};

#if defined(__aarch64__)
#define LOOM_DOTPROD __attribute__((target("arch=armv8.2-a+dotprod")))

size_t DotPackedBytes(uint32_t c) { return DotTileBytes(c); }

void DotPack(const int8_t* tile, uint32_t c, uint8_t* packed) { PackDotTile(tile, c, packed); }

LOOM_DOTPROD void DotGemm(const uint8_t* packed, uint32_t c, const RowSet& rows, int32_t* acc) {
  const auto* w = reinterpret_cast<const int8_t*>(packed);
  for (uint32_t pos = 0; pos < rows.npos; ++pos) {
    const int8_t* in = rows.in + pos * rows.pos_step;
    for (uint32_t bi = 0; bi < rows.batch; ++bi, in += c, acc += c) {
      for (uint32_t o = 0; o < c; o += 4) {
        int32x4_t a = vld1q_s32(acc + o);
        for (uint32_t k = 0; k < (rows.active + 3) / 4; ++k) {
          int32_t quad;
          std::memcpy(&quad, in + 4 * k, 4);
          const int8x16_t x = vreinterpretq_s8_s32(vdupq_n_s32(quad));
          a = vdotq_s32(a, vld1q_s8(w + (size_t{k} * c + o) * 4), x);
        }
        vst1q_s32(acc + o, a);
      }
    }
  }
}

constexpr TileKernels kDotTiles = {Supports, DotPackedBytes, DotPack,
                                   DotGemm,  Depthwise,      Requantize};
#endif

}  // namespace

const TileKernels* NeonTiles() { return &kTiles; }
#if defined(__aarch64__)
const TileKernels* NeonDotTiles() { return &kDotTiles; }
#else
const TileKernels* NeonDotTiles() { return nullptr; }
#endif

}  // namespace loom::kernels::q::fast

#else  // no NEON

namespace loom::kernels::q::fast {
const TileKernels* NeonTiles() { return nullptr; }
const TileKernels* NeonDotTiles() { return nullptr; }
}  // namespace loom::kernels::q::fast

#endif
