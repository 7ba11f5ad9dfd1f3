// Tensorization of q.mul (runtime/kernels/int8/qops.h Mul): the squeeze-excitation scale,
// hard-sigmoid gates and hard-swish on the ALU.
//
// Both operands reach ACC through the identity GEMM copy (eltwise.h); when they are one tensor
// (hard-swish) it is loaded once and b's plane is a copy of a's made by the ALU (reset, then ADD
// in register form). The affine clamp of b (MUL, ADD, MAX, MIN with immediates) runs on b's plane,
// then a's zero point comes off a's plane (ADD a_offset, after b's copy of a for hard-swish: b's
// zero point is in b_offset), MUL in register form multiplies a's plane by b's — for a per-channel
// b the source factor over a channel block's pixels is 0, so one ACC element per channel block
// scales all its pixels — and the requantization (SHR_RND, MUL by the 16-bit immediate, SHR_RND,
// ADD out_offset, MAX/MIN) finishes in place.
#ifndef LOOM_COMPILER_TENSORIZE_MUL_H_
#define LOOM_COMPILER_TENSORIZE_MUL_H_

#include <cstdint>
#include <string>

#include "compiler/tensorize/accel_code.h"

namespace loom::tensorize {

struct MulLayer {
  std::string name;
  // a and the output: `planes` = ceil(N/B)·ceil(C/c) runs of `plane_elems` = H·W INP/OUT
  // elements each. b: the same, or one element per plane when b_per_channel.
  uint32_t planes = 1, plane_elems = 1;
  bool b_per_channel = false;
  bool same_operand = false;  // b is a (same address and shape): one load
  int32_t b_mult = 1, b_offset = 0, b_lo = -128, b_hi = 127;  // t = clamp(b·b_mult + b_offset, ..)
  int32_t mult = 1, pre_shift = 0, post_shift = 0, clip_lo = -128, clip_hi = 127;
  // Minus a's zero point and the output's zero point, in [-255, 255] (qops.h MulParams).
  int32_t a_offset = 0, out_offset = 0;
  // Whether the blocked tensors have lanes past C or batch rows past N (MulGeometry knows; a
  // layer built by hand is assumed to). Those lanes must come out 0, as the CPU kernel writes them.
  bool padding_lanes = true;
  uint32_t a = 0, b = 0, output = 0;  // arena, in INP/OUT elements
  uint32_t identity = 0;              // constants, in WGT elements
  // Offsets add to every lane, padding lanes too: they run only on tensors without any. The
  // partitioner keeps the other layers on the CPU (through Check).
  bool offsets_fit() const { return !padding_lanes || (a_offset == 0 && out_offset == 0); }
  // With padding lanes also requires clip_lo <= 0 <= clip_hi (a = 0 there must come out 0).
  // Whether the requantization runs as one REQUANT pass (isa.md §3.4.1) from RQP entry 0 (bias 0,
  // the multiplier): both shifts in [0, 31] and no output zero point, which REQUANT has no step
  // for between its last shift and its clip.
  bool fused_requant() const;
  Status Check(const HwConfig& config) const;
};

// The layer's shape from a logical NCHW a (offsets and parameters are the caller's).
MulLayer MulGeometry(const HwConfig& config, const std::string& name, uint32_t n, uint32_t c,
                     uint32_t h, uint32_t w, bool b_per_channel);

// Emits the product with two virtual threads; `max_tile` caps the elements of a per tile (0: the
// most that fit). Every token it pushes is popped inside the layer.
Status EmitMul(const HwConfig& config, const MulLayer& layer, AccelCode* code,
               uint32_t max_tile = 0);

}  // namespace loom::tensorize

#endif  // LOOM_COMPILER_TENSORIZE_MUL_H_
