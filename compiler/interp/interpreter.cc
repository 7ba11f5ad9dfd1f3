#include "compiler/interp/interpreter.h"

#include "compiler/interp/op_table.h"

namespace loom::interp {

Status ToView(const ir::Tensor& t, kernels::TensorView* v) {
  if (!t.defined()) return InvalidArgument("tensor has no dtype");
  return kernels::MakeView(t.dtype(), t.bytes(), t.shape().data(),
                           static_cast<int>(t.shape().size()), v);
}

Status ExecContext::In(int i, kernels::TensorView* v) const {
  if (!has_input(i)) {
    return Internal(ir::NodeLabel(graph_, node_) + ": input " + std::to_string(i) + " missing");
  }
  return Wrap(ToView(input_tensor(i), v));
}

Status ExecContext::InOpt(int i, kernels::TensorView* v, bool* present) const {
  *present = has_input(i);
  return *present ? In(i, v) : Status::Ok();
}

Status ExecContext::Out(int i, kernels::TensorView* v) const {
  ir::Tensor& t = (*outputs_)[static_cast<size_t>(i)];
  LOOM_RETURN_IF_ERROR(Wrap(ToView(t, v)));
  v->data = t.mutable_bytes();
  return Status::Ok();
}

Status ExecContext::Wrap(Status s) const { return s.WithContext(ir::NodeLabel(graph_, node_)); }

Status ApplyFusedActivation(const ir::Node& n, const kernels::TensorView& y) {
  const std::string act = n.GetString("activation");
  if (act.empty()) return Status::Ok();
  kernels::ActivationParams p;
  if (act == "relu") {
    p.kind = kernels::ActivationKind::kRelu;
  } else if (act == "clip") {
    p.kind = kernels::ActivationKind::kClip;
    p.min = n.GetFloat("clip_min", 0.0f);
    p.max = n.GetFloat("clip_max", 0.0f);
  } else {
    return InvalidArgument("unknown fused activation '" + act + "'");
  }
  return kernels::Activation(p, y, y);
}

namespace {

ExecFn FindExecutor(std::string_view op) {
  if (ExecFn f = FindNnExecutor(op)) return f;
  if (ExecFn f = FindQuantExecutor(op)) return f;
  if (ExecFn f = FindShapeExecutor(op)) return f;
  if (ExecFn f = FindVisionExecutor(op)) return f;   // vision and normalization family
  if (ExecFn f = FindReduceExecutor(op)) return f;   // reduction family
  if (ExecFn f = FindMathExecutor(op)) return f;     // elementwise math, logic, activations
  if (ExecFn f = FindIndexExecutor(op)) return f;    // shape and indexing family
  if (ExecFn f = FindSeqExecutor(op)) return f;      // recurrent, signal and misc family
  if (ExecFn f = FindVision2Executor(op)) return f;  // detection/vision family
  return FindTensorExecutor(op);
}

}  // namespace

bool HasExecutor(std::string_view op) { return FindExecutor(op) != nullptr; }

Status EvaluateNode(const ir::Graph& g, const ir::Node& n,
                    const std::vector<const ir::Tensor*>& inputs,
                    std::vector<ir::Tensor>* outputs) {
  const ExecFn fn = FindExecutor(n.op);
  if (fn == nullptr) {
    return Unimplemented(ir::NodeLabel(g, n) + ": the interpreter cannot execute " + n.op);
  }
  outputs->clear();
  outputs->resize(n.outputs.size());
  for (size_t i = 0; i < n.outputs.size(); ++i) {
    const ir::Value& v = g.value(n.outputs[i]);
    LOOM_RETURN_IF_ERROR(ir::Tensor::Create(v.dtype, v.shape, &(*outputs)[i])
                             .WithContext(ir::NodeLabel(g, n) + ": output %" + v.name()));
  }
  ExecContext ctx(g, n, inputs, outputs);
  return fn(ctx);
}

Status Run(const ir::Graph& g, const std::vector<ir::Tensor>& inputs,
           std::vector<ir::Tensor>* outputs) {
  return Run(g, inputs, outputs, ValueObserver());
}

Status Run(const ir::Graph& g, const std::vector<ir::Tensor>& inputs,
           std::vector<ir::Tensor>* outputs, const ValueObserver& observe) {
  if (inputs.size() != g.inputs().size()) {
    return InvalidArgument("graph has " + std::to_string(g.inputs().size()) + " inputs, got " +
                           std::to_string(inputs.size()));
  }
  // Live tensors by value id; constants are read in place from the graph.
  std::vector<ir::Tensor> values(static_cast<size_t>(g.num_values()));
  std::vector<int> remaining_uses(static_cast<size_t>(g.num_values()), 0);
  for (const ir::Node* n : g.nodes()) {
    for (ir::ValueId in : n->inputs) {
      if (in != ir::kNoValue) ++remaining_uses[in];
    }
  }
  for (ir::ValueId out : g.outputs()) ++remaining_uses[out];  // never freed
  for (size_t i = 0; i < inputs.size(); ++i) {
    const ir::Value& v = g.value(g.inputs()[i]);
    if (inputs[i].dtype() != v.dtype || inputs[i].shape() != v.shape) {
      return InvalidArgument("input %" + v.name() + " must be " +
                             ir::TypeToString(v.dtype, v.shape) + ", got " +
                             ir::TypeToString(inputs[i].dtype(), inputs[i].shape()));
    }
    values[g.inputs()[i]] = inputs[i];
  }
  auto tensor_of = [&](ir::ValueId id) -> const ir::Tensor* {
    const ir::Value& v = g.value(id);
    return v.is_constant() ? &*v.constant : &values[id];
  };
  std::vector<const ir::Tensor*> args;
  std::vector<ir::Tensor> results;
  for (const ir::Node* n : g.nodes()) {
    args.clear();
    for (ir::ValueId in : n->inputs) args.push_back(in == ir::kNoValue ? nullptr : tensor_of(in));
    LOOM_RETURN_IF_ERROR(EvaluateNode(g, *n, args, &results));
    for (size_t i = 0; i < n->outputs.size(); ++i) {
      if (observe) observe(n->outputs[i], results[i]);
      values[n->outputs[i]] = std::move(results[i]);
    }
    for (ir::ValueId in : n->inputs) {
      if (in != ir::kNoValue && --remaining_uses[in] == 0) values[in] = ir::Tensor();
    }
  }
  outputs->clear();
  for (ir::ValueId id : g.outputs()) outputs->push_back(*tensor_of(id));
  return Status::Ok();
}

Status Run(const ir::Graph& g, const std::map<std::string, ir::Tensor>& inputs,
           std::vector<ir::Tensor>* outputs) {
  std::vector<ir::Tensor> ordered;
  for (ir::ValueId id : g.inputs()) {
    auto it = inputs.find(g.value(id).name());
    if (it == inputs.end()) return NotFound("no tensor given for input %" + g.value(id).name());
    ordered.push_back(it->second);
  }
  if (inputs.size() != ordered.size()) {
    for (const auto& [name, t] : inputs) {
      const ir::ValueId id = g.FindValue(name);
      if (id == ir::kNoValue || !g.IsGraphInput(id)) {
        return NotFound("'" + name + "' is not an input of the graph");
      }
    }
  }
  return Run(g, ordered, outputs);
}

}  // namespace loom::interp
