// The ops the IR admits, in one table: arity, attributes (name, kind, required) and the shape
// function that derives output types from input types. The verifier rejects any op not listed
// here; adding an op means adding a row (op_registry.cc), a shape function (shape_functions.cc)
// and an executor (compiler/interp/op_table.cc).
//
// Ops are ONNX ops in a canonical form the importer produces (docs/compiler.md lists it): every
// geometry attribute explicit, auto_pad resolved into pads, axes non-negative, Reshape's target
// shape an attribute with no 0/-1, Softmax with opset-13 semantics, Clip/Pad/Q/DQ parameters as
// the opset-13 inputs or attributes listed below. Fused activations are attributes on Conv,
// ConvTranspose, Gemm and Add: activation = "relu" | "clip" (+ clip_min, clip_max).
#ifndef LOOM_COMPILER_IR_OP_REGISTRY_H_
#define LOOM_COMPILER_IR_OP_REGISTRY_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "compiler/ir/graph.h"

namespace loom::ir {

// An inferred output type.
struct ValueType {
  DType dtype = DType::kUndefined;
  Shape shape;
};

// What a shape function sees: the node, its input values, and where to put output types.
class InferContext {
 public:
  InferContext(const Graph& g, const Node& n, std::vector<ValueType>* outputs)
      : graph_(g), node_(n), outputs_(outputs) {}

  const Graph& graph() const { return graph_; }
  const Node& node() const { return node_; }
  int num_inputs() const { return static_cast<int>(node_.inputs.size()); }
  int num_outputs() const { return static_cast<int>(node_.outputs.size()); }
  bool has_input(int i) const { return node_.has_input(static_cast<size_t>(i)); }
  // Requires has_input(i).
  const Value& input(int i) const { return graph_.value(node_.inputs[static_cast<size_t>(i)]); }
  void SetOutput(int i, DType dtype, Shape shape) {
    (*outputs_)[static_cast<size_t>(i)] = ValueType{dtype, std::move(shape)};
  }
  // InvalidArgument("<node label>: <message>").
  Status Error(const std::string& message) const;

 private:
  const Graph& graph_;
  const Node& node_;
  std::vector<ValueType>* outputs_;
};

using InferFn = Status (*)(InferContext& ctx);

struct AttrSpec {
  const char* name;
  Attribute::Kind kind;
  bool required;
  // An int or ints attribute's values must lie in [lo, hi]: the q.* ops' fields that the package
  // stores narrower than int64 say how narrow, so no value is truncated on the way.
  int64_t lo = INT64_MIN;
  int64_t hi = INT64_MAX;
};

struct OpDef {
  const char* name;
  int min_inputs;
  int max_inputs;  // -1: variadic
  int min_outputs;
  int max_outputs;
  std::vector<AttrSpec> attrs;  // attributes not listed are rejected
  InferFn infer;
  const char* summary;
};

const std::vector<OpDef>& AllOps();
// The attribute every op may carry once the graph is partitioned: "accel" or "cpu".
constexpr const char* kTargetAttr = "target";
const OpDef* FindOp(std::string_view name);

// Arity and attribute checks against the op's row (op known, counts in range, required
// attributes present, kinds right, integers in their range, no unknown attributes).
Status CheckNodeSignature(const Graph& g, const Node& n);
// CheckNodeSignature, then the shape function. `out` gets one entry per node output.
Status InferOutputTypes(const Graph& g, const Node& n, std::vector<ValueType>* out);
// InferOutputTypes, then writes the types into the node's output values.
Status InferAndUpdateNode(Graph& g, const Node& n);

}  // namespace loom::ir

#endif  // LOOM_COMPILER_IR_OP_REGISTRY_H_
