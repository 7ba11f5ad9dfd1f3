// fast::Conv2d with row kernels (rows.h): the padded copy of the input, and the loop over output
// rows that calls the row kernel on groups of positions and requantizes each strip.
#include <algorithm>
#include <cstring>

#include "runtime/kernels/int8/fast/rows.h"
#include "runtime/kernels/int8/fast/tiles.h"
#include "runtime/kernels/int8/internal.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#elif defined(__ARM_NEON)
#include <arm_neon.h>
#endif

namespace loom::kernels::q::fast {

const RowKernels* RowKernelsFor(KernelPath path, uint32_t block) {
  const TileKernels* t = TilesFor(path, block);
  if (t == Avx512VnniTiles()) return VnniRowKernels(block);
  if (t == Avx2Tiles()) return Avx2RowKernels(block);
  if (t == NeonDotTiles()) return NeonDotRowKernels(block);
  if (t == NeonTiles()) return NeonRowKernels(block);
  return nullptr;
}

const RowKernels* RowKernelsForConv(KernelPath path, const Blocking& b, const Conv2dParams& p) {
  if (b.batch != 1 || path == KernelPath::kReference) return nullptr;
  const RowKernels* rk = RowKernelsFor(path, b.block);
  return rk != nullptr && (!p.depthwise || rk->depthwise != nullptr) ? rk : nullptr;
}

uint8_t PadXor(const RowKernels& rk, const Conv2dParams& p) { return p.depthwise ? 0 : rk.in_xor; }

size_t PaddedInputBytes(const RowKernels& rk, const Blocking& b, const Conv2dParams& p) {
  const size_t hp = size_t{p.in.h} + p.pad_top + p.pad_bottom;
  const size_t wp = size_t{p.in.w} + p.pad_left + p.pad_right;
  return size_t{p.in.n} * CeilDiv(p.in.c, b.block) * hp * wp * b.block * rk.in_bytes;
}

namespace {

// One input row of `n` bytes into the padded copy as x ^ in_xor: sixteen bytes per step with SSE2
// (the x86-64 baseline, so no dispatch), else eight through a uint64.
void CopyRow(const int8_t* in, size_t n, uint8_t in_xor, uint8_t* padded) {
  size_t i = 0;
#if defined(__SSE2__)
  const __m128i x16 = _mm_set1_epi8(static_cast<char>(in_xor));
  for (; i + 16 <= n; i += 16) {
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(in + i));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(padded + i), _mm_xor_si128(v, x16));
  }
#endif
  const uint64_t xor8 = uint64_t{in_xor} * 0x0101010101010101ull;
  for (; i + 8 <= n; i += 8) {
    uint64_t v;
    std::memcpy(&v, in + i, 8);
    v ^= xor8;
    std::memcpy(padded + i, &v, 8);
  }
  for (; i < n; ++i) padded[i] = static_cast<uint8_t>(in[i]) ^ in_xor;
}

// The same row sign-extended to int16 (the AVX2 and NEON rows' operand): with SSE2, each byte
// unpacked into the high half of a 16-bit lane and shifted back arithmetically; with NEON, sxtl.
void WidenRow(const int8_t* in, size_t n, uint8_t* padded) {
  size_t i = 0;
#if defined(__SSE2__)
  for (; i + 16 <= n; i += 16) {
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(in + i));
    __m128i* out = reinterpret_cast<__m128i*>(padded + 2 * i);
    _mm_storeu_si128(out, _mm_srai_epi16(_mm_unpacklo_epi8(v, v), 8));
    _mm_storeu_si128(out + 1, _mm_srai_epi16(_mm_unpackhi_epi8(v, v), 8));
  }
#elif defined(__ARM_NEON)
  for (; i + 8 <= n; i += 8) {
    vst1q_s16(reinterpret_cast<int16_t*>(padded + 2 * i), vmovl_s8(vld1_s8(in + i)));
  }
