// Tensorization of q.concat (runtime/kernels/int8/qops.h Concat): channel concatenation as
// copies of whole channel blocks, each through the identity GEMM copy and, when the input's scale
// differs from the output's, the ALU rescale (MUL by the 16-bit immediate, SHR_RND).
//
// In the blocked layout [N/B][C/c][H][W][B][c], input i's channel blocks for one batch block are
// one contiguous run of C_i/c · H · W elements, and land contiguously in the output at channel
// block offset sum_{j<i} C_j/c. That holds when every input but the last has a channel count
// that is a multiple of c (the partitioner's condition); otherwise lanes would move inside a
// block, which no DMA does.
#ifndef LOOM_COMPILER_TENSORIZE_CONCAT_H_
#define LOOM_COMPILER_TENSORIZE_CONCAT_H_

#include <cstdint>
#include <string>
#include <vector>

#include "compiler/tensorize/accel_code.h"

namespace loom::tensorize {

struct ConcatLayer {
  struct Input {
    uint32_t channels = 1;        // logical C_i
    int32_t mult = 1, shift = 0;  // v = sat8(ShrRnd(x · mult, shift))
    uint32_t data = 0;            // arena, in INP elements
  };
  std::string name;
  uint32_t n_blocks = 1, plane_elems = 1;  // ceil(N/B), H·W
  std::vector<Input> inputs;
  uint32_t output = 0;    // arena, in OUT elements
  uint32_t identity = 0;  // constants, in WGT elements
  // Block-aligned channel counts (all inputs but the last), multipliers within the 16-bit
  // immediate, shifts in [-31, 31], sizes within the 32-bit element addresses.
  Status Check(const HwConfig& config) const;
};

// `max_tile` caps the elements per tile (0: the most that fit). Two virtual threads; every token
// it pushes is popped inside the layer.
Status EmitConcat(const HwConfig& config, const ConcatLayer& layer, AccelCode* code,
                  uint32_t max_tile = 0);

}  // namespace loom::tensorize

#endif  // LOOM_COMPILER_TENSORIZE_CONCAT_H_
