// constant-folding: evaluates every node whose inputs are all constants (omitted optional inputs
// are fine) with the reference interpreter, and turns its outputs into constants in place: the
// output values keep their ids, names and types, gain data, and lose their producer. Nodes without
// inputs (the window generators, MelWeightMatrix: the IR admits no random op) fold too, so no
// package has to run them.
//
// Transforms: such nodes disappear; their outputs become constants. Folding cascades in one walk
// because nodes are visited in topological order.
// Requires: a verified graph (the interpreter trusts canonical attributes).
// Option max-bytes: results larger than this stay unfolded, so a constant subgraph that expands
// (e.g. a Pad of a large weight) does not bloat the package.
#include "compiler/interp/interpreter.h"
#include "compiler/passes/pass.h"

namespace loom::passes {

Status ConstantFolding(ir::Graph& g, const PassOptions& options) {
  int64_t max_bytes = 0;
  LOOM_RETURN_IF_ERROR(IntOption(options, "max-bytes", int64_t{16} << 20, &max_bytes));
  const std::vector<ir::Node*> snapshot = g.nodes();
  std::vector<const ir::Tensor*> args;
  std::vector<ir::Tensor> results;
  for (ir::Node* n : snapshot) {
    args.clear();
    bool all_constant = true;
    for (ir::ValueId in : n->inputs) {
      if (in == ir::kNoValue) {
        args.push_back(nullptr);
      } else if (g.value(in).is_constant()) {
        args.push_back(&*g.value(in).constant);
      } else {
        all_constant = false;
        break;
      }
    }
    if (!all_constant) continue;
    int64_t bytes = 0;
    for (ir::ValueId out : n->outputs) {
      const ir::Value& v = g.value(out);
      bytes += ir::NumElementsUnchecked(v.shape) * static_cast<int64_t>(DTypeSize(v.dtype));
    }
    if (bytes > max_bytes) continue;
    LOOM_RETURN_IF_ERROR(interp::EvaluateNode(g, *n, args, &results));
    for (size_t i = 0; i < n->outputs.size(); ++i) {
      g.value(n->outputs[i]).constant = std::move(results[i]);
    }
    g.EraseNode(n);
  }
  return Status::Ok();
}

}  // namespace loom::passes
