// A whole convolution by register-blocked rows (rows.h) with weights packed ahead of time, over
// one instruction set's row kernels given as a type: the body native code runs for a Conv2d
// (abi/kernel_abi.cc), where the code generator has packed the weights at compile time and
// picked the instruction set from the target CPU. Freestanding (no Status, no allocation): the
// padded copy goes to the caller's workspace (PaddedInputBytes(Isa::kInBytes, ...) bytes).
//
// `Isa` provides: kInXor and kInBytes (the padded copy's form, RowKernels' in_xor and in_bytes),
// kPairMaxBlock (RowKernels' pair_max_block), kChunkBytes (chunk_bytes), kDwQuads (whether it
// has DepthwisePlane, RowKernels' depthwise_plane), TileBytes(block) (its tile's, tile_pack.h),
// kBiasAdjust (whether the table has a bias_adjust:
// `packed` then holds out_c rounded up to the block int32 adjustments after the tiles, as
// fast::PackWeights lays them out), MaxPos(block), and Rows / Depthwise with RowKernels' rows /
// depthwise signatures. Preconditions are the checked kernel's, plus batch
// block 1 and a block the Isa takes. The loop is fast::Conv2d's row path (conv2d_fast.cc), which
// gives the same bytes as the reference (conv2d_fast_test.cc).
#ifndef LOOM_RUNTIME_KERNELS_INT8_FAST_CONV2D_ROWS_BODY_H_
#define LOOM_RUNTIME_KERNELS_INT8_FAST_CONV2D_ROWS_BODY_H_

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "runtime/kernels/int8/bodies.h"
#include "runtime/kernels/int8/fast/rows_body.h"

namespace loom::kernels::q::fast {

// `packed`: every output-channel block's tiles, [ob][ib][ky][kx], PackedTileStride(Isa::
// TileBytes) apart, in Isa's layout (tile_pack.h); unused (may be null) for depthwise, which reads
// `weights` as stored. `workspace`: ConvRowsWorkspaceBytes(Isa::kInBytes, Isa::kChunkBytes,
// Isa::kPairMaxBlock, Isa::kDwQuads, b, p).
template <typename Isa>
void Conv2dByRows(const Blocking& b, const Conv2dParams& p, const int8_t* in, const uint8_t* packed,
                  const int8_t* weights, const int32_t* bias, const int32_t* mult, int8_t* out,
                  uint8_t* workspace) {
  const uint32_t C = b.block;
  const ActShape os = p.out();
  const uint32_t icb = CeilDiv(p.in.c, C), ocb = CeilDiv(p.out_c, C);
  const size_t taps = size_t{p.kh} * p.kw;
  const size_t tile_stride = PackedTileStride(Isa::TileBytes(C));
  const size_t ob_stride = icb * taps * tile_stride;
  const bool quads = UsesDwQuads(Isa::kDwQuads, p);
  if (!quads) PadInput(p.depthwise ? uint8_t{0} : Isa::kInXor, Isa::kInBytes, b, p, in, workspace);
  const size_t image_bytes = PaddedInputBytes(Isa::kInBytes, b, p) / p.in.n;
  const size_t first = quads ? DwQuadScratchBytes(p, C) : PaddedInputBytes(Isa::kInBytes, b, p);
  int32_t* partial = reinterpret_cast<int32_t*>(workspace + ((first + 63) & ~size_t{63}));
  const ConvRows geo = RowsGeometry(Isa::kInBytes, b, p, tile_stride, ob_stride);
  const uint32_t max_pos = Isa::MaxPos(C);
  // The kernels take the requantization by reference: a copy keeps `p` itself from escaping into
  // them, or LLVM could no longer fold its fields after the first call (native code would then
  // run every branch and kernel of the generic loop, not the op's).
  const Requant rq = p.rq;
  int32_t bias_blk[2 * internal::kConvMaxBlock], mult_blk[2 * internal::kConvMaxBlock];
  uint32_t nob = 1;
  for (uint32_t ob = 0; ob < ocb; ob += nob) {
    nob = !p.depthwise && C <= Isa::kPairMaxBlock && ob + 1 < ocb ? 2 : 1;
    // Channels past out_c get bias and mult 0; ForEachRowGroup zeroes their lanes.
    uint32_t real_c[2] = {0, 0};
    for (uint32_t j = 0; j < nob; ++j) {
      real_c[j] = p.out_c - (ob + j) * C < C ? p.out_c - (ob + j) * C : C;
      for (uint32_t o = 0; o < C; ++o) {
        const bool real = o < real_c[j];
        bias_blk[j * C + o] = (bias != nullptr && real) ? bias[(ob + j) * C + o] : 0;
        mult_blk[j * C + o] = real ? mult[(ob + j) * C + o] : 0;
      }
    }
    if constexpr (Isa::kBiasAdjust) {
      if (!p.depthwise) {
        const uint8_t* adj = packed + size_t{ocb} * ob_stride + size_t{ob} * C * sizeof(int32_t);
        for (uint32_t i = 0; i < nob * C; ++i) {
          int32_t a;
          std::memcpy(&a, adj + size_t{i} * sizeof(int32_t), sizeof(int32_t));
          bias_blk[i] =
              static_cast<int32_t>(static_cast<uint32_t>(bias_blk[i]) + static_cast<uint32_t>(a));
        }
      }
    }
    for (uint32_t n = 0; n < p.in.n; ++n) {
      const uint8_t* padded = workspace + n * image_bytes;
      int8_t* dst = out + (size_t{n} * ocb + ob) * os.h * os.w * C;
      if (p.depthwise) {
        const int8_t* w = weights + size_t{ob} * taps * C;
        if constexpr (Isa::kDwQuads) {
          if (quads) {
            const int8_t* plane = in + (size_t{n} * icb + ob) * p.in.h * p.in.w * C;
            Isa::DepthwisePlane(p, C, plane, w, bias_blk, mult_blk, real_c[0], workspace, dst);
            continue;
          }
        }
        ForEachRowGroup(b, p, geo, padded + size_t{ob} * geo.plane_step, max_pos, 1, real_c, dst,
                        [&](const ConvRows& r, uint32_t npos, int8_t* d) {
                          Isa::Depthwise(w, C, r, npos, bias_blk, mult_blk, rq, d);
                        });
      } else {
        ForEachChunk(b, p, geo, padded, packed + size_t{ob} * ob_stride,
                     RowChunkBlocks(Isa::kChunkBytes, C, p, nob), max_pos, nob, real_c, dst,
                     partial,
                     [&](const uint8_t* tiles, const ConvRows& r, uint32_t npos, int8_t* d) {
                       Isa::Rows(tiles, C, r, npos, nob, bias_blk, mult_blk, rq, d);
                     });
      }
    }
  }
}

}  // namespace loom::kernels::q::fast

#endif  // LOOM_RUNTIME_KERNELS_INT8_FAST_CONV2D_ROWS_BODY_H_
