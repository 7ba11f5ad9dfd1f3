// A convolution fused with the max pooling of its output (issue 16): one program in which each
// tile computes the convolution rows and columns its pooled outputs need into ACC, requantizes
// them there with the fused REQUANT (docs/isa.md §3.4.1), takes the window maxima on the ALU in
// the same ACC tile, and stores only the pooled outputs. The convolution's own output is never
// stored nor read back (no identity copy, no second pass over DRAM).
//
// Integer semantics: exactly the unfused pair, q.conv2d then q.max_pool (conv2d.h, eltwise.h).
// Every ACC value after REQUANT is the int8 the convolution would have stored (REQUANT clips to
// int8), and the maximum of those is what the pool computes. The pool's padding takes no part in
// a window (qops.h MaxPool): the padded ACC cells hold the smallest value REQUANT can produce,
// max(clip_lo, -128), which no maximum can exceed, so every window's result is its real maximum
// (after a ReLU that value is 0: the GEMM reset leaves it, no extra pass).
//
// Tiles are `Conv2dTiling::oh` x `ow` pooled outputs of `oc` output-channel blocks. Neighbouring
// tiles whose windows overlap (3x3/2) both compute the shared convolution row or column (on
// ResNet-18's stem 6-7 % more GEMM work; keeping it would need a row carried between
// double-buffered tiles, docs/tensorize.md "Convolution + max pool").
// Windows that tile the output (kernel == stride, no padding: 2x2/2) are written into ACC by
// window position instead, so that the first position's plane becomes the pooled tile in place.
#ifndef LOOM_COMPILER_TENSORIZE_CONV2D_POOL_H_
#define LOOM_COMPILER_TENSORIZE_CONV2D_POOL_H_

#include <cstdint>

#include "compiler/tensorize/accel_code.h"
#include "compiler/tensorize/conv2d.h"

namespace loom::tensorize {

struct ConvPoolLayer {
  Conv2dLayer conv;     // conv.output is unused: the fused program never writes the conv's output
  Window2d pool;        // the max pool over the conv's output
  uint32_t output = 0;  // arena, OUT elements: [N/batch][O/block_out][out_h][out_w]
  uint32_t out_h() const;
  uint32_t out_w() const;
  Status Check(const HwConfig& config) const;
};

// Whether a fused program exists for the pair: the conv's requantization runs as the fused
// REQUANT (the pool needs int8 values in ACC) with no tiling larger than the parameter buffer,
// and the pool's window and padding are ones the ALU's loops express.
bool CanFuseConvPool(const HwConfig& config, const ConvPoolLayer& layer);

// Whether the tiling (oh, ow: pooled rows and columns per tile) fits the on-chip buffers: input
// and weights as the convolution's, and in ACC per thread the convolution tile with the pool's
// padding beside it plus the pooled tile.
bool ConvPoolTilingFits(const HwConfig& config, const ConvPoolLayer& layer,
                        const Conv2dTiling& tiling);

// Emits the fused layer (ending without FINISH; every token it pushes is popped within it).
Status EmitConvPool(const HwConfig& config, const ConvPoolLayer& layer, const Conv2dTiling& tiling,
                    AccelCode* code);

// Cycles of the fused layer alone on fsim's timing model.
Status TimeConvPool(const HwConfig& config, const ConvPoolLayer& layer, const Conv2dTiling& tiling,
                    uint64_t* cycles);

// The tiling with the fewest cycles, searched as ChooseConv2dTiling does (fitting tilings ranked
// by an estimate from fsim's per-instruction costs, the best few timed). `macs` counts the
// convolution's (the pool's comparisons are not multiply-accumulates).
Status ChooseConvPoolTiling(const HwConfig& config, const ConvPoolLayer& layer, TilingChoice* out);

}  // namespace loom::tensorize

#endif  // LOOM_COMPILER_TENSORIZE_CONV2D_POOL_H_
