// shape-inference: recomputes every node's output dtype and shape, in order, from its inputs with
// the op table's shape functions (compiler/ir/shape_functions_*.cc).
//
// Transforms: output types of every node (inputs, constants and attributes are untouched).
// Requires: graph inputs and constants typed; nodes in topological order.
// Why ours and not only ONNX's: ONNX inference runs once at import; rewrites (fusion, folding,
// later packing) change nodes afterwards, and this keeps every value's type right for them.
#include "compiler/ir/op_registry.h"
#include "compiler/passes/pass.h"

namespace loom::passes {

Status ShapeInference(ir::Graph& g, const PassOptions&) {
  for (const ir::Node* n : g.nodes()) LOOM_RETURN_IF_ERROR(ir::InferAndUpdateNode(g, *n));
  return Status::Ok();
}

}  // namespace loom::passes
