// Empirical bias correction (Nagel et al., "Data-Free Quantization Through Weight Equalization and
// Bias Correction", ICCV 2019, section 4.2): int8 rounding of weights and activations can shift
// the mean of a convolution's output, and the shift compounds layer after layer. For every
// q.conv2d (Conv, Gemm, MatMul, ConvTranspose), in graph order, the calibration samples run
// through the float graph and through the quantized graph as corrected so far (node by node, all
// samples at once); per output channel o and sample, before the fused activation,
//   e = mean(float output - dequantized int8 output)   over the positions the int8 one does not
//                                                       saturate
// and the int32 bias gains round(delta[o] / (s_y * mult[o] / 2^(pre+post))), the accumulator
// scale the requantization really applies, where delta[o] is the mean of e over samples shrunk
// towards 0 by the share sampling noise could explain (bias_correction.cc, ShrunkMean).
// Correcting in order lets each layer absorb the error its inputs already carry. Only constants
// change, so every device stays bit-identical. docs/quantization.md has the measurements.
//
// Requires: `float_graph` the graph QuantizeGraph rewrote (same value ids) and `result` its
// QuantizeResult; every sample holds the graph's inputs, each of its declared dtype and shape
// (InvalidArgument naming the sample and input otherwise). A layer whose float output is not a
// value of `float_graph` (a dense layer over rows, whose 1x1 convolution the quantizer made) is
// left as it is. A channel's new bias keeps
// A = sum|w_q[o]| * 128 + |bias[o]| where the layer's pre_shift and multipliers still satisfy
// requant.h's guarantee, (ceil(A / 2^pre) + 1) * mult < 2^31 (and A < 2^31), so the
// requantization never wraps; a correction beyond that is clamped (and counted).
#ifndef LOOM_COMPILER_QUANTIZE_BIAS_CORRECTION_H_
#define LOOM_COMPILER_QUANTIZE_BIAS_CORRECTION_H_

#include <cstdint>
#include <functional>
#include <ostream>
#include <vector>

#include "compiler/ir/graph.h"
#include "compiler/quantize/calibration.h"
#include "compiler/quantize/quantize.h"
#include "runtime/core/status.h"

namespace loom::quantize {

struct BiasCorrectionOptions {
  std::ostream* progress = nullptr;  // "bias correction: 20/52 layers" lines, or nothing
  // Called after every corrected layer with (done, total), for progress bars.
  std::function<void(size_t, size_t)> on_layer;
};

struct BiasCorrectionStats {
  int64_t layers = 0;           // q.conv2d layers corrected
  int64_t skipped = 0;          // q.conv2d layers with no float counterpart of the same shape
  int64_t channels = 0;         // their channels (with a non-zero multiplier)
  int64_t clamped = 0;          // channels whose correction the accumulator bound limited
  double mean_abs_shift = 0.0;  // mean |delta| over corrected channels, in output units
};

Status CorrectBiases(const ir::Graph& float_graph, ir::Graph& q_graph,
                     const std::vector<Sample>& samples, const BiasCorrectionOptions& options,
                     const QuantizeResult& result, BiasCorrectionStats* stats);

}  // namespace loom::quantize

#endif  // LOOM_COMPILER_QUANTIZE_BIAS_CORRECTION_H_
