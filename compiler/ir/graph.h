// The graph IR: values (typed tensors, some constant), nodes (an op over input values producing
// output values, with typed attributes) kept in topological order, and the graph's inputs and
// outputs. docs/compiler.md ("The IR") is the contract; the verifier (verifier.h) checks it.
//
// Ownership: a Graph owns its values and nodes. Node pointers stay valid until the graph is
// destroyed or ReleaseErasedNodes() is called (the pass manager does that between passes), so a
// pass may erase nodes while walking a snapshot of nodes(). Value ids are stable for the graph's
// lifetime; removed values become "dead" slots, never reused.
#ifndef LOOM_COMPILER_IR_GRAPH_H_
#define LOOM_COMPILER_IR_GRAPH_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "compiler/ir/attribute.h"
#include "compiler/ir/tensor.h"
#include "compiler/ir/types.h"
#include "runtime/core/status.h"

namespace loom::ir {

using ValueId = int32_t;
// An omitted optional input (ONNX's empty input name).
constexpr ValueId kNoValue = -1;

class Value {
 public:
  // Unique within the graph. Change it only through Graph::RenameValue.
  const std::string& name() const { return name_; }
  bool dead() const { return dead_; }
  bool is_constant() const { return constant.has_value(); }

  DType dtype = DType::kUndefined;
  Shape shape;
  Layout layout = Layout::kPlain;
  // Set for constants (weights, folded results). Its dtype and shape equal the value's.
  std::optional<Tensor> constant;
  // Set on quantized values by the quantizer.
  std::optional<QuantParams> quant;

 private:
  friend class Graph;
  std::string name_;
  bool dead_ = false;
};

class Node {
 public:
  std::string name;             // may be empty; NodeLabel() gives a readable name either way
  std::string op;               // a registered op (op_registry.h)
  std::vector<ValueId> inputs;  // kNoValue for an omitted optional input
  std::vector<ValueId> outputs;
  AttributeMap attrs;

  bool erased() const { return erased_; }
  // kNoValue when i is past the end or the input was omitted.
  ValueId input(size_t i) const { return i < inputs.size() ? inputs[i] : kNoValue; }
  bool has_input(size_t i) const { return input(i) != kNoValue; }

  const Attribute* FindAttr(std::string_view key) const;
  // Typed getters return `fallback` when the attribute is absent or of another kind.
  int64_t GetInt(std::string_view key, int64_t fallback) const;
  float GetFloat(std::string_view key, float fallback) const;
  std::string GetString(std::string_view key, std::string fallback = "") const;
  std::vector<int64_t> GetInts(std::string_view key) const;
  std::vector<float> GetFloats(std::string_view key) const;
  void SetAttr(std::string key, Attribute value) { attrs[std::move(key)] = std::move(value); }

 private:
  friend class Graph;
  bool erased_ = false;
};

struct Use {
  Node* node;
  int input_index;
};

class Graph {
 public:
  Graph() = default;
  Graph(const Graph&) = delete;
  Graph& operator=(const Graph&) = delete;
  Graph(Graph&&) = default;
  Graph& operator=(Graph&&) = default;
  // Deep copy of the structure; constant bytes are shared (copy on write).
  Graph Clone() const;

  std::string name;

  // --- values ---
  // The name is made unique ("x", "x.1", "x.2", ...); an empty hint becomes "v".
  ValueId AddValue(std::string_view name_hint, DType dtype = DType::kUndefined, Shape shape = {});
  ValueId AddConstant(std::string_view name_hint, Tensor data);
  // Appends to the graph inputs.
  ValueId AddInput(std::string_view name_hint, DType dtype, Shape shape);
  void AddOutput(ValueId id) { outputs_.push_back(id); }

  int num_values() const { return static_cast<int>(values_.size()); }
  bool IsValid(ValueId id) const { return id >= 0 && id < num_values() && !values_[id].dead_; }
  Value& value(ValueId id) { return values_[id]; }
  const Value& value(ValueId id) const { return values_[id]; }
  ValueId FindValue(std::string_view value_name) const;  // kNoValue if none
  // Fails if another value has the name.
  Status RenameValue(ValueId id, const std::string& new_name);
  std::string UniqueName(std::string_view hint) const;

  const std::vector<ValueId>& inputs() const { return inputs_; }
  const std::vector<ValueId>& outputs() const { return outputs_; }
  std::vector<ValueId>& mutable_outputs() { return outputs_; }
  bool IsGraphInput(ValueId id) const;
  bool IsGraphOutput(ValueId id) const;

  // --- nodes ---
  // Inserts before `before` (which must be live), or appends when it is null. Inserting before
  // the first user of the outputs keeps the order topological.
  Node* AddNode(std::string op, std::vector<ValueId> inputs, std::vector<ValueId> outputs,
                AttributeMap attrs = {}, std::string node_name = "", const Node* before = nullptr);
  // Removes the node from the order. Its outputs keep their slots (rewire uses first).
  void EraseNode(Node* node);
  // Live nodes in topological order.
  const std::vector<Node*>& nodes() const { return order_; }
  // Frees erased nodes; invalidates pointers to them.
  void ReleaseErasedNodes();

  // --- def-use, computed by scanning (graphs here are hundreds of nodes, not millions) ---
  Node* Producer(ValueId id) const;
  std::vector<Use> Uses(ValueId id) const;
  // Node input slots plus graph output slots that read the value.
  int NumUses(ValueId id) const;

  // --- rewriting ---
  // Points every node input and graph output that reads `from` at `to`. When `from` is a graph
  // output, `to` also takes over its name (output names are the user's contract) unless `to` is a
  // graph input or already a graph output; `from` is then renamed.
  void ReplaceAllUsesWith(ValueId from, ValueId to);
  // Stable topological sort (keeps the current order where it is already valid). Fails, naming a
  // node, if the graph has a cycle or reads a value nothing defines.
  Status TopologicalSort();
  // Marks values no live node, input or output refers to as dead and frees their constant data.
  void RemoveDeadValues();

 private:
  ValueId NewValue(std::string_view name_hint);

  std::vector<Value> values_;
  std::unordered_map<std::string, ValueId> names_;
  mutable std::unordered_map<std::string, int> next_suffix_;
  std::vector<ValueId> inputs_;
  std::vector<ValueId> outputs_;
  std::vector<std::unique_ptr<Node>> storage_;
  std::vector<Node*> order_;
};

// "node 'conv1' (Conv)", or "node #3 (Conv) -> %y" when the node has no name; for messages.
std::string NodeLabel(const Graph& g, const Node& n);

}  // namespace loom::ir

#endif  // LOOM_COMPILER_IR_GRAPH_H_
