// Tensorization of q.resize (runtime/kernels/int8/qops.h ResizeNearest): nearest-neighbour
// upsampling by integer factors fh x fw as a copy pattern. Scale in = scale out, so the GEMM
// identity copy alone moves the values into ACC and the STORE's saturating write is exact.
//
// In the blocked layout [N/B][C/c][H][W][B][c], every (batch block, channel block, row) is one
// row of W elements, and input row g (counted over all planes) becomes output rows g·fh ..
// g·fh + fh - 1 of W·fw elements each, contiguous. So a tile of R input rows is one LOAD of R·W
// elements, one GEMM whose fh·fw micro-ops (one per output phase (ry, rx)) walk the rows
// (outer loop) and columns (inner loop) writing each input element to its fh·fw positions, and
// one STORE of the R·fh·W·fw elements that land in ACC already in output order.
//
// q.zero_insert (qops.h ZeroInsert, the input of a ConvTranspose run as a stride-1 convolution) is
// the same pattern with only the micro-op of phase (0, 0): the other phases keep the GEMM reset's
// zero, which is the real zero of a symmetric int8 tensor.
#ifndef LOOM_COMPILER_TENSORIZE_RESIZE_H_
#define LOOM_COMPILER_TENSORIZE_RESIZE_H_

#include <cstdint>
#include <string>

#include "compiler/tensorize/accel_code.h"

namespace loom::tensorize {

struct ResizeLayer {
  std::string name;
  uint32_t n_blocks = 1, c_blocks = 1;  // ceil(N/B), ceil(C/c)
  uint32_t h = 1, w = 1;                // the input's plane
  uint32_t factor_h = 2, factor_w = 2;
  bool zeros = false;     // zero insertion: copy phase (0, 0) only, the others stay 0
  uint32_t data = 0;      // arena, in INP elements
  uint32_t output = 0;    // arena, in OUT elements
  uint32_t identity = 0;  // constants, in WGT elements
  // One input row and its fh·fw output rows fit half of INP and ACC, the micro-ops fit their
  // buffer, loop counts and DMA sizes fit their fields, element addresses fit 32 bits.
  Status Check(const HwConfig& config) const;
};

ResizeLayer ResizeGeometry(const HwConfig& config, const std::string& name, uint32_t n, uint32_t c,
                           uint32_t h, uint32_t w, uint32_t factor_h, uint32_t factor_w);

// `max_rows` caps the input rows per tile (0: the most that fit). Two virtual threads; every
// token it pushes is popped inside the layer.
Status EmitResize(const HwConfig& config, const ResizeLayer& layer, AccelCode* code,
                  uint32_t max_rows = 0);

}  // namespace loom::tensorize

#endif  // LOOM_COMPILER_TENSORIZE_RESIZE_H_