#endif
  for (; i < n; ++i) {
    const int16_t v = in[i];
    std::memcpy(padded + 2 * i, &v, 2);
  }
}

}  // namespace

void PadInput(const RowKernels& rk, const Blocking& b, const Conv2dParams& p, const int8_t* in,
              uint8_t* padded) {
  const uint8_t in_xor = PadXor(rk, p);
  const size_t E = rk.in_bytes;
  const size_t C = b.block;
  const size_t wp = size_t{p.in.w} + p.pad_left + p.pad_right;
  const size_t planes = size_t{p.in.n} * CeilDiv(p.in.c, b.block);
  const size_t row_elems = size_t{p.in.w} * C;
  // A padded element is the stored zero: 0 ^ in_xor as bytes, or int16 0 (in_xor is 0 then).
  for (size_t pl = 0; pl < planes; ++pl) {
    std::memset(padded, in_xor, p.pad_top * wp * C * E);
    padded += p.pad_top * wp * C * E;
    for (uint32_t y = 0; y < p.in.h; ++y, in += row_elems) {
      std::memset(padded, in_xor, p.pad_left * C * E);
      padded += p.pad_left * C * E;
      if (E == 2) {
        WidenRow(in, row_elems, padded);
      } else {
        CopyRow(in, row_elems, in_xor, padded);
      }
      padded += row_elems * E;
      std::memset(padded, in_xor, p.pad_right * C * E);
      padded += p.pad_right * C * E;
    }
    std::memset(padded, in_xor, p.pad_bottom * wp * C * E);
    padded += p.pad_bottom * wp * C * E;
  }
}

void ConvBlockByRows(const Blocking& b, const Conv2dParams& p, const RowsBlock& blk) {
  const uint32_t C = b.block;
  const ActShape os = p.out();
  const size_t hp = size_t{p.in.h} + p.pad_top + p.pad_bottom;
  const size_t wp = size_t{p.in.w} + p.pad_left + p.pad_right;
  const size_t E = blk.rk->in_bytes;
  ConvRows r;
  r.pos_step = size_t{p.stride_w} * C * E;
  r.row_step = wp * C * E;
  r.plane_step = hp * wp * C * E;
  r.kh = p.kh;
  r.kw = p.kw;
  r.icb = CeilDiv(p.in.c, C);
  r.last_quads = CeilDiv<uint32_t>(p.in.c - (r.icb - 1) * C, 4);
  r.tile_stride = blk.tile_stride;
  r.ob_stride = blk.ob_stride;
  r.out_ob_stride = size_t{os.h} * os.w * C;
  for (uint32_t y = 0; y < os.h; ++y) {
    const uint8_t* in_row = blk.padded + size_t{y} * p.stride_h * r.row_step;
    int8_t* dst = blk.out + size_t{y} * os.w * C;
    for (uint32_t x = 0; x < os.w; x += blk.rk->max_pos) {
      const uint32_t n = std::min(blk.rk->max_pos, os.w - x);
      r.in = in_row + size_t{x} * r.pos_step;
      if (p.depthwise) {
        r.in += size_t{blk.ob} * r.plane_step;
        blk.rk->depthwise(blk.dw_weights, C, r, n, blk.bias, blk.mult, p.rq, dst + size_t{x} * C);
      } else {
        blk.rk->rows(blk.tiles, C, r, n, blk.nob, blk.bias, blk.mult, p.rq, dst + size_t{x} * C);
      }
    }
    for (uint32_t j = 0; j < blk.nob; ++j) {
      if (blk.real_c[j] == C) continue;
      int8_t* d = dst + j * r.out_ob_stride;
      for (uint32_t i = 0; i < os.w; ++i)
        std::memset(d + size_t{i} * C + blk.real_c[j], 0, C - blk.real_c[j]);
    }
  }
}

}  // namespace loom::kernels::q::fast
