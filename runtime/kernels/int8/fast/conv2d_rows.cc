// fast::Conv2d with row kernels (rows.h): which kernels a call runs, and the padded copy and the
// loop over output rows of rows_body.h (shared with native code) over the chosen table.
#include <algorithm>
#include <cstring>

#include "runtime/kernels/int8/fast/rows.h"
#include "runtime/kernels/int8/fast/tiles.h"
#include "runtime/kernels/int8/internal.h"

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
  return PaddedInputBytes(rk.in_bytes, b, p);
}

void PadInput(const RowKernels& rk, const Blocking& b, const Conv2dParams& p, const int8_t* in,
              uint8_t* padded) {
  PadInput(PadXor(rk, p), rk.in_bytes, b, p, in, padded);
}

uint32_t RowChunkBlocks(const RowKernels& rk, const Blocking& b, const Conv2dParams& p,
                        uint32_t nob) {
  return RowChunkBlocks(rk.chunk_bytes, b.block, p, nob);
}

size_t RowPartialBytes(const RowKernels& rk, const Blocking& b, const Conv2dParams& p) {
  return RowPartialBytes(rk.chunk_bytes, rk.pair_max_block, b.block, p);
}

void ConvBlockByRows(const Blocking& b, const Conv2dParams& p, const RowsBlock& blk) {
  const RowKernels& rk = *blk.rk;
  ConvRows r = RowsGeometry(rk.in_bytes, b, p, blk.tile_stride, blk.ob_stride);
  const uint32_t C = b.block;
  if (p.depthwise) {
    ForEachRowGroup(b, p, r, blk.padded + size_t{blk.ob} * r.plane_step, rk.max_pos, 1, blk.real_c,
                    blk.out, [&](const ConvRows& g, uint32_t n, int8_t* dst) {
                      rk.depthwise(blk.dw_weights, C, g, n, blk.bias, blk.mult, p.rq, dst);
                    });
    return;
  }
  ForEachChunk(b, p, r, blk.padded, blk.tiles, RowChunkBlocks(rk, b, p, blk.nob), rk.max_pos,
               blk.nob, blk.real_c, blk.out, blk.partial,
               [&](const uint8_t* tiles, const ConvRows& g, uint32_t n, int8_t* dst) {
                 rk.rows(tiles, C, g, n, blk.nob, blk.bias, blk.mult, p.rq, dst);
               });
}

}  // namespace loom::kernels::q::fast
