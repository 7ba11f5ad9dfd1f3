// The fast kernels' padding lanes: one position's B x c lanes of a block with real_b real batch
// rows and real_c real channels, the rest written 0, as the reference kernels write them.
#ifndef LOOM_RUNTIME_KERNELS_INT8_FAST_PADDING_LANES_H_
#define LOOM_RUNTIME_KERNELS_INT8_FAST_PADDING_LANES_H_

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace loom::kernels::q::fast {

// Zeroes the padding lanes of `positions` consecutive positions starting at `out`.
inline void ZeroPaddingLanes(int8_t* out, size_t positions, uint32_t B, uint32_t C, uint32_t real_b,
                             uint32_t real_c) {
  if (real_b == B && real_c == C) return;
  for (size_t pos = 0; pos < positions; ++pos, out += size_t{B} * C) {
    for (uint32_t bi = 0; bi < B; ++bi) {
      if (bi >= real_b) {
        std::memset(out + size_t{bi} * C, 0, C);
      } else {
        std::memset(out + size_t{bi} * C + real_c, 0, C - real_c);
      }
    }
  }
}

}  // namespace loom::kernels::q::fast

#endif  // LOOM_RUNTIME_KERNELS_INT8_FAST_PADDING_LANES_H_
