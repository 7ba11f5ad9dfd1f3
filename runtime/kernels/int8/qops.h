// The int8 kernels of the quantized graph, on the accelerator's blocked layouts. They define the
// integer program that every device reproduces bit for bit (docs/architecture.md §2, contract 5):
// the `cpu` device runs them directly, and the compiler's accelerator lowering must compute exactly
// the same numbers. One kernel per file (conv2d.cc, add.cc, ...) with its test beside it.
//
// Layouts. `c` is the channel block (HwConfig block_in, which must equal block_out) and `B` the
// batch block (HwConfig batch). Padding lanes (channels past C, batch rows past N) are zero.
//   activation  logical [N][C][H][W] int8, stored [ceil(N/B)][ceil(C/c)][H][W][B][c]
//   conv weights logical [O][C][KH][KW] int8, stored [ceil(O/c)][ceil(C/c)][KH][KW][c(o)][c(i)]
//   depthwise weights logical [C][1][KH][KW], stored [ceil(C/c)][KH][KW][c]
//   per-channel int32 (bias, mult) logical [O], stored [ceil(O/c)][B][c] (an ACC element per
//     channel block; the value is repeated for every batch row b)
// A dense layer is a 1x1 convolution on a 1x1 image: activation [N][K][1][1].
//
// Requantization of an int32 accumulator `acc` for output channel o (the accelerator's ALU runs
// these exact steps; docs/isa.md defines SHR_RND, MUL and the saturating OUT write):
//   a   = ShrRnd(acc, pre_shift)
//   a   = WrapMul(a, mult[o])           low 32 bits of the product
//   a   = ShrRnd(a, post_shift)
//   out = Saturate8(Clamp(a, clip_lo, clip_hi))
// The quantizer chooses pre_shift so that the product does not wrap for any accumulator the layer
// can produce; the kernels still wrap exactly as the hardware does.
//
// Every kernel checks its parameters (shapes, shifts in [-31, 31], clip_lo <= clip_hi within
// [-128, 127]) and returns InvalidArgument naming the problem; it never allocates. Inputs and
// outputs must not alias.
#ifndef LOOM_RUNTIME_KERNELS_INT8_QOPS_H_
#define LOOM_RUNTIME_KERNELS_INT8_QOPS_H_

#include <cstddef>
#include <cstdint>

#include "runtime/core/conv_groups.h"
#include "runtime/core/status.h"

