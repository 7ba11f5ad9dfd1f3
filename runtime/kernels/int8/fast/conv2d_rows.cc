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
  const uint32_t icb = CeilDiv(p.in.c, b.block);
  if (rk.chunk_bytes == 0 || p.depthwise) return icb;
  const size_t per_block = size_t{nob} * p.kh * p.kw * (size_t{b.block} * b.block + 4 * b.block);
  return static_cast<uint32_t>(std::clamp<size_t>(rk.chunk_bytes / per_block, 1, icb));
}

size_t RowPartialBytes(const RowKernels& rk, const Blocking& b, const Conv2dParams& p) {
  const uint32_t nob = b.block <= rk.pair_max_block ? 2 : 1;
  if (RowChunkBlocks(rk, b, p, nob) == CeilDiv(p.in.c, b.block)) return 0;
  return size_t{p.out_h()} * p.out_w() * nob * b.block * sizeof(int32_t);
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
  // The reduction in chunks of input-channel blocks, each over every output row; the partial
  // sums of position x of the plane are at partial[x * nob * C].
  const uint32_t icb = r.icb, chunk = RowChunkBlocks(rk, b, p, blk.nob);
  const size_t taps = size_t{p.kh} * p.kw;
  for (uint32_t ib0 = 0; ib0 < icb; ib0 += chunk) {
    const bool first = ib0 == 0, last = ib0 + chunk >= icb;
    ConvRows rc = r;
    rc.icb = std::min(chunk, icb - ib0);
    if (!last) rc.last_quads = C / 4;
    const uint8_t* tiles = blk.tiles + ib0 * taps * blk.tile_stride;
    ForEachRowGroup(b, p, rc, blk.padded + ib0 * r.plane_step, rk.max_pos, blk.nob, blk.real_c,
                    blk.out, [&](const ConvRows& g, uint32_t n, int8_t* dst) {
                      ConvRows gc = g;
                      if (!(first && last)) {
                        int32_t* part = blk.partial + (dst - blk.out) / C * blk.nob * C;
                        gc.acc_in = first ? nullptr : part;
                        gc.acc_out = last ? nullptr : part;
                      }
                      rk.rows(tiles, C, gc, n, blk.nob, blk.bias, blk.mult, p.rq, dst);
                    });
  }
}

}  // namespace loom::kernels::q::fast
