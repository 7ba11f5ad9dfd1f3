// fast::Conv2d's AVX-512 VNNI row kernels (rows.h): the table over rows_avx512_body.h.
#include "runtime/kernels/int8/fast/rows.h"
#include "runtime/kernels/int8/fast/rows_avx512_body.h"
#include "runtime/kernels/int8/fast/tile_pack.h"

namespace loom::kernels::q::fast {

#if defined(__x86_64__)

namespace {
constexpr RowKernels VnniTable() {
  RowKernels k{};
  k.in_xor = 0x80;
  k.in_bytes = 1;
  k.max_pos = vnni::kMaxPos;
  k.pair_max_block = 16;
  k.rows = vnni::VnniRows;
  k.depthwise = vnni::VnniDepthwise;
  k.chunk_bytes = vnni::kChunkBytes;
  k.bias_adjust = VnniBiasAdjust;
  k.depthwise_plane = vnni::VnniDepthwisePlane;
  return k;
}
constexpr RowKernels kVnniRows = VnniTable();
}  // namespace

const RowKernels* VnniRowKernels(uint32_t block) {
  return block == 16 || block == 32 ? &kVnniRows : nullptr;
}

#else  // not x86-64

const RowKernels* VnniRowKernels(uint32_t) { return nullptr; }

#endif

}  // namespace loom::kernels::q::fast