namespace loom::kernels::q {

struct Blocking {
  uint32_t batch = 1;  // B
  uint32_t block = 16; // c
};

// Logical (unpadded) activation shape.
struct ActShape {
  uint32_t n = 1, c = 1, h = 1, w = 1;
  bool operator==(const ActShape& o) const {
    return n == o.n && c == o.c && h == o.h && w == o.w;
  }
};

// Sizes of the blocked layouts (runtime/core/blocked_layout.h computes them); SIZE_MAX when the
// size does not fit size_t, which no buffer can hold (the packers refuse it).
// Bytes of a blocked activation.
size_t BlockedBytes(const Blocking& b, const ActShape& s);
// Byte offset of logical element (n, c, h, w) in the blocked activation.
size_t BlockedIndex(const Blocking& b, const ActShape& s, uint32_t n, uint32_t c, uint32_t h,
                    uint32_t w);
// Elements (int32) of a blocked per-channel vector for `channels` channels.
size_t ChannelVectorElems(const Blocking& b, uint32_t channels);

// --- arithmetic, bit-exact to docs/isa.md ---
// SHR_RND: n clamped to [-31, 31]; n > 0 rounds half up without intermediate overflow; n <= 0 is
// SHR (arithmetic right shift, or a wrapping left shift by -n).
// Inline (with Requantize) so the kernel bodies (bodies.h) stay header-only for the bitcode.
inline int32_t ShrRnd(int32_t a, int32_t n) {
  n = n < -31 ? -31 : (n > 31 ? 31 : n);
  if (n > 0) {
    // In 64 bits, so a + 2^(n-1) cannot overflow; the result always fits int32.
    return static_cast<int32_t>((int64_t{a} + (int64_t{1} << (n - 1))) >> n);
  }
  if (n == 0) return a;
  // Wrapping left shift, done unsigned to stay defined.
  return static_cast<int32_t>(static_cast<uint32_t>(a) << -n);
}
// MUL: the low 32 bits of the signed 64-bit product.
inline int32_t WrapMul(int32_t a, int32_t b) {
  return static_cast<int32_t>(static_cast<uint32_t>(static_cast<uint64_t>(int64_t{a} * b)));
}
inline int8_t Saturate8(int32_t v) {
  return static_cast<int8_t>(v < -128 ? -128 : (v > 127 ? 127 : v));
}

struct Requant {
  int32_t pre_shift = 0;
  int32_t post_shift = 0;
  int32_t clip_lo = -128;
  int32_t clip_hi = 127;
};
// The four steps above for one accumulator. `offset` (Mul and AvgPool: the output's zero point) is
// added, wrapping as the ALU's ADD does, after the last shift and before the clamp; a
// convolution's output zero point is in its bias instead, so its offset is always 0.
inline int8_t Requantize(int32_t acc, int32_t mult, const Requant& rq, int32_t offset = 0) {
  int32_t a = ShrRnd(acc, rq.pre_shift);
  a = WrapMul(a, mult);
  a = ShrRnd(a, rq.post_shift);
  a = static_cast<int32_t>(static_cast<uint32_t>(a) + static_cast<uint32_t>(offset));
  a = a < rq.clip_lo ? rq.clip_lo : (a > rq.clip_hi ? rq.clip_hi : a);
  return Saturate8(a);
}

// --- layout transforms (the runtime's input/output boundary, and CPU partition borders) ---
// plain: row-major logical [N][C][H][W].
Status PackActivation(const Blocking& b, const ActShape& s, const int8_t* plain, int8_t* blocked);
Status UnpackActivation(const Blocking& b, const ActShape& s, const int8_t* blocked, int8_t* plain);

// Constants, from their logical row-major form to the stored layouts above (the compiler packs
// them once; zero padding included). `out` must hold the stored size.
size_t ConvWeightBytes(const Blocking& b, uint32_t o, uint32_t c, uint32_t kh, uint32_t kw);
Status PackConvWeights(const Blocking& b, uint32_t o, uint32_t c, uint32_t kh, uint32_t kw,
                       const int8_t* oihw, int8_t* out);
size_t DepthwiseWeightBytes(const Blocking& b, uint32_t c, uint32_t kh, uint32_t kw);
Status PackDepthwiseWeights(const Blocking& b, uint32_t c, uint32_t kh, uint32_t kw,
                            const int8_t* c1hw, int8_t* out);
Status PackChannelVector(const Blocking& b, uint32_t channels, const int32_t* values, int32_t* out);

// Float <-> int8 at the graph boundary, with the tensor's zero point z in [-128, 127]:
// q = Saturate8(round_half_even(x / scale) + z), x = (q - z) * scale.
// Both on plain row-major tensors of `count` elements.
Status QuantizeF32(const float* x, size_t count, float scale, int32_t zero_point, int8_t* q);
Status DequantizeF32(const int8_t* q, size_t count, float scale, int32_t zero_point, float* x);

// --- operators (conv2d.cc, add.cc, mul.cc, resize.cc, zero_insert.cc, max_pool.cc, avg_pool.cc,
// concat.cc) ---

// out[n][o][y][x] = Requantize(bias[o] + sum_{i,ky,kx} in[n][i][y*sh+ky-pt][x*sw+kx-pl] *
//                   w[o][i][ky][kx], mult[o]); positions outside the input read pad_value.
// groups == 1, grouped, or depthwise (out_c == in.c, each channel convolved with its own filter;
// groups stays 1). Grouped (groups > 1): each group has gc = GroupChannels() input and
// go = gc * out_c / in.c output channels; output channel o reads input channels g * gc + i of
// its group g = o / go, i < gc, and the weights are the stored BlockedWeights of logical
// [out_c][gc][KH][KW]. The last group may be short, in and out (channels past in.c read 0, or
// pad_value where the position is padding, as padding lanes do; (groups - 1) * gc < in.c and
// (groups - 1) * go < out_c): the quantizer's merged groups of whole channel blocks.
// With asymmetric activations (real = s * (q - z)) pad_value is the input's zero point z, the real
// 0, and the quantizer has folded -z * sum(w[o]) and the output's zero point into bias[o].
struct Conv2dParams {
  ActShape in;
  uint32_t out_c = 1;
  uint32_t kh = 1, kw = 1;
  uint32_t stride_h = 1, stride_w = 1;
  uint32_t pad_top = 0, pad_left = 0, pad_bottom = 0, pad_right = 0;
  bool depthwise = false;
  uint32_t groups = 1;
  uint32_t group_c =
      0;  // input channels per group (the weights' second dimension); 0: in.c / groups
  int32_t pad_value = 0;  // in [-128, 127]
  Requant rq;

