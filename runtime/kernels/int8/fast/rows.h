// Register-blocked convolution rows behind fast::Conv2d (conv2d_rows.cc), for the paths that have
// them. The tile loop of tiles.h loads and stores a strip's accumulators once per (kernel tap,
// input-channel block); a row kernel instead keeps the accumulators of a few output positions in
// registers for the whole reduction (every input-channel block x every tap) and reads each packed
// weight tile once per group of positions, as GEMM micro-kernels do (IREE's mmt4d, XNNPACK's
// igemm). It reads a padded copy of the input, so every tap of every position is real: a padded
// position holds the pad value (mapped as every x is, rows_body.h PadInput) and adds
// pad_value * w, exactly what the reference's tap outside the input adds (0 when pad_value is 0).
#ifndef LOOM_RUNTIME_KERNELS_INT8_FAST_ROWS_H_
#define LOOM_RUNTIME_KERNELS_INT8_FAST_ROWS_H_

#include <cstddef>
#include <cstdint>

#include "runtime/kernels/int8/fast/fast.h"
#include "runtime/kernels/int8/fast/rows_body.h"

namespace loom::kernels::q::fast {

struct RowKernels {
  // The padded copy stores x ^ in_xor (VNNI multiplies unsigned bytes: 0x80 offsets them).
  uint8_t in_xor = 0;
  // Bytes per element of the padded copy: 1 (int8, as stored), or 2 (each x sign-extended to
  // int16 once, for the AVX2 rows' vpmaddwd and the NEON rows' smlal; in_xor is then 0). ConvRows'
  // steps are in bytes.
  uint8_t in_bytes = 1;
  // Positions one call takes at most.
  uint32_t max_pos = 1;
  // Blocks up to this size may run two output-channel blocks per call (nob 2), sharing every
  // input broadcast; 0: one block per call.
  uint32_t pair_max_block = 0;
  // out[pos][o] = Requantize(bias[o] + sum_{ib, ky, kx, i} in[pos][ib][ky][kx][i] *
  // tile[ib][ky][kx][o][i], mult[o], rq) for pos < npos <= max_pos, the requantization fused into
  // the kernel's epilogue; `packed` are the tiles of one output-channel block, or of `nob` (1 or
  // 2) consecutive ones (ConvRows' ob strides; bias and mult then hold nob x block values).
  void (*rows)(const uint8_t* packed, uint32_t block, const ConvRows& r, uint32_t npos,
               uint32_t nob, const int32_t* bias, const int32_t* mult, const Requant& rq,
               int8_t* out) = nullptr;
  // Depthwise: out[pos][o] = Requantize(bias[o] + sum_{ky, kx} in[pos][ky][kx][o] * w[ky][kx][o],
  // mult[o], rq), `w` the stored [kh][kw][block] weights of the block. Reads the padded copy
  // without the offset (in_xor 0). Null when the path has none.
  void (*depthwise)(const int8_t* w, uint32_t block, const ConvRows& r, uint32_t npos,
                    const int32_t* bias, const int32_t* mult, const Requant& rq,
                    int8_t* out) = nullptr;
  // Bytes of packed weights (block x block int8 and block int32 per tile: what `rows` reads of a
  // tile) one call may read before the reduction is split into chunks of input-channel blocks,
  // so that a chunk's tiles stay in L1 while every output row runs over them (ConvRows' acc_in,
  // acc_out carry the int32 partial sums between chunks). 0: never split; such kernels ignore
  // acc_in and acc_out.
  uint32_t chunk_bytes = 0;
  // What the caller adds to each output channel's bias for the packed tiles of its block
  // (`ntiles`, tile_stride apart; VNNI: minus the +128 offset's corrections), computed once with
  // the packed weights (PackWeights keeps it after them). Null: the kernels take the bias as is.
  void (*bias_adjust)(const uint8_t* tiles, uint32_t block, size_t ntiles, size_t tile_stride,
                      int32_t* adjust) = nullptr;
  // Depthwise over a whole (image, block) plane from the stored input, with no padded copy
  // (rows_body.h UsesDwQuads says when): `in` the block's input plane, `w` its stored
  // [kh][kw][block] weights, bias and mult its block's, `out` its output plane (lanes past real_c
  // zeroed), `scratch` DwQuadScratchBytes. Null: depthwise runs `depthwise` over the padded copy.
  void (*depthwise_plane)(const Conv2dParams& p, uint32_t block, const int8_t* in, const int8_t* w,
                          const int32_t* bias, const int32_t* mult, uint32_t real_c,
                          uint8_t* scratch, int8_t* out) = nullptr;
};

// Whether fast::Conv2d runs `p` (depthwise) by rk's depthwise_plane.
inline bool UsesDepthwisePlane(const RowKernels& rk, const Conv2dParams& p) {
  return UsesDwQuads(rk.depthwise_plane != nullptr, p);
}

// The row kernels' part of fast::Conv2d's workspace (rows_body.h ConvRowsWorkspaceBytes).
inline size_t RowsWorkspaceBytes(const RowKernels& rk, const Blocking& b, const Conv2dParams& p) {
  return ConvRowsWorkspaceBytes(rk.in_bytes, rk.chunk_bytes, rk.pair_max_block,
                                rk.depthwise_plane != nullptr, b, p);
}

// The row kernels of `path` for `block`, or null (fast::Conv2d then runs the tile loop). They
// follow the tile table TilesFor picks, whose packed tiles they read: avx512vnni with block 8
// gets the AVX2 rows (and neondot, on a CPU without sdot, the neon rows).
const RowKernels* RowKernelsFor(KernelPath path, uint32_t block);
// Each instruction set's row kernels for a block, or null (another architecture or block).
const RowKernels* VnniRowKernels(uint32_t block);  // rows_avx512.cc: blocks 16, 32
const RowKernels* Avx2RowKernels(uint32_t block);  // rows_avx2.cc: blocks 8, 16, 32
// rows_neon.cc: blocks % 4 == 0 (the NEON tiles'); sdot on aarch64 only.
const RowKernels* NeonRowKernels(uint32_t block);
const RowKernels* NeonDotRowKernels(uint32_t block);

// The row kernels fast::Conv2d uses for `b` and `p`: null for batch blocks > 1, paths without
// row kernels and depthwise convolutions on a path without depthwise rows.
const RowKernels* RowKernelsForConv(KernelPath path, const Blocking& b, const Conv2dParams& p);

// Input-channel blocks per reduction chunk of a call over `nob` output-channel blocks (every
// block: one chunk, the reduction whole).
uint32_t RowChunkBlocks(const RowKernels& rk, const Blocking& b, const Conv2dParams& p,
                        uint32_t nob);
// Bytes of the int32 partial sums between chunks (0 when no call of `p` is split): every output
// position of one image x the most output-channel blocks a call takes.
size_t RowPartialBytes(const RowKernels& rk, const Blocking& b, const Conv2dParams& p);

// conv2d_rows.cc. Bytes of the padded copy of the input (batch block 1): in.n x input-channel
// blocks planes of (h + pads) x (w + pads) x block elements of rk.in_bytes.
size_t PaddedInputBytes(const RowKernels& rk, const Blocking& b, const Conv2dParams& p);
// The byte the padded copy stores x as, x ^ PadXor: rk's in_xor, 0 for depthwise.
uint8_t PadXor(const RowKernels& rk, const Conv2dParams& p);
// Writes the padded copy of `in` (stored layout) for `rk`: each x as x ^ PadXor, or as int16,
// the border holding p.pad_value stored the same way.
void PadInput(const RowKernels& rk, const Blocking& b, const Conv2dParams& p, const int8_t* in,
              uint8_t* padded);

// One (image, output-channel block) of fast::Conv2d with row kernels: every output row into `out`
// (the block's output plane), with the lanes of channels past `real_c` zeroed.
struct RowsBlock {
  const RowKernels* rk = nullptr;
  const uint8_t* padded = nullptr;     // this image's padded planes
  const uint8_t* tiles = nullptr;      // this output-channel block's packed tiles
  const int8_t* dw_weights = nullptr;  // depthwise: this block's stored [kh][kw][block] weights
  uint32_t ob = 0;                     // the output-channel block (depthwise reads its plane)
  size_t tile_stride = 0;
  uint32_t nob = 1;               // output-channel blocks in this call (1 or 2)
  size_t ob_stride = 0;           // bytes between their packed tile sets
  const int32_t* bias = nullptr;  // [nob][block], zero past real_c
  const int32_t* mult = nullptr;  // [nob][block], zero past real_c
  uint32_t real_c[2] = {0, 0};
  int8_t* out = nullptr;
  int32_t* partial = nullptr;  // RowPartialBytes, where the reduction is split
};
void ConvBlockByRows(const Blocking& b, const Conv2dParams& p, const RowsBlock& blk);

}  // namespace loom::kernels::q::fast

#endif  // LOOM_RUNTIME_KERNELS_INT8_FAST_ROWS_H_
