// fast::Conv2d's AVX-512 VNNI row kernels (rows.h): the table over rows_avx512_body.h.
#include "runtime/kernels/int8/fast/rows.h"
#include "runtime/kernels/int8/fast/rows_avx512_body.h"
#include "runtime/kernels/int8/fast/tile_pack.h"

namespace loom::kernels::q::fast {

#if defined(__x86_64__)

namespace {
constexpr RowKernels kVnniRows = {
    0x80,          1, vnni::kMaxPos, 16, vnni::VnniRows, vnni::VnniDepthwise, vnni::kChunkBytes,
    VnniBiasAdjust};
}  // namespace

const RowKernels* VnniRowKernels(uint32_t block) {
  return block == 16 || block == 32 ? &kVnniRows : nullptr;
}

#else  // not x86-64

const RowKernels* VnniRowKernels(uint32_t) { return nullptr; }

#endif

}  // namespace loom::kernels::q::fast