  uint32_t out_h() const { return (in.h + pad_top + pad_bottom - kh) / stride_h + 1; }
  uint32_t out_w() const { return (in.w + pad_left + pad_right - kw) / stride_w + 1; }
  ActShape out() const { return {in.n, out_c, out_h(), out_w()}; }
  uint32_t GroupChannels() const { return group_c != 0 ? group_c : in.c / groups; }
  // Output channels per group; 0 where gc * out_c is not a multiple of in.c (refused).
  uint32_t GroupOutChannels() const {
    return static_cast<uint32_t>(loom::GroupOutChannels(in.c, out_c, GroupChannels()));
  }
  // Whether the groups cover the channels (runtime/core/conv_groups.h, the rule the package
  // loader and the partitioner apply too).
  bool GroupsCover() const { return loom::GroupsCover(groups, in.c, out_c, GroupChannels()); }
};
// bias may be null (no bias); mult is required.
Status Conv2d(const Blocking& b, const Conv2dParams& p, const int8_t* in, const int8_t* weights,
              const int32_t* bias, const int32_t* mult, int8_t* out);

// Elementwise sum of two tensors of the same shape with different scales:
//   out = Saturate8(Clamp(ShrRnd(a * mult_a + b * mult_b, shift), clip_lo, clip_hi))
// mult_a and mult_b are in [-32768, 32767] (the ALU's 16-bit immediate); the sum is int32 and
// cannot overflow at those bounds.
struct AddParams {
  ActShape shape;
  int32_t mult_a = 1, mult_b = 1;
  int32_t shift = 0;
  int32_t clip_lo = -128, clip_hi = 127;
};
Status Add(const Blocking& b, const AddParams& p, const int8_t* a, const int8_t* bb, int8_t* out);

// Elementwise product, the squeeze-excitation scale and the hard activations:
//   t   = Clamp(b * b_mult + b_offset, b_lo, b_hi)
//   out = Requantize((a + a_offset) * t, mult, rq, out_offset)
// a_offset is minus a's zero point and out_offset the output's (b's folds into b_offset).
// b has a's shape, or [N, C, 1, 1] when b_per_channel (one value per channel, broadcast over H
// and W). With b_mult 1, b_offset 0 and [b_lo, b_hi] = [-128, 127] it is a plain product; with
// the clamp [0, U] and b_mult / U ~ alpha * s_b, b_offset / U ~ beta it is a * hard_sigmoid(b)
// in units of 1/U (a = b = x: hard-swish). mult, b_mult, b_offset, b_lo and b_hi are in
// [-32768, 32767] (the ALU's immediate) and a_offset, out_offset in [-255, 255], so
// |(a + a_offset) * t| < 2^24.
struct MulParams {
  ActShape shape;  // a and the output
  bool b_per_channel = false;
  int32_t b_mult = 1, b_offset = 0, b_lo = -128, b_hi = 127;
  int32_t mult = 1;
  int32_t a_offset = 0, out_offset = 0;
  Requant rq;
};
Status Mul(const Blocking& b, const MulParams& p, const int8_t* a, const int8_t* bb, int8_t* out);

// Nearest-neighbour upsampling by integer factors: out[n][c][y][x] = in[n][c][y / fh][x / fw]
// for the output [N, C, H * fh, W * fw]. Same scale in and out, so no arithmetic: every ONNX
// Resize whose nearest taps are exactly these (the quantizer checks the modes) becomes this.
struct ResizeParams {
  ActShape shape;  // the input
  uint32_t factor_h = 2, factor_w = 2;
};
Status ResizeNearest(const Blocking& b, const ResizeParams& p, const int8_t* x, int8_t* out);

// Zero insertion, the input of a ConvTranspose run as a stride-1 convolution:
// out[n][c][y][x] = in[n][c][y / sh][x / sw] where y % sh == 0 and x % sw == 0, else 0, for the
// output [N, C, H * sh, W * sw] (each input pixel followed by sw - 1 zero columns and sh - 1 zero
// rows). Same scale in and out; int8 is symmetric, so 0 is the real zero.
struct ZeroInsertParams {
  ActShape shape;  // the input
  uint32_t stride_h = 2, stride_w = 2;
};
Status ZeroInsert(const Blocking& b, const ZeroInsertParams& p, const int8_t* x, int8_t* out);

// Max over each window; padded positions do not take part (a window always holds at least one
// real element). Same scale in and out.
struct PoolParams {
  ActShape in;
  uint32_t kh = 1, kw = 1;
  uint32_t stride_h = 1, stride_w = 1;
  uint32_t pad_top = 0, pad_left = 0, pad_bottom = 0, pad_right = 0;
  uint32_t out_h() const { return (in.h + pad_top + pad_bottom - kh) / stride_h + 1; }
  uint32_t out_w() const { return (in.w + pad_left + pad_right - kw) / stride_w + 1; }
  ActShape out() const { return {in.n, in.c, out_h(), out_w()}; }
};
Status MaxPool(const Blocking& b, const PoolParams& p, const int8_t* in, int8_t* out);

// Average pooling (GlobalAveragePool is kh = H, kw = W). With `count` the number of window
// elements taken into account (all of them if count_include_pad, else the real ones) and `sum`
// the wrapping int32 sum of (x + x_offset) over the window's real elements:
//   out = Requantize(sum, mult_by_count[count - 1], rq, out_offset)
// i.e. the sum is requantized with a multiplier chosen per divisor; mult_by_count has kh*kw
// entries (only the ones that occur need to be meaningful). x_offset is minus the input's zero
// point (padding is the real 0 and adds nothing) and out_offset the output's, both in [-255, 255].
struct AvgPoolParams {
  PoolParams pool;
  bool count_include_pad = false;
  int32_t x_offset = 0, out_offset = 0;
  Requant rq;
};
Status AvgPool(const Blocking& b, const AvgPoolParams& p, const int32_t* mult_by_count,
               const int8_t* in, int8_t* out);

// Concatenation along channels of k inputs (same N, H, W); input i is rescaled to the output
// scale: v = Saturate8(ShrRnd(x * mult[i], shift[i])). mult 1, shift 0 copies.
struct ConcatInput {
  ActShape shape;
  const int8_t* data = nullptr;
  int32_t mult = 1;
  int32_t shift = 0;
};
Status Concat(const Blocking& b, const ConcatInput* inputs, size_t count, int8_t* out);

}  // namespace loom::kernels::q

#endif  // LOOM_RUNTIME_KERNELS_INT8_QOPS_H_
