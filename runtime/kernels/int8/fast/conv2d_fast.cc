// fast::Conv2d: the reference's integer program (conv2d.cc) reordered for SIMD. Per output-channel
// block, the weight tiles are repacked once into the micro-kernel's layout; then each strip of
// output positions keeps its int32 accumulators in the workspace while the loop walks kernel
// taps and input-channel blocks, and the epilogue requantizes the strip in one pass. Taps that
// fall into the padding are skipped per position range when the pad value is 0, exactly as the
// reference skips them, and otherwise add pad_value * w (pad sums, or a vector of the pad value).
#include <algorithm>
#include <cstring>
#include <string>

#include "runtime/kernels/int8/fast/fast.h"
#include "runtime/kernels/int8/fast/rows.h"
#include "runtime/kernels/int8/fast/tiles.h"
#include "runtime/kernels/int8/internal.h"

namespace loom::kernels::q::fast {
namespace {

// Accumulators per strip: 16 KiB of int32 stays in L1 next to the tile and the input rows.
constexpr size_t kStripAccs = 4096;

size_t RoundUp64(size_t v) { return (v + 63) & ~size_t{63}; }

uint32_t StripPositions(const Blocking& b, uint32_t out_w) {
  const size_t per = size_t{b.batch} * b.block;
  return static_cast<uint32_t>(std::min<size_t>(out_w, std::max<size_t>(1, kStripAccs / per)));
}

// Bytes between packed tiles of `path` (its table's tile, a cache line apart).
size_t TileStride(KernelPath path, uint32_t block) {
  return PackedTileStride(TilesFor(path, block)->packed_bytes(block));
}

// One output-channel block's packed tiles.
size_t PackedBytes(KernelPath path, const Blocking& b, const Conv2dParams& p) {
  if (p.depthwise) return 0;
  const size_t tiles = size_t{CeilDiv(p.in.c, b.block)} * p.kh * p.kw;
  return tiles * TileStride(path, b.block);
}

// The x range [lo, hi] of output positions whose tap kx reads a real input column.
bool TapColumns(const Conv2dParams& p, uint32_t kx, uint32_t x0, uint32_t nx, uint32_t* lo,
                uint32_t* hi) {
  const int64_t sw = p.stride_w, off = int64_t{kx} - p.pad_left;  // ix = x * sw + off
  int64_t first = off >= 0 ? 0 : (-off + sw - 1) / sw;
  const int64_t last_ix = int64_t{p.in.w} - 1 - off;
  if (last_ix < 0) return false;
  int64_t last = last_ix / sw;
  first = std::max<int64_t>(first, x0);
  last = std::min<int64_t>(last, int64_t{x0} + nx - 1);
  if (first > last) return false;
  *lo = static_cast<uint32_t>(first);
  *hi = static_cast<uint32_t>(last);
  return true;
}

// The tile loop's pad sums (groups == 1 with a pad value): pad_value * sum_i w[o][i] over every
// input-channel block, per tap and output channel of one output-channel block, as uint32.
size_t PadSumBytes(const Blocking& b, const Conv2dParams& p, const RowKernels* rk) {
  if (p.pad_value == 0 || p.depthwise || rk != nullptr) return 0;
  return RoundUp64(size_t{p.kh} * p.kw * b.block * sizeof(uint32_t));
}

// A grouped convolution whose groups hold whole channel blocks, in and out, runs as one
// groups == 1 convolution per group and batch block, on the group's contiguous channel blocks
// (the blocked layout keeps them together) and its output-channel blocks' weight tiles (which are
// the group's own: BlockedWeights of [out_c][gc]). A short last group reads the input's padding
// lanes for its missing channels (zeros, as the reference's missing channels), with as many
// blocks as the others. Other grouped convolutions run the reference kernel.
bool GroupsByBlocks(const Blocking& b, const Conv2dParams& p) {
  return GroupsOfWholeBlocks(p.groups, p.in.c, p.out_c, p.GroupChannels(), b.block);
}
// One (full) group's convolution over (at most) one batch block.
Conv2dParams OneGroup(const Blocking& b, const Conv2dParams& p) {
  Conv2dParams g = p;
  g.in.n = std::min(p.in.n, b.batch);
  g.in.c = p.GroupChannels();
  g.out_c = p.GroupOutChannels();
  g.groups = 1;
  g.group_c = 0;
  return g;
}

}  // namespace

size_t Conv2dWorkspaceBytes(KernelPath path, const Blocking& b, const Conv2dParams& p) {
  if (path == KernelPath::kReference || b.batch == 0 || b.block == 0) return 0;
  if (p.groups != 1)
    return GroupsByBlocks(b, p) ? Conv2dWorkspaceBytes(path, b, OneGroup(b, p)) : 0;
  const size_t accs = size_t{StripPositions(b, p.out_w() == 0 ? 1 : p.out_w())} * b.batch * b.block;
  const RowKernels* rk = RowKernelsForConv(path, b, p);
  const size_t rows = rk != nullptr ? RowsWorkspaceBytes(*rk, b, p) : 0;
  return PackedBytes(path, b, p) + RoundUp64(accs * sizeof(int32_t)) + rows + PadSumBytes(b, p, rk);
}

// The row kernels' bias adjustments (RowKernels::bias_adjust) kept after the packed tiles:
// out_c rounded up to the block, int32 each; 0 bytes where the kernels take none.
size_t AdjustBytes(KernelPath path, const Blocking& b, const Conv2dParams& p) {
  const RowKernels* rk = RowKernelsForConv(path, b, p);
  if (rk == nullptr || rk->bias_adjust == nullptr || p.depthwise) return 0;
  return RoundUp64(size_t{CeilDiv(p.out_c, b.block)} * b.block * sizeof(int32_t));
}

size_t PackedWeightsBytes(KernelPath path, const Blocking& b, const Conv2dParams& p) {
  if (path == KernelPath::kReference || b.block == 0) return 0;
  if (p.groups != 1) {
    return GroupsByBlocks(b, p) ? p.groups * PackedWeightsBytes(path, b, OneGroup(b, p)) : 0;
  }
  return size_t{CeilDiv(p.out_c, b.block)} * PackedBytes(path, b, p) + AdjustBytes(path, b, p);
}

Status PackWeights(KernelPath path, const Blocking& b, const Conv2dParams& p, const int8_t* weights,
                   void* packed, size_t packed_bytes) {
  LOOM_RETURN_IF_ERROR(internal::CheckBlocking(b));
  LOOM_RETURN_IF_ERROR(internal::CheckNotNull(weights, "PackWeights: weights"));
  const size_t need = PackedWeightsBytes(path, b, p);
  if (need == 0 || packed == nullptr || packed_bytes < need) {
    return InvalidArgument("PackWeights (" + std::string(PathName(path)) + " kernels): " +
                           (need == 0
                                ? std::string("this convolution has no packed form")
                                : "the buffer holds " + std::to_string(packed_bytes) +
                                      " bytes, the packed weights need " + std::to_string(need)));
  }
  if (p.groups != 1) {  // GroupsByBlocks: each group's tiles packed as its own convolution's
    const Conv2dParams one = OneGroup(b, p);
    const size_t wbytes = ConvWeightBytes(b, one.out_c, one.in.c, p.kh, p.kw);
    const size_t per = PackedWeightsBytes(path, b, one);
    for (uint32_t g = 0; g < p.groups; ++g) {
      LOOM_RETURN_IF_ERROR(PackWeights(path, b, one, weights + g * wbytes,
                                       static_cast<uint8_t*>(packed) + g * per, per));
    }
    return Status::Ok();
  }
  const TileKernels& k = *TilesFor(path, b.block);
  const uint32_t C = b.block;
  const size_t tiles = size_t{CeilDiv(p.out_c, C)} * CeilDiv(p.in.c, C) * p.kh * p.kw;
  const size_t tile_stride = TileStride(path, C);
  for (size_t t = 0; t < tiles; ++t) {
    k.pack(weights + t * C * C, C, static_cast<uint8_t*>(packed) + t * tile_stride);
  }
  if (AdjustBytes(path, b, p) != 0) {
    const RowKernels& rk = *RowKernelsForConv(path, b, p);
    const uint32_t ocb = CeilDiv(p.out_c, C);
    const size_t per_ob = PackedBytes(path, b, p), ntiles = per_ob / tile_stride;
    uint8_t* adjust = static_cast<uint8_t*>(packed) + ocb * per_ob;
    int32_t a[internal::kConvMaxBlock];
    for (uint32_t ob = 0; ob < ocb; ++ob) {
      rk.bias_adjust(static_cast<const uint8_t*>(packed) + ob * per_ob, C, ntiles, tile_stride, a);
      std::memcpy(adjust + size_t{ob} * C * sizeof(int32_t), a, C * sizeof(int32_t));
    }
  }
  return Status::Ok();
}

Status Conv2d(KernelPath path, const Blocking& b, const Conv2dParams& p, const int8_t* in,
              const int8_t* weights, const void* packed_weights, const int32_t* bias,
              const int32_t* mult, int8_t* out, void* workspace, size_t workspace_bytes) {
  if (path == KernelPath::kReference) return q::Conv2d(b, p, in, weights, bias, mult, out);
  LOOM_RETURN_IF_ERROR(internal::CheckConv2dCall(b, p, in, weights, mult, out));
  if (p.groups != 1) {
    if (!GroupsByBlocks(b, p)) return q::Conv2d(b, p, in, weights, bias, mult, out);
    const Conv2dParams one = OneGroup(b, p);
    const uint32_t C = b.block, B = b.batch, gib = one.in.c / C, gob = one.out_c / C;
    const uint32_t icb = CeilDiv(p.in.c, C), ocb = CeilDiv(p.out_c, C);
    const size_t in_plane = size_t{p.in.h} * p.in.w * B * C;
    const size_t out_plane = size_t{p.out_h()} * p.out_w() * B * C;
    const size_t wbytes = ConvWeightBytes(b, one.out_c, one.in.c, p.kh, p.kw);
    const size_t pbytes = PackedWeightsBytes(path, b, one);
    for (uint32_t nb = 0; nb < CeilDiv(p.in.n, B); ++nb) {
      Conv2dParams sub = one;
      sub.in.n = std::min(B, p.in.n - nb * B);
      for (uint32_t g = 0; g < p.groups; ++g) {
        const size_t ib = size_t{nb} * icb + size_t{g} * gib;
        const size_t ob = size_t{nb} * ocb + size_t{g} * gob;
        const size_t oc = size_t{g} * one.out_c;
        // A short last group writes only its real output channels (the rest are padding lanes).
        sub.out_c = std::min(one.out_c, p.out_c - g * one.out_c);
        LOOM_RETURN_IF_ERROR(Conv2d(path, b, sub, in + ib * in_plane, weights + g * wbytes,
                                    packed_weights == nullptr
                                        ? nullptr
                                        : static_cast<const uint8_t*>(packed_weights) + g * pbytes,
                                    bias == nullptr ? nullptr : bias + oc, mult + oc,
                                    out + ob * out_plane, workspace, workspace_bytes));
      }
    }
    return Status::Ok();
  }
  const size_t need = Conv2dWorkspaceBytes(path, b, p);
  if (workspace == nullptr || workspace_bytes < need) {
    return InvalidArgument("Conv2d (" + std::string(PathName(path)) +
                           " kernels): the workspace holds " +
                           std::to_string(workspace == nullptr ? 0 : workspace_bytes) +
                           " bytes, this convolution needs " + std::to_string(need));
  }
  const TileKernels& k = *TilesFor(path, b.block);
  const ActShape os = p.out();
  const uint32_t B = b.batch, C = b.block;
  const uint32_t nbs = CeilDiv(p.in.n, B);
  const uint32_t icb = CeilDiv(p.in.c, C), ocb = CeilDiv(p.out_c, C);
  const size_t pos_bytes = size_t{B} * C;
  const size_t in_plane = size_t{p.in.h} * p.in.w * pos_bytes;
  const size_t tile_stride = TileStride(path, C);
  const uint32_t strip = StripPositions(b, os.w);
  auto* packed = static_cast<uint8_t*>(workspace);
  auto* acc = reinterpret_cast<int32_t*>(packed + PackedBytes(path, b, p));
  const size_t taps = size_t{p.kh} * p.kw;
  // With row kernels, every image's input is copied once, padded, for all output-channel blocks.
  const RowKernels* rk = RowKernelsForConv(path, b, p);
  // Then the row kernels' part, laid out as native code's (rows_body.h ConvRowsWorkspaceBytes):
  // the padded copy (or the depthwise quads' rows), then the partial sums between chunks.
  uint8_t* padded =
      reinterpret_cast<uint8_t*>(acc) + RoundUp64(size_t{strip} * B * C * sizeof(int32_t));
  const bool dw_plane = rk != nullptr && UsesDepthwisePlane(*rk, p);
  if (rk != nullptr && !dw_plane) PadInput(*rk, b, p, in, padded);
  int32_t* partial = nullptr;
  if (rk != nullptr) {
    const size_t first = dw_plane ? DwQuadScratchBytes(p, C) : PaddedInputBytes(*rk, b, p);
    partial = reinterpret_cast<int32_t*>(padded + RoundUp64(first));
  }
  // The tile loop skips the taps outside the input when the pad value is 0 (they add nothing).
  // Otherwise such a tap adds pad_value * w: depthwise by the micro-kernel on this vector,
  // pad_value in every lane as in the reference's (lanes past in.c meet zero weights, outputs of
  // batch rows past in.n are zeroed); groups == 1 by adding the tap's pad sums, the same terms
  // summed once per output-channel block (mod 2^32, so the order does not matter), c adds per
  // position instead of a c x c tile per input-channel block.
  const bool pads = p.pad_value != 0;
  auto* pad_sums = reinterpret_cast<uint32_t*>(padded);  // the tile loop has no padded copy
  const bool use_pad_sums = PadSumBytes(b, p, rk) != 0;
  int8_t pad[internal::kConvMaxTile];
  if (pads && !use_pad_sums) std::memset(pad, static_cast<int8_t>(p.pad_value), pos_bytes);

  int32_t bias_blk[2 * internal::kConvMaxBlock], mult_blk[2 * internal::kConvMaxBlock];
  uint32_t nob = 1;
  for (uint32_t ob = 0; ob < ocb; ob += nob) {
    // Two output-channel blocks per row-kernel call where the kernels take them and the packed
    // tiles of both are at hand (packed ahead: consecutive).
    nob = rk != nullptr && !p.depthwise && C <= rk->pair_max_block && packed_weights != nullptr &&
                  ob + 1 < ocb
              ? 2
              : 1;
    // Channels past out_c get bias and mult 0; their lanes are zeroed after requantization.
    uint32_t real_cs[2] = {0, 0};
    for (uint32_t j = 0; j < nob; ++j) {
      real_cs[j] = std::min(C, p.out_c - (ob + j) * C);
      for (uint32_t o = 0; o < C; ++o) {
        const bool real = o < real_cs[j];
        bias_blk[j * C + o] = (bias != nullptr && real) ? bias[(ob + j) * C + o] : 0;
        mult_blk[j * C + o] = real ? mult[(ob + j) * C + o] : 0;
      }
    }
    const uint32_t real_c = real_cs[0];
    const uint8_t* tiles = packed;
    if (packed_weights != nullptr) {
      tiles = static_cast<const uint8_t*>(packed_weights) + size_t{ob} * icb * taps * tile_stride;
    } else if (!p.depthwise) {
      for (uint32_t ib = 0; ib < icb; ++ib)
        for (size_t t = 0; t < taps; ++t) {
          const int8_t* tile = weights + ((size_t{ob} * icb + ib) * taps + t) * C * C;
          k.pack(tile, C, packed + (size_t{ib} * taps + t) * tile_stride);
        }
    }
    if (use_pad_sums) {
      for (size_t t = 0; t < taps; ++t) {
        for (uint32_t o = 0; o < C; ++o) {
          uint32_t sum = 0;
          for (uint32_t ib = 0; ib < icb; ++ib) {
            const int8_t* wr = weights + (((size_t{ob} * icb + ib) * taps + t) * C + o) * C;
            for (uint32_t i = 0; i < C; ++i) sum += static_cast<uint32_t>(int32_t{wr[i]});
          }
          pad_sums[t * C + o] = static_cast<uint32_t>(p.pad_value) * sum;
        }
      }
    }
    // The row kernels' bias adjustments: kept after the tiles packed ahead, or computed here
    // for the block just packed (nob 1).
    if (AdjustBytes(path, b, p) != 0) {
      int32_t adj[2 * internal::kConvMaxBlock];
      if (packed_weights != nullptr) {
        const size_t at = size_t{ocb} * PackedBytes(path, b, p) + size_t{ob} * C * sizeof(int32_t);
        std::memcpy(adj, static_cast<const uint8_t*>(packed_weights) + at,
                    size_t{nob} * C * sizeof(int32_t));
      } else {
        rk->bias_adjust(tiles, C, size_t{icb} * taps, tile_stride, adj);
      }
      for (uint32_t i = 0; i < nob * C; ++i) {
        bias_blk[i] = static_cast<int32_t>(static_cast<uint32_t>(bias_blk[i]) +
                                           static_cast<uint32_t>(adj[i]));
      }
    }
    for (uint32_t nb = 0; nb < nbs; ++nb) {
      if (dw_plane) {  // the stored plane itself, no padded copy (the workspace is scratch)
        rk->depthwise_plane(p, C, in + (size_t{nb} * icb + ob) * in_plane,
                            weights + size_t{ob} * taps * C, bias_blk, mult_blk, real_cs[0], padded,
                            out + (size_t{nb} * ocb + ob) * os.h * os.w * pos_bytes);
        continue;
      }
      if (rk != nullptr) {
        RowsBlock blk;
        blk.rk = rk;
        blk.padded = padded + size_t{nb} * PaddedInputBytes(*rk, b, p) / p.in.n;
        blk.tiles = tiles;
        blk.dw_weights = weights + size_t{ob} * taps * C;
        blk.ob = ob;
        blk.tile_stride = tile_stride;
        blk.nob = nob;
        blk.ob_stride = size_t{icb} * taps * tile_stride;
        blk.bias = bias_blk;
        blk.mult = mult_blk;
        blk.real_c[0] = real_cs[0];
        blk.real_c[1] = real_cs[1];
        blk.out = out + (size_t{nb} * ocb + ob) * os.h * os.w * pos_bytes;
        blk.partial = partial;
        ConvBlockByRows(b, p, blk);
        continue;
      }
      const uint32_t real_b = std::min(B, p.in.n - nb * B);
      const int8_t* in_nb = in + size_t{nb} * icb * in_plane;
      for (uint32_t y = 0; y < os.h; ++y) {
        int8_t* dst_row = out + ((size_t{nb} * ocb + ob) * os.h + y) * os.w * pos_bytes;
        for (uint32_t x0 = 0; x0 < os.w; x0 += strip) {
          const uint32_t nx = std::min(strip, os.w - x0);
          const size_t rows = size_t{nx} * B;
          for (size_t r = 0; r < rows; ++r) std::memcpy(acc + r * C, bias_blk, C * sizeof(int32_t));
          // Tap (ky, kx) for the strip's positions [first, first + n): input-channel block `blk`
          // of a position is at base + blk * plane (plane 0: the pad vector for every block).
          auto add_tap = [&](uint32_t ky, uint32_t kx, uint32_t first, uint32_t n,
                             const int8_t* base, size_t step, size_t plane) {
            RowSet rs;
            rs.pos_step = step;
            rs.npos = n;
            rs.batch = B;
            int32_t* acc_lo = acc + size_t{first - x0} * pos_bytes;
            if (p.depthwise) {
              rs.in = base + ob * plane;
              k.depthwise(weights + ((size_t{ob} * p.kh + ky) * p.kw + kx) * C, C, rs, acc_lo);
              return;
            }
            const size_t t = size_t{ky} * p.kw + kx;
            for (uint32_t ib = 0; ib < icb; ++ib) {
              rs.in = base + ib * plane;
              rs.active = std::min(C, p.in.c - ib * C);
              k.gemm(tiles + (size_t{ib} * taps + t) * tile_stride, C, rs, acc_lo);
            }
          };
          // Positions [first, last_excl) whose tap falls outside the input: the pad vector
          // (pos_step 0) through the depthwise micro-kernel, or the tap's pad sums.
          auto add_pad = [&](uint32_t ky, uint32_t kx, uint32_t first, uint32_t last_excl) {
            if (first >= last_excl) return;
            if (!use_pad_sums) {
              add_tap(ky, kx, first, last_excl - first, pad, 0, 0);
              return;
            }
            const uint32_t* ps = pad_sums + (size_t{ky} * p.kw + kx) * C;
            auto* a = reinterpret_cast<uint32_t*>(acc) + size_t{first - x0} * pos_bytes;
            for (size_t r = 0; r < size_t{last_excl - first} * B; ++r, a += C)
              for (uint32_t o = 0; o < C; ++o) a[o] += ps[o];
          };
          for (uint32_t ky = 0; ky < p.kh; ++ky) {
            const int64_t iy = int64_t{y} * p.stride_h + ky - p.pad_top;
            if (iy < 0 || iy >= p.in.h) {
              if (!pads) continue;
              for (uint32_t kx = 0; kx < p.kw; ++kx) add_pad(ky, kx, x0, x0 + nx);
              continue;
            }
            for (uint32_t kx = 0; kx < p.kw; ++kx) {
              uint32_t lo = 0, hi = 0;
              if (!TapColumns(p, kx, x0, nx, &lo, &hi)) {
                if (pads) add_pad(ky, kx, x0, x0 + nx);
                continue;
              }
              if (pads) {
                add_pad(ky, kx, x0, lo);
                add_pad(ky, kx, hi + 1, x0 + nx);
              }
              const size_t ix = size_t{lo} * p.stride_w + kx - p.pad_left;
              const size_t at = (static_cast<size_t>(iy) * p.in.w + ix) * pos_bytes;
              add_tap(ky, kx, lo, hi - lo + 1, in_nb + at, size_t{p.stride_w} * pos_bytes,
                      in_plane);
            }
          }
          int8_t* dst = dst_row + size_t{x0} * pos_bytes;
          k.requant(acc, rows, C, mult_blk, p.rq, dst);
          if (real_c < C || real_b < B) {
            for (size_t r = 0; r < rows; ++r) {
              if (r % B >= real_b) {
                std::memset(dst + r * C, 0, C);
              } else if (real_c < C) {
                std::memset(dst + r * C + real_c, 0, C - real_c);
              }
            }
          }
        }
      }
    }
  }
  return Status::Ok();
}

}  // namespace loom::kernels::q::fast
