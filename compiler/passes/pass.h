// Graph passes: the pass registry and the entry points of the passes this library owns. Each pass
// lives in its own file whose header comment says what it transforms and what it requires; the
// pass manager (pass_manager.h) runs them by name and verifies the graph after each one.
//
// Registration is MLIR's: this library's own passes are in the registry from its first use; every
// later stage that defines passes (quantize/, pack/, partition/) has one Register*Passes() function
// that adds its rows, and a tool calls pipeline::RegisterAllPasses() once. So this library depends
// on none of the later stages; they depend on it.
#ifndef LOOM_COMPILER_PASSES_PASS_H_
#define LOOM_COMPILER_PASSES_PASS_H_

#include <map>
#include <set>
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

// Adds a pass. Names are unique: registering a name twice is a bug and aborts with a message
// (it happens at start-up, before any input is read). Not thread-safe; register before use.
void RegisterPass(const PassInfo& info);
// Every registered pass, in registration order. Pointers stay valid for the program's life.
const std::vector<const PassInfo*>& AllPasses();
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
Status FirstLayerPacking(ir::Graph& g, const PassOptions& options);    // first_layer_packing.cc

// first-layer-packing with its bookkeeping: every value it adds holds values of an existing one
// (moved or zero), so calibration ranges carry over (`source`'s range is `value`'s).
struct PackedValue {
  ir::ValueId value, source;
};
// `skip`: nodes to leave unpacked (`loom tune`'s packing knob; may be null), by name, or by their
// output's name when unnamed; `packed`, when not null, receives the packed nodes' names so given.
// `im2col` false keeps every packed layer in the space-to-depth form (no width im2col). `fold`
// also folds kernel rows into the channels where that saves GEMM steps, in every packed layer;
// `fold_only` (`loom tune`'s packing knob's "fold"; may be null) in the layers it names.
Status PackFirstLayers(ir::Graph& g, int64_t block, std::vector<PackedValue>* moved,
                       const std::set<std::string>* skip = nullptr,
                       std::vector<std::string>* packed = nullptr, bool im2col = true,
                       bool fold = false, const std::set<std::string>* fold_only = nullptr);
// After quantization: quantizes each packed input before its rearrangement instead of after it
// (the same int8 values; the host moves bytes, not floats). `moved` is PackFirstLayers's.
Status QuantizePackedInputs(ir::Graph& g, const std::vector<PackedValue>& moved);

}  // namespace loom::passes

#endif  // LOOM_COMPILER_PASSES_PASS_H_
