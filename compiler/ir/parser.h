// Reads the text form printer.h writes, so tests and tools can start from textual IR. Constants
// need their data: `= const [1.0, 2.0]`, or `= const splat(0.5)` for a tensor of one repeated
// value; a printed `#hash` alone (large constants) is not enough to rebuild a graph, and a hash
// given together with data must match it. `//` starts a comment. The result is not verified; call
// Verify() on it.
#ifndef LOOM_COMPILER_IR_PARSER_H_
#define LOOM_COMPILER_IR_PARSER_H_

#include <string_view>

#include "compiler/ir/graph.h"
#include "runtime/core/status.h"

namespace loom::ir {

// Errors are InvalidArgument("line L:C: ...").
Status ParseGraph(std::string_view text, Graph* out);

}  // namespace loom::ir

#endif  // LOOM_COMPILER_IR_PARSER_H_
