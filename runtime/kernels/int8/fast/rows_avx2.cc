// fast::Conv2d's AVX2 row kernels (rows.h): the table over rows_avx2_body.h.
#include "runtime/kernels/int8/fast/rows.h"
#include "runtime/kernels/int8/fast/rows_avx2_body.h"

namespace loom::kernels::q::fast {

#if defined(__x86_64__)

namespace {
// One output-channel block per call (pair_max_block 0): two blocks' accumulators would not fit.
template <uint32_t kC>
constexpr RowKernels Avx2Table() {
  RowKernels k{};
  k.in_bytes = 2;
  k.max_pos = avx2::kMaxPos<kC>;
  k.rows = avx2::Avx2Rows<kC>;
  k.depthwise = avx2::Avx2Depthwise<kC>;
  return k;
}
template <uint32_t kC>
constexpr RowKernels kAvx2Rows = Avx2Table<kC>();
}  // namespace

const RowKernels* Avx2RowKernels(uint32_t block) {
  switch (block) {
    case 8:
      return &kAvx2Rows<8>;
    case 16:
      return &kAvx2Rows<16>;
    case 32:
      return &kAvx2Rows<32>;
    default:
      return nullptr;
  }
}

#else  // not x86-64

const RowKernels* Avx2RowKernels(uint32_t) { return nullptr; }

#endif

}  // namespace loom::kernels::q::fast
