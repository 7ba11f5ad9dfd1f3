// The IR verifier: checks every invariant docs/compiler.md lists for a graph, and returns the
// first violation as an InvalidArgument status naming the node (or value) at fault. It runs after
// the importer and after every pass (the pass manager does this); it is linear in the graph size
// plus one shape-function call per node.
#ifndef LOOM_COMPILER_IR_VERIFIER_H_
#define LOOM_COMPILER_IR_VERIFIER_H_

#include "compiler/ir/graph.h"
#include "runtime/core/status.h"

namespace loom::ir {

Status Verify(const Graph& g);

}  // namespace loom::ir

#endif  // LOOM_COMPILER_IR_VERIFIER_H_
