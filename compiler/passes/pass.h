// Graph passes: the one registry table (registry.cc) and every pass's entry point. Each pass
// lives in its own file whose header comment says what it transforms and what it requires; the
// pass manager (pass_manager.h) runs them by name and verifies the graph after each one.
#ifndef LOOM_COMPILER_PASSES_PASS_H_
#define LOOM_COMPILER_PASSES_PASS_H_

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "compiler/ir/graph.h"
#include "runtime/core/status.h"

namespace loom::passes {

// key=value options of one pass invocation, e.g. constant-folding{max-bytes=4096}.
using PassOptions = std::map<std::string, std::string>;
using PassFn = Status (*)(ir::Graph& g, const PassOptions& options);

struct PassInfo {
  const char* name;     // as used on the command line and in pipelines
  const char* summary;  // one line
  const char* options;  // "key=default: meaning; ...", or "" when the pass takes none
  PassFn run;
};

const std::vector<PassInfo>& AllPasses();
const PassInfo* FindPass(std::string_view name);

// Reads an integer option; fails naming the pass if it is not a number. Unknown keys are the
// pass manager's business (it checks them against PassInfo::options).
Status IntOption(const PassOptions& options, const std::string& key, int64_t fallback,
                 int64_t* out);

// Entry points, one per file.
Status ShapeInference(ir::Graph& g, const PassOptions& options);       // shape_inference.cc
Status ConstantFolding(ir::Graph& g, const PassOptions& options);      // constant_folding.cc
Status IdentityRemoval(ir::Graph& g, const PassOptions& options);      // identity_removal.cc
Status BatchNormFolding(ir::Graph& g, const PassOptions& options);     // batchnorm_folding.cc
Status Fusion(ir::Graph& g, const PassOptions& options);               // fusion.cc
Status DeadCodeElimination(ir::Graph& g, const PassOptions& options);  // dead_code_elimination.cc
// Later stages, defined in their own libraries (registered here so loom-opt and pipelines reach
// them).
Status ImportQdq(ir::Graph& g, const PassOptions& options);  // compiler/quantize/quantize_pass.cc
Status Quantize(ir::Graph& g, const PassOptions& options);   // compiler/quantize/quantize_pass.cc
Status GraphPack(ir::Graph& g, const PassOptions& options);  // compiler/pack/pack_pass.cc
Status Partition(ir::Graph& g, const PassOptions& options);  // compiler/partition/partition_pass.cc

}  // namespace loom::passes

#endif  // LOOM_COMPILER_PASSES_PASS_H_
