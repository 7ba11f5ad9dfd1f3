// dead-code-elimination: removes what no graph output depends on.
//
//   node whose outputs nothing reads        =>  erased (repeated backwards, so chains go)
//   unused trailing optional output         =>  dropped (MaxPool indices, Dropout mask)
//   value no node, input or output refers to => marked dead, constant data freed
//
// Requires: a valid graph. Graph inputs are kept even when unused (they are the interface).
#include "compiler/ir/op_registry.h"
#include "compiler/passes/pass.h"

namespace loom::passes {

Status DeadCodeElimination(ir::Graph& g, const PassOptions&) {
  const std::vector<ir::Node*> snapshot = g.nodes();
  for (auto it = snapshot.rbegin(); it != snapshot.rend(); ++it) {
    ir::Node* n = *it;
    bool used = false;
    for (ir::ValueId out : n->outputs) used = used || g.NumUses(out) > 0;
    if (!used) {
      g.EraseNode(n);
      continue;
    }
    // Trailing outputs the op declares optional (beyond its minimum output count).
    const ir::OpDef* def = ir::FindOp(n->op);
    while (def && static_cast<int>(n->outputs.size()) > def->min_outputs &&
           g.NumUses(n->outputs.back()) == 0) {
      n->outputs.pop_back();
    }
  }
  g.RemoveDeadValues();
  return Status::Ok();
}

}  // namespace loom::passes
