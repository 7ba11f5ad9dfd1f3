// The micro-kernel table behind fast::Conv2d (conv2d_fast.cc): one per instruction set, each in
// its own file. The driver loop walks output strips, kernel taps and input-channel blocks; a
// table only does the innermost work on c x c tiles, so every variant shares the loop (and its
// border handling) and differs only where the instructions do.
//
// Accumulators are int32 [row][c] with row = position * batch + batch row; they wrap on
// overflow exactly like the accelerator's ACC (unsigned arithmetic in C++, plain vector adds in
// SIMD: addition mod 2^32 does not depend on the order of the terms).
#ifndef LOOM_RUNTIME_KERNELS_INT8_FAST_TILES_H_
#define LOOM_RUNTIME_KERNELS_INT8_FAST_TILES_H_

#include <cstddef>
#include <cstdint>

#include "runtime/kernels/int8/fast/fast.h"
#include "runtime/kernels/int8/qops.h"

namespace loom::kernels::q::fast {

// `npos` input positions `pos_step` bytes apart, each holding `batch` rows of `block` int8.
struct RowSet {
  const int8_t* in = nullptr;
  size_t pos_step = 0;
  uint32_t npos = 0;
  uint32_t batch = 1;
  // Input channels of each row the GEMM must read (<= block). Past them, the stored layouts of
  // qops.h hold zeros (activations' padding lanes and the weights' padding are zero), so the
  // products a table skips, or computes anyway up to its vector width, are zero: the 3-channel
  // first layer reads one quad of each 16-channel row, not four.
  uint32_t active = 0;
};

struct TileKernels {
  // Whether the table handles this channel block.
  bool (*supports)(uint32_t block);
  // Bytes of one packed c x c weight tile.
  size_t (*packed_bytes)(uint32_t block);
  // `tile` is the stored [c(o)][c(i)] weight tile of qops.h.
  void (*pack)(const int8_t* tile, uint32_t block, uint8_t* packed);
  // acc[row][o] += sum_i in_row[i] * tile[o][i].
  void (*gemm)(const uint8_t* packed, uint32_t block, const RowSet& rows, int32_t* acc);
  // acc[row][o] += in_row[o] * w[o] (one depthwise tap; w is the stored [c] slice).
  void (*depthwise)(const int8_t* w, uint32_t block, const RowSet& rows, int32_t* acc);
  // out[row][o] = Requantize(acc[row][o], mult[o], rq) for `rows` rows.
  void (*requant)(const int32_t* acc, size_t rows, uint32_t block, const int32_t* mult,
                  const Requant& rq, int8_t* out);
};

// Each returns null when this build has no such table (another architecture).
const TileKernels* PortableTiles();
const TileKernels* Avx2Tiles();
const TileKernels* Avx512VnniTiles();
const TileKernels* NeonTiles();
const TileKernels* NeonDotTiles();

// The table `path` runs for `block`, after the fallbacks of fast.h (never null).
const TileKernels* TilesFor(KernelPath path, uint32_t block);

}  // namespace loom::kernels::q::fast

#endif  // LOOM_RUNTIME_KERNELS_INT8_FAST_TILES_H_
