// The reference interpreter: executes an IR graph node by node on the runtime's reference kernels
// (runtime/kernels). It defines what a graph computes, so constant folding, calibration and the
// ONNX conformance runner all go through it. Correctness over speed: every node output is a fresh
// tensor, freed after its last use.
#ifndef LOOM_COMPILER_INTERP_INTERPRETER_H_
#define LOOM_COMPILER_INTERP_INTERPRETER_H_

#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "compiler/ir/graph.h"
#include "compiler/ir/tensor.h"
#include "runtime/core/status.h"

namespace loom::interp {

// Evaluates one node. inputs[i] is nullptr for an omitted optional input; outputs get the types
// recorded on the node's output values. The node must have passed the verifier.
Status EvaluateNode(const ir::Graph& g, const ir::Node& n,
                    const std::vector<const ir::Tensor*>& inputs, std::vector<ir::Tensor>* outputs);

// Runs a verified graph. `inputs` are in graph-input order and must match their declared dtype and
// shape; `outputs` receives one tensor per graph output.
Status Run(const ir::Graph& g, const std::vector<ir::Tensor>& inputs,
           std::vector<ir::Tensor>* outputs);
// The same, calling `observe` with every node output as soon as it is computed (calibration and
// per-layer error measurement look at intermediate values this way without keeping them all).
using ValueObserver = std::function<void(ir::ValueId, const ir::Tensor&)>;
Status Run(const ir::Graph& g, const std::vector<ir::Tensor>& inputs,
           std::vector<ir::Tensor>* outputs, const ValueObserver& observe);
// The same with inputs by graph-input name.
Status Run(const ir::Graph& g, const std::map<std::string, ir::Tensor>& inputs,
           std::vector<ir::Tensor>* outputs);

// Calibration runs one graph over many inputs. While a ReuseConstantWork lives on a thread, the
// interpreter keeps work it derives from constant tensors there (Winograd's transformed weights,
// winograd.h), keyed by the constant's address, so the graph's constants must neither move nor
// change meanwhile. Nesting is allowed (the outermost one keeps the work).
class ReuseConstantWork {
 public:
  ReuseConstantWork();
  ~ReuseConstantWork();
  ReuseConstantWork(const ReuseConstantWork&) = delete;
  ReuseConstantWork& operator=(const ReuseConstantWork&) = delete;

 private:
  bool outermost_;
};

// Whether the interpreter can execute `op` (every op in the IR's op table should be).
bool HasExecutor(std::string_view op);

}  // namespace loom::interp

#endif  // LOOM_COMPILER_INTERP_INTERPRETER_H_
