// fast::Conv2d with row kernels (rows.h): the padded copy of the input, and the loop over output
// rows that calls the row kernel on groups of positions and requantizes each strip.
#include <algorithm>
#include <cstring>

#include "runtime/kernels/int8/fast/rows.h"
#include "runtime/kernels/int8/internal.h"

namespace loom::kernels::q::fast {

const RowKernels* RowKernelsForConv(KernelPath path, const Blocking& b, const Conv2dParams& p) {
  if (b.batch != 1) return nullptr;
  const RowKernels* rk = RowKernelsFor(path, b.block);
  return rk != nullptr && (!p.depthwise || rk->depthwise != nullptr) ? rk : nullptr;
}

uint8_t PadXor(const RowKernels& rk, const Conv2dParams& p) { return p.depthwise ? 0 : rk.in_xor; }

size_t PaddedInputBytes(const Blocking& b, const Conv2dParams& p) {
  const size_t hp = size_t{p.in.h} + p.pad_top + p.pad_bottom;
  const size_t wp = size_t{p.in.w} + p.pad_left + p.pad_right;
  return size_t{p.in.n} * CeilDiv(p.in.c, b.block) * hp * wp * b.block;
}

void PadInput(const Blocking& b, const Conv2dParams& p, uint8_t in_xor, const int8_t* in,
              uint8_t* padded) {
  const size_t C = b.block;
  const size_t wp = size_t{p.in.w} + p.pad_left + p.pad_right;
  const size_t planes = size_t{p.in.n} * CeilDiv(p.in.c, b.block);
  const size_t row_bytes = size_t{p.in.w} * C;
  const uint64_t xor8 = uint64_t{in_xor} * 0x0101010101010101ull;
  for (size_t pl = 0; pl < planes; ++pl) {
    std::memset(padded, in_xor, p.pad_top * wp * C);
    padded += p.pad_top * wp * C;
    for (uint32_t y = 0; y < p.in.h; ++y, in += row_bytes) {
      std::memset(padded, in_xor, p.pad_left * C);
      padded += p.pad_left * C;
      // Eight bytes per step (the byte loop is not vectorized: in and padded may alias).
      size_t i = 0;
      for (; i + 8 <= row_bytes; i += 8) {
        uint64_t v;
        std::memcpy(&v, in + i, 8);
        v ^= xor8;
        std::memcpy(padded + i, &v, 8);
      }
      for (; i < row_bytes; ++i) padded[i] = static_cast<uint8_t>(in[i]) ^ in_xor;
      padded += row_bytes;
      std::memset(padded, in_xor, p.pad_right * C);
      padded += p.pad_right * C;
    }
    std::memset(padded, in_xor, p.pad_bottom * wp * C);
    padded += p.pad_bottom * wp * C;
  }
}

void ConvBlockByRows(const Blocking& b, const Conv2dParams& p, const RowsBlock& blk) {
  const uint32_t C = b.block;
  const ActShape os = p.out();
  const size_t hp = size_t{p.in.h} + p.pad_top + p.pad_bottom;
  const size_t wp = size_t{p.in.w} + p.pad_left + p.pad_right;
  ConvRows r;
  r.pos_step = size_t{p.stride_w} * C;
  r.row_step = wp * C;
  r.plane_step = hp * wp * C;
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
