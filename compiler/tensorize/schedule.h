// The schedule hook: what names a convolution layer for tuning (its signature) and the table of
// tuned tilings the lowering takes instead of its built-in search (ChooseConv2dTiling). `loom tune`
// (compiler/tune) fills the table from a tuning log; docs/tune.md.
#ifndef LOOM_COMPILER_TENSORIZE_SCHEDULE_H_
#define LOOM_COMPILER_TENSORIZE_SCHEDULE_H_

#include <map>
#include <set>
#include <string>

#include "compiler/tensorize/conv2d.h"

namespace loom::tensorize {

// Everything the layer's instruction stream and its time depend on, and nothing else (not its
// name, DRAM offsets or requantization values): op, blocked shape, window, dtypes and the fused
// epilogue's ALU passes. Two layers with one signature take one schedule. Blocked shapes depend
// on the config, so a signature is meaningful only beside a config hash.
// Example: "conv2d n1 c4 h56 w56 o4 k3x3 s1x1 p1,1,1,1 i8>i8 epi=bias,mul,shr,max". A depthwise
// layer in the GEMM's depthwise mode (`window`, UsesDepthwiseWindow) is "depthwise_conv2d_window":
// its program differs from the diagonal form's, so logs tuned for that form do not apply to it.
std::string Conv2dSignature(const Conv2dLayer& layer, bool depthwise, bool window = false);

// Tuned tilings by layer signature, all for one config. A depthwise layer's tiling has ic=1 (a
// tiling logged when it was that of one channel block still applies). The model-level knobs are
// by layer name (the graph node's), since they depend on the layer's neighbours: each can only
// choose between correct programs, so a name that matches another model's layer costs no
// correctness.
struct ScheduleTable {
  std::map<std::string, Conv2dTiling> conv2d;
  // Convolutions first-layer packing leaves as they are (passes::PackFirstLayers), and those it
  // packs with the row fold too (`--first-layer-fold` for these layers only).
  std::set<std::string> unpacked;
  std::set<std::string> folded;
  // Layers whose barrier before them is the layer barrier even where the weaker buffer barrier
  // would do (EmitLayerBarrier instead of SettleBarrier's choice).
  std::set<std::string> layer_barriers;

  const Conv2dTiling* Find(const std::string& signature) const {
    auto it = conv2d.find(signature);
    return it == conv2d.end() ? nullptr : &it->second;
  }
};

}  // namespace loom::tensorize

#endif  // LOOM_COMPILER_TENSORIZE_SCHEDULE_H_
