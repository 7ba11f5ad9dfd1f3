// fast::Conv2d with row kernels (rows.h): the padded copy of the input, and the loop over output
// rows that calls the row kernel on groups of positions and requantizes each strip.
#include <algorithm>
#include <cstring>

#include "runtime/kernels/int8/fast/rows.h"
#include "runtime/kernels/int8/internal.h"

namespace loom::kernels::q::fast {

const RowKernels* RowKernelsForConv(KernelPath path, const Blocking& b, const Conv2dParams& p) {
  if (p.depthwise || b.batch != 1) return nullptr;
  return RowKernelsFor(path, b.block);
}

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
  for (size_t pl = 0; pl < planes; ++pl) {
    std::memset(padded, in_xor, p.pad_top * wp * C);
    padded += p.pad_top * wp * C;
    for (uint32_t y = 0; y < p.in.h; ++y, in += row_bytes) {
      std::memset(padded, in_xor, p.pad_left * C);
      padded += p.pad_left * C;
      for (size_t i = 0; i < row_bytes; ++i) padded[i] = static_cast<uint8_t>(in[i]) ^ in_xor;
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
  r.last_quads = CeilDiv(p.in.c - (r.icb - 1) * C, 4u);
  r.tile_stride = blk.tile_stride;
  for (uint32_t y = 0; y < os.h; ++y) {
    const uint8_t* in_row = blk.padded + size_t{y} * p.stride_h * r.row_step;
    int8_t* dst_row = blk.out + size_t{y} * os.w * C;
    for (uint32_t x0 = 0; x0 < os.w; x0 += blk.strip) {
      const uint32_t nx = std::min(blk.strip, os.w - x0);
      for (uint32_t x = 0; x < nx; x += blk.rk->max_pos) {
        r.in = in_row + size_t{x0 + x} * r.pos_step;
        blk.rk->rows(blk.tiles, C, r, std::min(blk.rk->max_pos, nx - x), blk.bias,
                     blk.acc + size_t{x} * C);
      }
      int8_t* dst = dst_row + size_t{x0} * C;
      blk.k->requant(blk.acc, nx, C, blk.mult, p.rq, dst);
      if (blk.real_c < C) {
        for (uint32_t i = 0; i < nx; ++i)
          std::memset(dst + size_t{i} * C + blk.real_c, 0, C - blk.real_c);
      }
    }
  }
}

}  // namespace loom::kernels::q::fast
