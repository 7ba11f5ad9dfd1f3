// Tensorization of the accelerator's non-convolution layers, and the glue between layers.
//
// Int8 activations reach the ALU (which works on ACC) through the GEMM core: a GEMM with the
// identity weight block copies an INP element into an ACC element exactly (acc = x · I). The
// identity block is one WGT element in the constants region, written by the package writer
// (`identity` below).
#ifndef LOOM_COMPILER_TENSORIZE_ELTWISE_H_
#define LOOM_COMPILER_TENSORIZE_ELTWISE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "compiler/tensorize/accel_code.h"
#include "compiler/tensorize/conv2d.h"

namespace loom::tensorize {

// Residual add of two blocked int8 tensors of the same shape (runtime/kernels/int8/qops.h Add):
//   out = Saturate8(Clamp(ShrRnd(a * mult_a + b * mult_b, shift), clip_lo, clip_hi))
// Both tensors are contiguous runs of `elems` INP elements; the output the same in OUT elements.
// The multipliers are GEMM weights: each splits into two int8 digits (256 * hi + lo), and the GEMM
// core sums a and b times the high digits, the ALU shifts that left by 8, and the GEMM core adds a
// and b times the low digits; no copy into ACC, no per-operand multiply (docs/tensorize.md).
struct AddLayer {
  std::string name;
  uint32_t elems = 0;
  int32_t mult_a = 1, mult_b = 1, shift = 0;
  int32_t clip_lo = -128, clip_hi = 127;
  uint32_t a = 0, b = 0, output = 0;  // arena, in INP/OUT elements
  uint32_t weights = 0;               // constants, in WGT elements: AddWeights (4 blocks)
  Status Check(const HwConfig& config) const;
};

// The add's digit weight blocks (diagonal, one WGT element each) as the bytes to place in the
// constants at AddLayer::weights.
std::vector<int8_t> AddWeights(const HwConfig& config, const AddLayer& layer);

// Emits the add with two virtual threads over tiles of up to `tile` elements (0: the largest
// that fits). Every token it pushes is popped inside the layer.
Status EmitAdd(const HwConfig& config, const AddLayer& layer, AccelCode* code,
               uint32_t tile = 0);

// Max or average pooling of a blocked int8 tensor (qops.h MaxPool, AvgPool) on the ALU. Each
// tile is whole output rows of one channel block: the input rows it needs are copied into ACC
// through the identity weights, the output starts at zero, and takes the window's first element
// (ADD) and then the MAX of every other position, or the ADD of every position followed by the
// requantization (ADD kh·kw·x_offset, SHR_RND, MUL by the multiplier, SHR_RND, ADD out_offset,
// clip). Every window here divides by the same count, so the multiplier is one value for every
// lane and pixel: the requantization runs as one fused REQUANT pass (isa.md §3.4.1) from RQP
// entry 0 (bias kh·kw·x_offset), unless a shift is negative (REQUANT shifts only right), the
// output has a zero point (REQUANT clips to int8 before any ADD could follow) or the buffers are
// full to the last two ACC elements, where it runs as the chain of immediate ALU passes.
//
// The image border is DMA padding holding `pad_value` in every lane. A max pool pads with -128
// (PoolGeometry), which no real element is below, so padding never wins a window. An average pool
// runs only when every window counts kh·kw elements (no padding, or count_include_pad; the
// partitioner places the others on the CPU) and pads with its input's zero point -x_offset, so
// that a padded position adds the real 0.
struct PoolLayer {
  std::string name;
  bool average = false;
  // Average pooling: the requantization of the window sum (one multiplier: every window counts
  // kh x kw elements). The multiplier must fit the ALU's 16-bit immediate.
  int32_t mult = 1, pre_shift = 0, post_shift = 0, clip_lo = -128, clip_hi = 127;
  // Average pooling: minus the input's zero point and the output's, in [-255, 255] (qops.h
  // AvgPoolParams); the window sum is of x + x_offset.
  int32_t x_offset = 0, out_offset = 0;
  // What padded positions hold (the INP loads' pad_value): for a padded average -x_offset.
  int8_t pad_value = 0;
  // Whether the blocked tensors have lanes past C or batch rows past N (PoolGeometry knows; a
  // layer built by hand is assumed to). Offsets would make them non-zero.
  bool padding_lanes = true;
  uint32_t n_blocks = 1, c_blocks = 1, h = 1, w = 1;
  uint32_t kh = 1, kw = 1, stride_h = 1, stride_w = 1;
  uint32_t pad_top = 0, pad_left = 0, pad_bottom = 0, pad_right = 0;
  uint32_t input = 0, output = 0;  // arena, in INP/OUT elements
  uint32_t identity = 0;           // constants, in WGT elements
  uint32_t out_h() const { return (h + pad_top + pad_bottom - kh) / stride_h + 1; }
  uint32_t out_w() const { return (w + pad_left + pad_right - kw) / stride_w + 1; }
  // Whether an average pool requantizes with REQUANT (EmitPool's choice; max pooling never does):
  // both shifts in [0, 31], no out_offset, and a row still fits beside the two ACC elements it
  // needs.
  bool fused_requant(const HwConfig& config) const;
  // Offsets add to every lane, padding lanes too: they run only on tensors without any. The
  // partitioner keeps the other layers on the CPU (through Check).
  bool offsets_fit() const { return !padding_lanes || (x_offset == 0 && out_offset == 0); }
  bool padded() const { return pad_top || pad_left || pad_bottom || pad_right; }
  Status Check(const HwConfig& config) const;
};
// The layer's shape from a logical NCHW input, padding with -128 (a max pool's; offsets, the pad
// value of an average and its requantization are the caller's: SetAverageOffsets).
PoolLayer PoolGeometry(const HwConfig& config, const std::string& name, uint32_t n,
                             uint32_t c, uint32_t h, uint32_t w, const Window2d& window);
// Makes `layer` an average pool's zero points: the offsets, and the input's zero point as the pad
// value (when that is no int8, a padded layer's Check refuses it).
void SetAverageOffsets(int32_t x_offset, int32_t out_offset, PoolLayer* layer);
// RQP entry 0 as bias `bias` and one multiplier `mult` in every lane, made on chip in the ACC
// elements zero and zero + 1 so that it needs no constants: AppendRqParamUops adds the two
// micro-ops it reads (at index `params` of the layer's table), EmitRqParamEntry0 the instructions.
void AppendRqParamUops(uint32_t zero, std::vector<isa::Uop>* uops);
void EmitRqParamEntry0(uint32_t params, int64_t bias, int32_t mult, AccelCode* code);

// `rows`: output rows per tile (0: the most that fit).
Status EmitPool(const HwConfig& config, const PoolLayer& layer, AccelCode* code,
                   uint32_t rows = 0);

// The identity weight block (block_out x block_in int8, ones on the diagonal) as bytes of one
// WGT element.
std::vector<int8_t> IdentityWeights(const HwConfig& config);

// Orders everything before it against everything after it across the DRAM: the last STORE of
// the previous layer completes before the first LOAD of the next (store→compute, then
// compute→load, with zero-size synchronization instructions; docs/isa.md §1.5).
void EmitLayerBarrier(AccelCode* code);

// A weaker barrier for a next layer that reads no DRAM the previous layer writes: its loads wait
// only for the previous layer's computation (so they overwrite no INP/WGT region it still reads),
// not for its stores, which drain while the loads run; its computation still waits for the
// stores (so it overwrites no OUT region they still read). Layers two apart are ordered as before:
// a layer's computation starts after the stores of the one before it. Four instructions; returns
// the index of the first. Emit the next layer, then call SettleBarrier.
size_t EmitBufferBarrier(AccelCode* code);
// Keeps the buffer barrier at `barrier` when the next layer (the code after it) loads no arena
// byte the previous layer (instructions [prev_begin, barrier)) stores, and otherwise turns it
// into the layer barrier (dropping its fourth instruction: the code after it moves up by one).
// Compares each side's hull of arena bytes. `force_layer` makes it the layer barrier regardless
// (`loom tune`'s barrier knob: the weaker barrier is not always the faster one). Returns whether
// the buffer barrier stayed.
bool SettleBarrier(const HwConfig& config, size_t prev_begin, size_t barrier, AccelCode* code,
                   bool force_layer = false);

}  // namespace loom::tensorize

#endif  // LOOM_COMPILER_TENSORIZE_ELTWISE_H_
