// Runs a named list of passes over a graph. The verifier runs on the input graph and after every
// pass, in every build type: it is linear in the graph size (one shape-function call per node),
// which is noise next to the passes themselves, and a pass that breaks an invariant is then
// reported at the pass that broke it. `--dump-ir-after=PASS` support prints the text form after
// the named passes.
#ifndef LOOM_COMPILER_PASSES_PASS_MANAGER_H_
#define LOOM_COMPILER_PASSES_PASS_MANAGER_H_

#include <ostream>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "compiler/ir/graph.h"
#include "compiler/passes/pass.h"
#include "runtime/core/status.h"

namespace loom::passes {

struct PipelineOptions {
  // Switch off only to measure a pass's own time; tests and the compiler keep it on.
  bool verify_each = true;
  // Verify the graph before the first pass too. Off only for inputs that are deliberately
  // incomplete (e.g. untyped values fed to shape-inference in tests).
  bool verify_input = true;
  // Pass names after which to print the graph, or "all".
  std::set<std::string> dump_after;
  std::ostream* dump_stream = nullptr;  // defaults to std::cerr
};

// One pass with its options, parsed from "name" or "name{key=value,key=value}".
struct PassInvocation {
  const PassInfo* pass = nullptr;
  PassOptions options;
};

// Parses "a,b{k=v},c" (also accepts a list of such items); fails naming an unknown pass or option.
Status ParsePipeline(const std::vector<std::string>& specs, std::vector<PassInvocation>* out);

// The pipeline the compiler runs after import.
const std::vector<std::string>& DefaultPipeline();

Status RunPipeline(const std::vector<std::string>& specs, ir::Graph* g,
                   const PipelineOptions& options = {});
Status RunPipeline(const std::vector<PassInvocation>& passes, ir::Graph* g,
                   const PipelineOptions& options = {});

}  // namespace loom::passes

#endif  // LOOM_COMPILER_PASSES_PASS_MANAGER_H_
