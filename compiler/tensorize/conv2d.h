// Tensorization of an int8 2-D convolution (and, with a 1x1 kernel on a 1x1 image, a dense layer)
// onto the accelerator, with its requantization on the ALU.
//
// Layouts (elements are the accelerator's buffer elements):
//   input   [N/batch][C/block_in][H][W]            INP elements (batch x block_in int8)
//   weights [O/block_out][C/block_in][KH][KW]      WGT elements (block_out x block_in int8)
//   bias    [O/block_out]                          ACC elements (batch x block_out int32)
//   mult    [O/block_out]                          ACC elements
//   output  [N/batch][O/block_out][OH][OW]         OUT elements
// A depthwise layer (one filter per channel, c_blocks == o_blocks) reduces output block g over
// input block g alone. Where the GEMM's depthwise mode applies (UsesDepthwiseWindow) each weight
// element holds a whole filter row of every channel of the block, read against a window of input
// columns (docs/isa.md §3.3.1); elsewhere the blocks are diagonal, one tap each:
//   weights [C/block_in][KH]                       WGT elements (WindowDepthwiseWeights)
//   weights [C/block_in][KH][KW]                   WGT elements (DiagonalDepthwiseWeights)
//
// Integer semantics (the truth every device reproduces), per output element and channel o:
//   acc = sum(x * w) + bias[o]                     (int32, wrapping; x outside the input reads
//                                                   pad_value)
//   v   = shr_rnd(low32(shr_rnd(acc, pre_shift) * mult[o]), post_shift)
//   out = sat8(min(max(v, clip_lo), clip_hi))
#ifndef LOOM_COMPILER_TENSORIZE_CONV2D_H_
#define LOOM_COMPILER_TENSORIZE_CONV2D_H_

#include <cstdint>
#include <string>
#include <vector>

#include "compiler/tensorize/accel_code.h"

namespace loom::tensorize {

struct Conv2dLayer {
  std::string name;
  // Shape, with channels and batch in blocks.
  uint32_t n_blocks = 1, c_blocks = 1, h = 1, w = 1;
  uint32_t o_blocks = 1, kh = 1, kw = 1;
  uint32_t stride_h = 1, stride_w = 1;
  uint32_t pad_top = 0, pad_bottom = 0, pad_left = 0, pad_right = 0;
  // What the input reads outside its bounds: its zero point (the real value 0). Every INP load
  // carries it (docs/isa.md §3.1 pad_value), so the DMA's padding elements hold it in every lane.
  int8_t pad_value = 0;
  bool depthwise = false;
  // Requantization.
  bool has_bias = true;
  int32_t pre_shift = 0, post_shift = 0;
  int32_t clip_lo = -128, clip_hi = 127;
  // DRAM placement, in elements of each tensor's buffer, relative to its region.
  uint32_t input = 0, output = 0;              // arena
  uint32_t weights = 0, bias = 0, mult = 0;    // constants

