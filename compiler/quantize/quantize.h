// The quantizer: rewrites a float graph (after the default pass pipeline) into the quantized graph
// of q.* ops (docs/quantization.md). Per-channel symmetric int8 weights (scale max|w|/127 per
// output channel), per-tensor int8 activations from calibration ranges (symmetric: scale
// range/127, zero point 0; or asymmetric, below), int32 bias round(b / (s_x * s_w[o])) with the
// zero points folded in, integer requantization from requant.h, fused activations as
// clip_lo/clip_hi.
//
// Rewritten (everything else stays a float op, fed by q.dequantize and feeding q.quantize):
//   Conv 2-D (any group, dilations 1, each pad < kernel)                 -> q.conv2d (grouped:
//        groups merged into whole channel blocks of QuantizeOptions::block, zero filters
//        between them; all of them, group 1, where no merge is whole)
//   ConvTranspose 2-D (group 1, dilations 1, pads the zero insertion absorbs)
//        -> q.zero_insert (x's scale; none at stride 1) + stride-1 q.conv2d (flipped weights)
//   Gemm (alpha 1, transA 0, beta 1 or no C, constant B/C), MatMul [N,K]x[K,O] constant B
//        -> q.conv2d on [N,K,1,1]; after a Flatten of [N,C,H,W] a q.conv2d with an HxW kernel
//   Add of two same-shape 4-D activations (relu/clip fused)               -> q.add
//   Mul of 4-D activations, same shape or one [N,C,1,1] (the SE scale), no factor made by a
//        float op (SiLU, Sigmoid gates); a HardSigmoid factor is read through its input;
//        HardSwish                                                        -> q.mul
//   MaxPool 2-D (no dilation/ceil mode, pads < kernel)                    -> q.max_pool
//   AveragePool 2-D (no ceil mode, pads < kernel), GlobalAveragePool      -> q.avg_pool
//   Concat on axis 1 of 4-D activations                                   -> q.concat
//   Resize nearest of a 4-D activation by integer factors on H and W whose taps replicate
//        (asymmetric + floor, the half-pixel family + round; docs/quantization.md) -> q.resize
// 2-D activations [N, K] are carried as [N, K, 1, 1] int8 values.
//
// Requires: a verified graph whose float values have calibration ranges (calibration.h). Values
// that carry a per-tensor symmetric `quant` hint (set by ImportPrequantized for QDQ models) keep
// that scale instead; constants with a per-axis hint keep their per-channel scales.
#ifndef LOOM_COMPILER_QUANTIZE_QUANTIZE_H_
#define LOOM_COMPILER_QUANTIZE_QUANTIZE_H_

#include <ostream>
#include <set>
#include <string>
#include <vector>

#include "compiler/ir/graph.h"
#include "compiler/quantize/calibration.h"
#include "runtime/core/status.h"

namespace loom::quantize {

// One quantized layer, for the report.
struct LayerInfo {
  std::string name;        // the source node's name (or its label)
  std::string source_op;   // Conv, Gemm, Add, ...
  std::string op;          // q.conv2d, ...
  ir::ValueId float_output = ir::kNoValue;  // in the float graph (same ids before rewriting)
  ir::ValueId q_output = ir::kNoValue;      // in the quantized graph
  std::vector<float> input_scales;
  float output_scale = 0.0f;
  bool given_scale = false;  // output scale came from the model (QDQ), not calibration
  float weight_min = 0.0f, weight_max = 0.0f;  // float weights (conv/dense only)
  int64_t pre_shift = 0, post_shift = 0, clip_lo = -128, clip_hi = 127;
  std::vector<int64_t> mults;  // per channel (conv), mult_a/mult_b (add), per input (concat)
  int64_t shift = 0;           // add
  int64_t bias_saturated = 0;  // channels whose int32 bias saturated
};

struct QuantizeResult {
  std::vector<LayerInfo> layers;
  std::vector<std::string> float_ops;  // labels of nodes left in float, for the report
  std::vector<std::string> warnings;
};

// Asymmetric activations (docs/quantization.md, "Zero points"): with `extents`, a value whose
// producer and readers all take a zero point gets the range [max(lo, -R), min(hi, R)] (R the
// calibrated range, lo/hi its extent) on 256 levels, scale (hi - lo) / 255 and zero point
// round(-128 - lo / scale); the rest stay symmetric (zero point 0). Readers that take none: q.add,
// q.concat and a ConvTranspose's zero insertion; graph inputs and the values in `symmetric` (the
// first layer's packed inputs) stay symmetric too. Without `extents` every activation is
// symmetric.
// The accelerator adds q.mul's and q.avg_pool's offsets to whole vectors, so it runs them only
// without padding lanes (docs/tensorize.md): with `block`/`batch` set (the config's), the operands
// and outputs of a Mul, HardSwish or average pool whose channels are not a multiple of `block` (or
// batch not of `batch`) stay symmetric, so the op keeps its place on the accelerator.
struct QuantizeOptions {
  const Extents* extents = nullptr;
  std::set<ir::ValueId> symmetric;
  int64_t block = 0, batch = 0;  // 0: no such constraint (a CPU-only compile)
};

Status QuantizeGraph(ir::Graph& g, const Ranges& ranges, QuantizeResult* result,
                     const QuantizeOptions& options = {});

// Pre-quantized ONNX: run on the imported graph, before the default pipeline.
//   DequantizeLinear(int8 constant, scale, zero point 0)  -> the float constant q * scale, with
//       the scales as a per-axis (or per-tensor) `quant` hint the quantizer keeps
//   QuantizeLinear(x, s, 0) -> DequantizeLinear(., s, 0) with int8 and a scalar s
//       -> x, with `quant` = s on x (the quantizer uses s instead of calibrating x)
// Refused with an error naming the node: asymmetric activation quantization (uint8, or a non-zero
// zero point) and per-axis activation scales. QLinearConv, QLinearMatMul, ConvInteger and
// MatMulInteger are left as they are: CPU ops that run the ONNX integer semantics.
Status ImportPrequantized(ir::Graph& g, std::vector<std::string>* warnings);

// Adds this library's passes (import-qdq and quantize) to the pass registry
// (compiler/passes/pass.h).
void RegisterQuantizePasses();

}  // namespace loom::quantize

#endif  // LOOM_COMPILER_QUANTIZE_QUANTIZE_H_
