// identity-removal: removes nodes that pass their input through unchanged.
//
//   Identity(x) -> y              =>  users of y read x
//   Dropout(x) -> y [, mask]      =>  users of y read x; users of mask read a constant all-true
//                                     tensor (inference Dropout drops nothing)
//   AveragePool/MaxPool(x) -> y   =>  users of y read x, for a 1x1 window at stride 1 without
//                                     padding (VGG's adaptive 7x7 average pool on a 7x7 map
//                                     exports as one); MaxPool only when its Indices are unread
//   GlobalAveragePool/GlobalMaxPool(x) -> y
//                                 =>  users of y read x, when x's spatial dimensions are all 1
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

bool AllEqual(const std::vector<int64_t>& v, int64_t x) {
  for (int64_t e : v) {
    if (e != x) return false;
  }
  return true;
}

// A pool whose every output element is the one input element under it. Any auto_pad gives no
// padding for a 1x1 window at stride 1; shapes must agree where known, so that nothing about y's
// type changes when x replaces it.
bool IsIdentityPool(const ir::Graph& g, const ir::Node& n) {
  const bool global = n.op == "GlobalAveragePool" || n.op == "GlobalMaxPool";
  if (!global && n.op != "AveragePool" && n.op != "MaxPool") return false;
  if (!n.has_input(0) || n.outputs.empty()) return false;  // the verifier names these
  if (n.outputs.size() > 1 && g.NumUses(n.outputs[1]) > 0) return false;  // MaxPool's Indices
  const ir::Value& x = g.value(n.inputs[0]);
  const ir::Value& y = g.value(n.outputs[0]);
  if (x.shape != y.shape || x.dtype != y.dtype) return false;
  if (global) {
    if (x.shape.size() < 3) return false;
    for (size_t d = 2; d < x.shape.size(); ++d) {
      if (x.shape[d] != 1) return false;
    }
    return true;
  }
  const std::vector<int64_t> kernel = n.GetInts("kernel_shape");
  return !kernel.empty() && AllEqual(kernel, 1) && AllEqual(n.GetInts("strides"), 1) &&
         AllEqual(n.GetInts("pads"), 0) && AllEqual(n.GetInts("dilations"), 1);
}

}  // namespace

Status IdentityRemoval(ir::Graph& g, const PassOptions&) {
  const std::vector<ir::Node*> snapshot = g.nodes();
  for (ir::Node* n : snapshot) {
    if (n->op != "Identity" && n->op != "Dropout" && !IsIdentityPool(g, *n)) continue;
    const ir::ValueId x = n->inputs[0], y = n->outputs[0];
    if (!CanForward(g, y, x)) continue;
    if (n->op == "Dropout" && n->outputs.size() > 1 && g.NumUses(n->outputs[1]) > 0) {
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
