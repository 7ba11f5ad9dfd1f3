// fusion: merges elementwise epilogues into the op that produces their input. Fused activations
// are attributes on the producer (activation = "relu" | "clip", clip_min, clip_max; see
// op_registry.h), not new ops, so every later stage sees one Conv/Gemm/Add and the interpreter
// runs the activation in place on its output.
//
// Requires: the producer's output is read only by the consumer and is not a graph output; the
// producer has no fused activation yet; f32 values; Clip bounds are constants with min <= max. The
// consumer's output value disappears and the producer's takes over its readers (and its name, if it
// was a graph output).
#include <limits>

#include "compiler/passes/pass.h"
#include "compiler/passes/rewrite_util.h"

namespace loom::passes {
namespace {

using ir::Attribute;

// Whether constant c, broadcast against y's shape [N, M, ...], varies only along axis 1; then
// *per_channel gets its M values (c may be a scalar, [M, 1, 1], [1, M, 1, 1], ...).
bool PerChannel(const ir::Tensor& c, const ir::Shape& y, std::vector<float>* per_channel) {
  const ir::Shape& s = c.shape();
  if (c.dtype() != DType::kF32 || y.size() < 2 || s.size() > y.size()) return false;
  const int64_t m = y[1];
  int64_t along = 1;  // c's extent along y's axis 1
  for (size_t i = 0; i < s.size(); ++i) {
    const size_t yi = i + y.size() - s.size();
    if (yi == 1) {
      along = s[i];
      if (along != 1 && along != m) return false;
    } else if (s[i] != 1) {
      return false;
    }
  }
  per_channel->resize(static_cast<size_t>(m));
  for (int64_t j = 0; j < m; ++j)
    (*per_channel)[static_cast<size_t>(j)] = c.data<float>()[along == 1 ? 0 : j];
  return true;
}

// The consumer disappears; its readers read the producer's output instead.
void Absorb(ir::Graph& g, ir::Node& producer, ir::Node& consumer) {
  g.ReplaceAllUsesWith(consumer.outputs[0], producer.outputs[0]);
  g.EraseNode(&consumer);
}

using FuseFn = bool (*)(ir::Graph& g, ir::Node& producer, ir::Node& consumer);

bool FoldBiasAdd(ir::Graph& g, ir::Node& conv, ir::Node& add) {
  const size_t other = add.inputs[0] == conv.outputs[0] ? 1 : 0;
  const ir::Tensor* c = ConstantInput(g, add, other);
  const ir::Tensor* b = ConstantInput(g, conv, 2);
  std::vector<float> extra;
  if (!c || (conv.has_input(2) && !b) || !PerChannel(*c, g.value(conv.outputs[0]).shape, &extra)) {
    return false;
  }
  for (size_t j = 0; j < extra.size() && b; ++j) extra[j] += b->data<float>()[j];
  if (conv.inputs.size() < 3) conv.inputs.resize(3, ir::kNoValue);
  const ir::Shape shape{static_cast<int64_t>(extra.size())};
  conv.inputs[2] = g.AddConstant(g.value(conv.outputs[0]).name() + ".bias",
                                 ir::Tensor::FromVector<float>(DType::kF32, shape, extra));
  // An Add that already carries a fused activation hands it to the Conv.
  for (const char* key : {"activation", "clip_min", "clip_max"}) {
    if (const Attribute* a = add.FindAttr(key)) conv.SetAttr(key, *a);
  }
  Absorb(g, conv, add);
  return true;
}

bool FuseRelu(ir::Graph& g, ir::Node& producer, ir::Node& relu) {
  producer.SetAttr("activation", Attribute::String("relu"));
  Absorb(g, producer, relu);
  return true;
}

bool FuseClip(ir::Graph& g, ir::Node& producer, ir::Node& clip) {
  float lo = std::numeric_limits<float>::lowest(), hi = std::numeric_limits<float>::max();
  for (size_t i = 1; i <= 2; ++i) {
    if (!clip.has_input(i)) continue;
    const ir::Tensor* bound = ConstantInput(g, clip, i);
    if (!bound) return false;  // a computed bound cannot become an attribute
    (i == 1 ? lo : hi) = bound->data<float>()[0];
  }
  // min > max (or a NaN bound) is not a valid fused clip; the Clip stays and reports it at run
  // time.
  if (!(lo <= hi)) return false;
  producer.SetAttr("activation", Attribute::String("clip"));
  producer.SetAttr("clip_min", Attribute::Float(lo));
  producer.SetAttr("clip_max", Attribute::Float(hi));
  Absorb(g, producer, clip);
  return true;
}

struct FusionRule {
  const char* producer;
  const char* consumer;
  FuseFn fuse;
};

const FusionRule kRules[] = {
    {"Conv", "Add", FoldBiasAdd},  // Conv -> Add(per-channel constant)  =>  Conv, bias += constant
    {"Conv", "Relu", FuseRelu},    // Conv -> Relu                       =>  Conv {activation=relu}
    {"Conv", "Clip", FuseClip},    // Conv -> Clip(lo, hi)               =>  Conv {activation=clip}
    {"Gemm", "Relu", FuseRelu},    // Gemm -> Relu                       =>  Gemm {activation=relu}
    {"Gemm", "Clip", FuseClip},    // Gemm -> Clip(lo, hi)               =>  Gemm {activation=clip}
    {"Add", "Relu", FuseRelu},     // Add -> Relu                        =>  Add {activation=relu}
    {"Add", "Clip", FuseClip},     // Add -> Clip(lo, hi)                =>  Add {activation=clip}

    // ConvTranspose takes Conv's epilogues (its bias is per output channel too).
    {"ConvTranspose", "Add", FoldBiasAdd},  // -> Add(per-channel constant)  =>  bias += constant
    {"ConvTranspose", "Relu", FuseRelu},    // -> Relu                       =>  {activation=relu}
    {"ConvTranspose", "Clip", FuseClip},    // -> Clip(lo, hi)               =>  {activation=clip}
};

// Tries every rule for `consumer`, over each of its inputs the rule could have come through.
bool TryFuse(ir::Graph& g, ir::Node& consumer) {
  for (const FusionRule& rule : kRules) {
    if (consumer.op != rule.consumer) continue;
    // Relu/Clip read the producer through input 0; a bias Add through either input.
    const size_t candidates = consumer.op == "Add" ? 2 : 1;
    for (size_t i = 0; i < candidates; ++i) {
      const ir::ValueId v = consumer.input(i);
      if (v == ir::kNoValue || g.value(v).dtype != DType::kF32) continue;
      ir::Node* producer = g.Producer(v);
      if (!producer || producer->op != rule.producer || SoleUser(g, v) != &consumer ||
          HasFusedActivation(*producer)) {
        continue;
      }
      if (rule.fuse(g, *producer, consumer)) return true;
    }
  }
  return false;
}

}  // namespace

Status Fusion(ir::Graph& g, const PassOptions&) {
  // Topological order: a Conv -> Add -> Relu chain folds the Add first, then the Relu sees the
  // Conv as its producer and fuses too.
  const std::vector<ir::Node*> snapshot = g.nodes();
  for (ir::Node* n : snapshot) {
    if (!n->erased()) TryFuse(g, *n);
  }
  return Status::Ok();
}

}  // namespace loom::passes
