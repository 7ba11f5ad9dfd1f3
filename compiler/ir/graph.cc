#include "compiler/ir/graph.h"

#include <algorithm>
#include <queue>
#include <unordered_set>

namespace loom::ir {

// --- Node ---

const Attribute* Node::FindAttr(std::string_view key) const {
  auto it = attrs.find(key);
  return it == attrs.end() ? nullptr : &it->second;
}

int64_t Node::GetInt(std::string_view key, int64_t fallback) const {
  const Attribute* a = FindAttr(key);
  return a && a->kind() == Attribute::Kind::kInt ? a->i() : fallback;
}

float Node::GetFloat(std::string_view key, float fallback) const {
  const Attribute* a = FindAttr(key);
  return a && a->kind() == Attribute::Kind::kFloat ? a->f() : fallback;
}

std::string Node::GetString(std::string_view key, std::string fallback) const {
  const Attribute* a = FindAttr(key);
  return a && a->kind() == Attribute::Kind::kString ? a->s() : fallback;
}

std::vector<int64_t> Node::GetInts(std::string_view key) const {
  const Attribute* a = FindAttr(key);
  return a && a->kind() == Attribute::Kind::kInts ? a->ints() : std::vector<int64_t>{};
}

std::vector<float> Node::GetFloats(std::string_view key) const {
  const Attribute* a = FindAttr(key);
  return a && a->kind() == Attribute::Kind::kFloats ? a->floats() : std::vector<float>{};
}

// --- Graph: values ---

Graph Graph::Clone() const {
  Graph g;
  g.name = name;
  g.values_ = values_;
  g.names_ = names_;
  g.next_suffix_ = next_suffix_;
  g.inputs_ = inputs_;
  g.outputs_ = outputs_;
  for (const Node* n : order_) {
    g.storage_.push_back(std::make_unique<Node>(*n));
    g.order_.push_back(g.storage_.back().get());
  }
  return g;
}

std::string Graph::UniqueName(std::string_view hint) const {
  std::string base(hint.empty() ? "v" : hint);
  if (names_.find(base) == names_.end()) return base;
  int& next = next_suffix_[base];
  for (;;) {
    std::string candidate = base + "." + std::to_string(++next);
    if (names_.find(candidate) == names_.end()) return candidate;
  }
}

ValueId Graph::NewValue(std::string_view name_hint) {
  const ValueId id = num_values();
  values_.emplace_back();
  values_.back().name_ = UniqueName(name_hint);
  names_[values_.back().name_] = id;
  return id;
}

ValueId Graph::AddValue(std::string_view name_hint, DType dtype, Shape shape) {
  const ValueId id = NewValue(name_hint);
  values_[id].dtype = dtype;
  values_[id].shape = std::move(shape);
  return id;
}

ValueId Graph::AddConstant(std::string_view name_hint, Tensor data) {
  const ValueId id = NewValue(name_hint);
  Value& v = values_[id];
  v.dtype = data.dtype();
  v.shape = data.shape();
  v.constant = std::move(data);
  return id;
}

ValueId Graph::AddInput(std::string_view name_hint, DType dtype, Shape shape) {
  const ValueId id = AddValue(name_hint, dtype, std::move(shape));
  inputs_.push_back(id);
  return id;
}

ValueId Graph::FindValue(std::string_view value_name) const {
  auto it = names_.find(std::string(value_name));
  return it == names_.end() ? kNoValue : it->second;
}

Status Graph::RenameValue(ValueId id, const std::string& new_name) {
  if (!IsValid(id)) return InvalidArgument("rename of an invalid value id");
  if (values_[id].name_ == new_name) return Status::Ok();
  if (new_name.empty()) return InvalidArgument("value names must not be empty");
  if (names_.count(new_name)) return InvalidArgument("value name %" + new_name + " is taken");
  names_.erase(values_[id].name_);
  values_[id].name_ = new_name;
  names_[new_name] = id;
  return Status::Ok();
}

bool Graph::IsGraphInput(ValueId id) const {
  return std::find(inputs_.begin(), inputs_.end(), id) != inputs_.end();
}

bool Graph::IsGraphOutput(ValueId id) const {
  return std::find(outputs_.begin(), outputs_.end(), id) != outputs_.end();
}

// --- Graph: nodes ---

Node* Graph::AddNode(std::string op, std::vector<ValueId> inputs, std::vector<ValueId> outputs,
                     AttributeMap attrs, std::string node_name, const Node* before) {
  auto node = std::make_unique<Node>();
  node->op = std::move(op);
  node->inputs = std::move(inputs);
  node->outputs = std::move(outputs);
  node->attrs = std::move(attrs);
  node->name = std::move(node_name);
  Node* raw = node.get();
  storage_.push_back(std::move(node));
  auto pos = before ? std::find(order_.begin(), order_.end(), before) : order_.end();
  order_.insert(pos, raw);
  return raw;
}

void Graph::EraseNode(Node* node) {
  if (node == nullptr || node->erased_) return;
  node->erased_ = true;
  order_.erase(std::remove(order_.begin(), order_.end(), node), order_.end());
}

void Graph::ReleaseErasedNodes() {
  storage_.erase(std::remove_if(storage_.begin(), storage_.end(),
                                [](const std::unique_ptr<Node>& n) { return n->erased_; }),
                 storage_.end());
}

Node* Graph::Producer(ValueId id) const {
  for (Node* n : order_) {
    for (ValueId o : n->outputs) {
      if (o == id) return n;
    }
  }
  return nullptr;
}

std::vector<Use> Graph::Uses(ValueId id) const {
  std::vector<Use> uses;
  for (Node* n : order_) {
    for (size_t i = 0; i < n->inputs.size(); ++i) {
      if (n->inputs[i] == id) uses.push_back({n, static_cast<int>(i)});
    }
  }
  return uses;
}

int Graph::NumUses(ValueId id) const {
  int count = static_cast<int>(Uses(id).size());
  for (ValueId o : outputs_) count += o == id;
  return count;
}

// --- Graph: rewriting ---

void Graph::ReplaceAllUsesWith(ValueId from, ValueId to) {
  if (from == to) return;
  for (Node* n : order_) {
    for (ValueId& in : n->inputs) {
      if (in == from) in = to;
    }
  }
  const bool from_is_output = IsGraphOutput(from);
  const bool to_keeps_name = IsGraphInput(to) || IsGraphOutput(to);
  for (ValueId& o : outputs_) {
    if (o == from) o = to;
  }
  if (from_is_output && !to_keeps_name) {
    const std::string out_name = values_[from].name_;
    // Cannot fail: the fresh name is unique and out_name is released first.
    (void)RenameValue(from, UniqueName(out_name + ".replaced"));
    (void)RenameValue(to, out_name);
  }
}

Status Graph::TopologicalSort() {
  // Kahn's algorithm with the current position as priority, so a valid order is kept as is.
  const size_t n = order_.size();
  std::unordered_map<ValueId, size_t> producer;
  for (size_t i = 0; i < n; ++i) {
    for (ValueId o : order_[i]->outputs) producer[o] = i;
  }
  std::vector<int> pending(n, 0);
  std::vector<std::vector<size_t>> users(n);
  for (size_t i = 0; i < n; ++i) {
    std::unordered_set<size_t> deps;
    for (ValueId in : order_[i]->inputs) {
      auto it = producer.find(in);
      if (it != producer.end()) deps.insert(it->second);
    }
    pending[i] = static_cast<int>(deps.size());
    for (size_t d : deps) users[d].push_back(i);
  }
  std::priority_queue<size_t, std::vector<size_t>, std::greater<size_t>> ready;
  for (size_t i = 0; i < n; ++i) {
    if (pending[i] == 0) ready.push(i);
  }
  std::vector<Node*> sorted;
  sorted.reserve(n);
  while (!ready.empty()) {
    const size_t i = ready.top();
    ready.pop();
    sorted.push_back(order_[i]);
    for (size_t u : users[i]) {
      if (--pending[u] == 0) ready.push(u);
    }
  }
  if (sorted.size() != n) {
    for (size_t i = 0; i < n; ++i) {
      if (pending[i] > 0) {
        return InvalidArgument(NodeLabel(*this, *order_[i]) + " is part of a cycle");
      }
    }
  }
  order_ = std::move(sorted);
  return Status::Ok();
}

void Graph::RemoveDeadValues() {
  std::vector<bool> live(values_.size(), false);
  auto mark = [&](ValueId id) {
    if (id >= 0 && id < num_values()) live[id] = true;
  };
  for (ValueId id : inputs_) mark(id);
  for (ValueId id : outputs_) mark(id);
  for (const Node* n : order_) {
    for (ValueId id : n->inputs) mark(id);
    for (ValueId id : n->outputs) mark(id);
  }
  for (size_t i = 0; i < values_.size(); ++i) {
    Value& v = values_[i];
    if (live[i] || v.dead_) continue;
    v.dead_ = true;
    v.constant.reset();
    names_.erase(v.name_);
  }
}

std::string NodeLabel(const Graph& g, const Node& n) {
  if (!n.name.empty()) return "node '" + n.name + "' (" + n.op + ")";
  const auto& order = g.nodes();
  const auto it = std::find(order.begin(), order.end(), &n);
  std::string label = "node #" + std::to_string(it - order.begin()) + " (" + n.op + ")";
  if (!n.outputs.empty() && g.IsValid(n.outputs[0])) {
    label += " -> %" + g.value(n.outputs[0]).name();
  }
  return label;
}

}  // namespace loom::ir