  uint32_t out_h() const { return (h + pad_top + pad_bottom - kh) / stride_h + 1; }
  uint32_t out_w() const { return (w + pad_left + pad_right - kw) / stride_w + 1; }
  // A one-row filter with a vertical stride and no vertical padding (a 1x1/2 downsample) reads
  // only every stride_h-th input row: its tiles load just those rows, the DMA's row pitch
  // skipping the others, so consecutive output rows are one INP row apart instead of stride_h.
  bool SkipsRows() const { return kh == 1 && stride_h > 1 && pad_top == 0 && pad_bottom == 0; }
  uint32_t in_row_step() const { return SkipsRows() ? 1 : stride_h; }
  // Input rows a tile of `oh` output rows holds in INP (with halo).
  uint32_t in_rows(uint32_t oh) const { return (oh - 1) * in_row_step() + kh; }
  Status Check(const HwConfig& config) const;
};

// Window geometry as the graph states it: kernel, strides, pads (top, left, bottom, right).
struct Window2d {
  uint32_t kh = 1, kw = 1, stride_h = 1, stride_w = 1;
  uint32_t pad_top = 0, pad_left = 0, pad_bottom = 0, pad_right = 0;
};

// Copies a window into any layer struct with the eight window fields (Conv2dLayer, PoolLayer).
template <typename Layer>
void SetWindow(const Window2d& w, Layer* l) {
  l->kh = w.kh;
  l->kw = w.kw;
  l->stride_h = w.stride_h;
  l->stride_w = w.stride_w;
  l->pad_top = w.pad_top;
  l->pad_left = w.pad_left;
  l->pad_bottom = w.pad_bottom;
  l->pad_right = w.pad_right;
}

// The layer's shape from a logical NCHW input, rounded up to the config's blocks; offsets and
// requantization are the caller's. The partitioner checks it (Check) and the lowering emits it.
Conv2dLayer Conv2dGeometry(const HwConfig& config, const std::string& name, uint32_t n, uint32_t c,
                           uint32_t h, uint32_t w, uint32_t out_c, const Window2d& window);

// How the output is cut into tiles, and how many tiles are in flight.
struct Conv2dTiling {
  uint32_t oc = 1;  // output-channel blocks per tile
  uint32_t ic = 1;  // input-channel blocks per reduction step (depthwise: 1, the block's own)
  uint32_t oh = 1;  // output rows per tile
  uint32_t ow = 1;  // output columns per tile
  uint32_t virtual_threads = 2;
  std::string ToString() const;
  bool operator==(const Conv2dTiling& o) const {
    return oc == o.oc && ic == o.ic && oh == o.oh && ow == o.ow &&
           virtual_threads == o.virtual_threads;
  }
};

// Whether the epilogue runs as the fused REQUANT (docs/isa.md §3.4.1): one ALU pass per output
// vector instead of up to six. It needs the tile's output-channel blocks to fit the parameter
// buffer and the clip bounds to be int8; otherwise the ADD, SHR_RND, MUL, SHR_RND, MAX, MIN chain
// runs, with the same results.
bool UsesFusedRequant(const Conv2dLayer& layer, const Conv2dTiling& tiling);

// Whether a tile of `vectors` output vectors per channel block runs its fused REQUANT as the
// epilogue of its last GEMM steps (docs/isa.md §3.4.2) instead of as a pass of its own: the last
// step of each output-channel block becomes a GEMM of its own, armed by `alu.requant ... fuse`,
// which requantizes every sum as the GEMM writes it. That saves the pass's cycle per vector and
// costs two more instructions per block, so it pays from kEpilogueMinVectors (insn_util.h) up.
// Not in window form, whose GEMM updates each output several times.
// ACC elements a convolution program holds past its tiles and its bias and multiplier rows: the
// one the window form's epilogue GEMMs add their warm-up zeros into.
inline constexpr uint32_t kConvScratchAcc = 1;
bool UsesGemmEpilogue(const HwConfig& config, const Conv2dLayer& layer, const Conv2dTiling& tiling,
                      uint32_t vectors);

// Emits the layer's code (ending without FINISH, so layers can be chained; every token it pushes
// is popped within the layer). Fails if the tiling does not fit the buffers. A depthwise layer is
// one program too: its tiles run over channel blocks and rows like a convolution's, each with one
// reduction step that loads the tile's own input blocks and their weights (tiling.ic is 1). In
// window form one `gemm depthwise` per tile does a filter row per iteration (about KH cycles per
// output vector at stride 1); in diagonal form each iteration does one tap on 1/block_in of the
// GEMM core's lanes (KH x KW cycles); docs/tensorize.md.
Status EmitConv2d(const HwConfig& config, const Conv2dLayer& layer, const Conv2dTiling& tiling,
                  AccelCode* code);

// Whether a depthwise layer of kernel kh x kw runs in the GEMM's depthwise mode (window form):
// the mode needs block_in == block_out (even), a filter row must fit the window of
// T = block_in / 2 taps, and the KH zero WGT elements the warm-up reads come from a WGT load's
// right padding (at most 15). Otherwise it runs on diagonal blocks. The one predicate the
// emitter, the weight layout, the tiling search and `loom tune` share.
bool DepthwiseWindowApplies(const HwConfig& config, uint32_t kh, uint32_t kw);
bool UsesDepthwiseWindow(const HwConfig& config,
                         const Conv2dLayer& layer);  // depthwise and applies

// WGT elements a layer's program reads from its `weights` (every block, channel padding included):
// O/c x C/c x KH x KW for a convolution, C/c x KH (window) or C/c x KH x KW (diagonal) depthwise.
uint64_t Conv2dWeightElems(const HwConfig& config, const Conv2dLayer& layer);

// Logical depthwise weights [C][KH][KW] (channels padded to blocks with zeros by the caller or
// not) → the WGT elements EmitConv2d reads: the window form where DepthwiseWindowApplies(kw), else
// the diagonal one.
std::vector<int8_t> DepthwiseWeights(const HwConfig& config, uint32_t channels, uint32_t kh,
                                     uint32_t kw, const int8_t* ckk);
// Window form: WGT elements [C/c][KH][o][i] with [o][(o mod 2)·T + t] = w[o][kh][KW-1-t] for
// t < KW (the tap read t columns before the row's last) and zeros elsewhere.
// Requires DepthwiseWindowApplies(config, kh, kw).
std::vector<int8_t> WindowDepthwiseWeights(const HwConfig& config, uint32_t channels, uint32_t kh,
                                           uint32_t kw, const int8_t* ckk);
// Diagonal form: WGT elements [C/c][KH][KW][o][i] with w on the diagonal o == i.
std::vector<int8_t> DiagonalDepthwiseWeights(const HwConfig& config, uint32_t channels,
                                             uint32_t kh, uint32_t kw, const int8_t* ckk);

// What the tiling search found.
struct TilingChoice {
  Conv2dTiling tiling;
  uint64_t cycles = 0;       // fsim timing model, this layer alone
  uint64_t macs = 0;
  double utilization = 0.0;  // macs / (cycles x peak)
  uint32_t candidates = 0;   // tilings that fit the buffers
  uint32_t timed = 0;        // of those, timed on the fsim model
};

// Whether the tiling's regions fit the on-chip buffers (inputs, weights, accumulators, and a
// micro-op bound); the search enumerates only these. EmitConv2d may still refuse a tiling whose
// remainder tiles need more micro-ops than the bound assumes.
bool Conv2dTilingFits(const HwConfig& config, const Conv2dLayer& layer, const Conv2dTiling& tiling);

// Cycles of the layer alone with the given tiling on fsim's timing model (no data is touched):
// what the built-in search ranks by and `loom tune`'s default measurement.
Status TimeConv2d(const HwConfig& config, const Conv2dLayer& layer, const Conv2dTiling& tiling,
                  uint64_t* cycles);

// Cycles of any accelerator code ending in FINISH (a whole segment) on fsim's timing model, with
// every region placed at address 0.
Status TimeCode(const HwConfig& config, const AccelCode& code, uint64_t* cycles);

// The DRAM traffic no schedule of the layer avoids: input, weights, bias and multipliers read
// once, output written once (blocked, channel padding included). With the model's own MACs it
// gives the layer's roofline bound (runtime/core/roofline.h).
void Conv2dCompulsoryBytes(const HwConfig& config, const Conv2dLayer& layer, uint64_t* read,
                           uint64_t* written);

// Chooses the tiling with the fewest cycles: every tiling that fits is ranked by an analytic
// estimate built from fsim's per-instruction costs, and the best few are timed on fsim's full
// timing model (load/compute/store overlap, tokens, DRAM port).
Status ChooseConv2dTiling(const HwConfig& config, const Conv2dLayer& layer, TilingChoice* out);

}  // namespace loom::tensorize

#endif  // LOOM_COMPILER_TENSORIZE_CONV2D_H_
