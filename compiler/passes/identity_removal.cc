// identity-removal: removes nodes that pass their input through unchanged.
//
//   Identity(x) -> y              =>  users of y read x
//   Dropout(x) -> y [, mask]      =>  users of y read x; users of mask read a constant all-true
//                                     tensor (inference Dropout drops nothing)
//
// Requires: nothing beyond a valid graph. When y is a graph output, x takes over y's name so the
// graph's output names do not change; if x is itself a graph input or output (its name is fixed
// too) the node stays. So does a Dropout whose read mask would be a constant over kMaxMaskBytes.
#include <cstring>

#include "compiler/passes/pass.h"

namespace loom::passes {
namespace {

// A read Dropout mask becomes a constant only up to this size; a bigger one would bloat the
// package more than the Dropout costs.
constexpr int64_t kMaxMaskBytes = int64_t{16} << 20;

bool CanForward(const ir::Graph& g, ir::ValueId from, ir::ValueId to) {
  return !g.IsGraphOutput(from) || !(g.IsGraphInput(to) || g.IsGraphOutput(to));
}

}  // namespace

Status IdentityRemoval(ir::Graph& g, const PassOptions&) {
  const std::vector<ir::Node*> snapshot = g.nodes();
  for (ir::Node* n : snapshot) {
    if (n->op != "Identity" && n->op != "Dropout") continue;
    const ir::ValueId x = n->inputs[0], y = n->outputs[0];
    if (!CanForward(g, y, x)) continue;
    if (n->outputs.size() > 1 && g.NumUses(n->outputs[1]) > 0) {
      const ir::Value& mask = g.value(n->outputs[1]);
      if (ir::NumElementsUnchecked(mask.shape) > kMaxMaskBytes) continue;
      ir::Tensor ones;
      LOOM_RETURN_IF_ERROR(ir::Tensor::Create(DType::kBool, mask.shape, &ones));
      if (ones.byte_size()) std::memset(ones.mutable_bytes(), 1, ones.byte_size());
      const ir::ValueId c = g.AddConstant(mask.name() + ".true", std::move(ones));
      g.ReplaceAllUsesWith(n->outputs[1], c);
    }
    g.ReplaceAllUsesWith(y, x);
    g.EraseNode(n);
  }
  return Status::Ok();
}

}  // namespace loom::passes
