// ConvTranspose as a stride-1 convolution over its zero-inserted input: the geometry the quantizer
// rewrites with (q.zero_insert + q.conv2d) and the partitioner names when a ConvTranspose stays
// float. Per spatial axis, with input I, stride s, kernel K, pads pb/pe, output_padding op:
//
//   ConvTranspose:  y[o] = sum_{i, k: s*i + k = o + pb} x[i] * w[k],  O = s*(I-1) + op + K - pb -
//   pe zero insertion: z[s*i] = x[i], 0 elsewhere, length s*I (s - 1 zeros after the last x)
//   convolution:    y[o] = sum_k' zpad[o + k'] * w[K-1-k'], pads K-1-pb (begin) and
//                   K-1-pe+op-(s-1) (end), stride 1
//
// (z[o + k' - (K-1-pb)] is x[i] exactly when s*i = o + pb - (K-1-k'), i.e. the tap k = K-1-k'.)
// The weights swap their channel axes ([C, M, K, K] -> [M, C, K, K]) and flip both spatial axes.
// A pad that comes out negative (pb > K-1, or pe > K-1+op-(s-1)) would need a crop; such a layer,
// like groups > 1, dilations > 1 and 1-D/3-D ones, stays a float op.
#ifndef LOOM_COMPILER_PASSES_CONV_TRANSPOSE_AS_CONV_H_
#define LOOM_COMPILER_PASSES_CONV_TRANSPOSE_AS_CONV_H_

#include <cstdint>
#include <string>
#include <vector>

#include "compiler/ir/graph.h"

namespace loom::passes {

struct ZeroInsertConv {
  int64_t stride_h = 1, stride_w = 1;  // zero insertion: H x W -> H*stride_h x W*stride_w
  std::vector<int64_t> pads;           // the convolution's [top, left, bottom, right]
  int64_t o = 0, c = 0, kh = 0, kw = 0;
  std::vector<float> weights;  // [o, c, kh, kw]: w'[m][c][ky][kx] = w[c][m][kh-1-ky][kw-1-kx]
};

// Empty when ConvTranspose `n` (float weights, constant, and a constant bias if any) runs as
// zero insertion + convolution, and then fills *out (when not null); otherwise why it does not.
std::string ConvTransposeAsConv(const ir::Graph& g, const ir::Node& n, ZeroInsertConv* out);

}  // namespace loom::passes

#endif  // LOOM_COMPILER_PASSES_CONV_TRANSPOSE_AS_CONV_H_
