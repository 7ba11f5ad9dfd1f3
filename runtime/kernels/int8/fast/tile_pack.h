// How each instruction set's micro-kernels want a c x c weight tile (the stored [c(o)][c(i)] tile
// of qops.h), as plain functions that build on every machine: the tile tables (tiles_*.cc) pack
// with them at run time, and the LLVM code generator packs a convolution's weights with them at
// compile time for whichever target it builds (compiler/codegen/op_calls.cc), so the layouts
// have one definition. Freestanding: no Status, no allocation.
#ifndef LOOM_RUNTIME_KERNELS_INT8_FAST_TILE_PACK_H_
#define LOOM_RUNTIME_KERNELS_INT8_FAST_TILE_PACK_H_

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace loom::kernels::q::fast {

// Bytes of one packed c x c tile per layout below.
inline size_t VnniTileBytes(uint32_t c) { return size_t{c} * c + 4 * size_t{c}; }
inline size_t Avx2TileBytes(uint32_t c) { return 2 * size_t{c} * c; }
inline size_t NeonTileBytes(uint32_t c) { return 2 * size_t{c} * c; }
inline size_t DotTileBytes(uint32_t c) { return size_t{c} * c; }

// AVX-512 VNNI: int8 [i / 4][o][4] (the four weights one vpdpbusd lane takes), then int32
// corr[o] = 128 * sum_i w[o][i], which removes the +128 offset of the unsigned input operand.
inline void PackVnniTile(const int8_t* tile, uint32_t c, uint8_t* packed) {
  for (uint32_t k = 0; k < c / 4; ++k)
    for (uint32_t o = 0; o < c; ++o)
      for (uint32_t j = 0; j < 4; ++j)
        packed[(size_t{k} * c + o) * 4 + j] = static_cast<uint8_t>(tile[size_t{o} * c + 4 * k + j]);
  for (uint32_t o = 0; o < c; ++o) {
    int32_t s = 0;
    for (uint32_t i = 0; i < c; ++i) s += tile[size_t{o} * c + i];
    const int32_t corr = 128 * s;  // |s| <= 256 * 128: fits
    std::memcpy(packed + size_t{c} * c + 4 * size_t{o}, &corr, 4);
  }
}

// What the row kernels add to the bias of output channel o for VNNI tiles (rows_avx512_body.h):
// minus every tile's corr[o], summed over the `ntiles` tiles of one output-channel block (stride
// bytes apart), once when the weights are packed, so the kernels' loops read no correction.
// Wrapping int32 arithmetic, as the accumulators'.
inline void VnniBiasAdjust(const uint8_t* tiles, uint32_t c, size_t ntiles, size_t stride,
                           int32_t* adjust) {
  for (uint32_t o = 0; o < c; ++o) {
    uint32_t sum = 0;
    for (size_t t = 0; t < ntiles; ++t) {
      int32_t corr;
      std::memcpy(&corr, tiles + t * stride + size_t{c} * c + 4 * size_t{o}, 4);
      sum -= static_cast<uint32_t>(corr);
    }
    adjust[o] = static_cast<int32_t>(sum);
  }
}

// AVX2: int16 [i / 2][o][2], the two weights a vpmaddwd lane multiplies with one input pair.
inline void PackAvx2Tile(const int8_t* tile, uint32_t c, uint8_t* packed) {
  for (uint32_t k = 0; k < c / 2; ++k)
    for (uint32_t o = 0; o < c; ++o)
      for (uint32_t j = 0; j < 2; ++j) {
        const int16_t v = tile[size_t{o} * c + 2 * k + j];
        std::memcpy(packed + ((size_t{k} * c + o) * 2 + j) * 2, &v, 2);
      }
}

// NEON smlal: int16 [i][o], one input channel's weights for every output channel.
inline void PackNeonTile(const int8_t* tile, uint32_t c, uint8_t* packed) {
  for (uint32_t i = 0; i < c; ++i)
    for (uint32_t o = 0; o < c; ++o) {
      const int16_t v = tile[size_t{o} * c + i];
      std::memcpy(packed + (size_t{i} * c + o) * 2, &v, 2);
    }
}

// NEON sdot: int8 [i / 4][o][4], the four weights one sdot lane takes.
inline void PackDotTile(const int8_t* tile, uint32_t c, uint8_t* packed) {
  for (uint32_t k = 0; k < c / 4; ++k)
    for (uint32_t o = 0; o < c; ++o)
      for (uint32_t j = 0; j < 4; ++j)
        packed[(size_t{k} * c + o) * 4 + j] = static_cast<uint8_t>(tile[size_t{o} * c + 4 * k + j]);
}

}  // namespace loom::kernels::q::fast

#endif  // LOOM_RUNTIME_KERNELS_INT8_FAST_TILE_PACK_H_
