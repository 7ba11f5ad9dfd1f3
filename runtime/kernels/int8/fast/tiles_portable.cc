// Plain C++ micro-kernels: any block size and any CPU. Also the fallback of every SIMD table for
// blocks it does not take. The weight tile is used as stored ([o][i]), so packing is a copy.
#include <cstring>

#include "runtime/kernels/int8/fast/tiles.h"

namespace loom::kernels::q::fast {
namespace {

bool Supports(uint32_t) { return true; }
size_t PackedBytes(uint32_t c) { return size_t{c} * c; }
void Pack(const int8_t* tile, uint32_t c, uint8_t* packed) {
  std::memcpy(packed, tile, size_t{c} * c);
}

inline void AddWrap(int32_t* acc, int32_t v) {
  *acc = static_cast<int32_t>(static_cast<uint32_t>(*acc) + static_cast<uint32_t>(v));
}

void Gemm(const uint8_t* packed, uint32_t c, const RowSet& rows, int32_t* acc) {
  const auto* w = reinterpret_cast<const int8_t*>(packed);
  for (uint32_t pos = 0; pos < rows.npos; ++pos) {
    const int8_t* in = rows.in + pos * rows.pos_step;
    for (uint32_t bi = 0; bi < rows.batch; ++bi, in += c, acc += c) {
      for (uint32_t o = 0; o < c; ++o) {
        const int8_t* wr = w + size_t{o} * c;
        int32_t sum = 0;  // at most 256 products of |x| <= 2^14: no overflow
        for (uint32_t i = 0; i < rows.active; ++i) sum += int32_t{in[i]} * wr[i];
        AddWrap(acc + o, sum);
      }
    }
  }
}

void Depthwise(const int8_t* w, uint32_t c, const RowSet& rows, int32_t* acc) {
  for (uint32_t pos = 0; pos < rows.npos; ++pos) {
    const int8_t* in = rows.in + pos * rows.pos_step;
    for (uint32_t bi = 0; bi < rows.batch; ++bi, in += c, acc += c)
      for (uint32_t o = 0; o < c; ++o) AddWrap(acc + o, int32_t{in[o]} * w[o]);
  }
}

void Requantize(const int32_t* acc, size_t rows, uint32_t c, const int32_t* mult, const Requant& rq,
                int8_t* out) {
  for (size_t r = 0; r < rows; ++r)
    for (uint32_t o = 0; o < c; ++o) out[r * c + o] = q::Requantize(acc[r * c + o], mult[o], rq);
}

constexpr TileKernels kTiles = {Supports, PackedBytes, Pack, Gemm, Depthwise, Requantize};

}  // namespace

const TileKernels* PortableTiles() { return &kTiles; }

}  // namespace loom::kernels::q::fast
