#include "compiler/pack/pack.h"

#include <set>
#include <string>

namespace loom::pack {
namespace {

// Ops that compute on blocked activations (all their 4-D i8 operands and results are blocked).
const std::set<std::string> kBlockedOps = {"q.conv2d",   "q.add",    "q.mul",    "q.max_pool",
                                           "q.avg_pool", "q.concat", "q.resize", "q.zero_insert"};

bool IsActivation4D(const ir::Graph& g, ir::ValueId id) {
  if (id == ir::kNoValue) return false;
  const ir::Value& v = g.value(id);
  return v.dtype == DType::kI8 && !v.is_constant() && v.shape.size() == 4;
}

// A consumer that reads its input as plain int8.
bool NeedsPlain(const ir::Node& n) { return n.op == "q.relayout" && n.FindAttr("shape"); }

}  // namespace

Status BlockingFor(const HwConfig& config, kernels::q::Blocking* out) {
  if (config.block_in != config.block_out) {
    return InvalidArgument("config " + config.name + ": graph packing needs block_in == block_out (" +
                           std::to_string(config.block_in) + " != " +
                           std::to_string(config.block_out) +
                           "), because one layer's output block is the next layer's input block");
  }
  out->batch = config.batch;
  out->block = config.block_in;
  return Status::Ok();
}

Status PackGraph(ir::Graph& g, const HwConfig& config) {
  kernels::q::Blocking blocking;
  LOOM_RETURN_IF_ERROR(BlockingFor(config, &blocking));
  for (const ir::Node* n : g.nodes()) {
    if (!kBlockedOps.count(n->op)) continue;
    for (ir::ValueId id : n->inputs) {
      if (IsActivation4D(g, id)) g.value(id).layout = ir::Layout::kBlocked;
    }
    for (ir::ValueId id : n->outputs) {
      if (IsActivation4D(g, id)) g.value(id).layout = ir::Layout::kBlocked;
    }
  }
  // Layout transforms only where plain int8 is needed.
  const std::vector<ir::Node*> order = g.nodes();
  for (ir::Node* n : order) {
    if (!NeedsPlain(*n)) continue;
    for (ir::ValueId& in : n->inputs) {
      if (in == ir::kNoValue || g.value(in).layout != ir::Layout::kBlocked) continue;
      const ir::Value src = g.value(in);
      const ir::ValueId plain = g.AddValue(src.name() + ".plain", DType::kI8, src.shape);
      g.value(plain).quant = src.quant;
      g.AddNode("q.relayout", {in}, {plain}, {}, "", n);
      in = plain;
    }
  }
  for (ir::ValueId& out : g.mutable_outputs()) {
    if (g.value(out).dtype != DType::kI8 || g.value(out).layout != ir::Layout::kBlocked) continue;
    const ir::Value src = g.value(out);
    const ir::ValueId plain = g.AddValue(src.name() + ".plain", DType::kI8, src.shape);
    g.value(plain).quant = src.quant;
    g.AddNode("q.relayout", {out}, {plain});
    const std::string name = src.name();
    LOOM_RETURN_IF_ERROR(g.RenameValue(out, g.UniqueName(name + ".blocked")));
    LOOM_RETURN_IF_ERROR(g.RenameValue(plain, name));
    out = plain;
  }
  return Status::Ok();
}

}  // namespace loom::pack
