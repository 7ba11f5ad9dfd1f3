// How the interpreter calls an op: an ExecContext holding the node, its input tensors and the
// pre-allocated outputs, and one executor function per op (ops_nn.cc, ops_tensor.cc). Internal to
// compiler/interp.
#ifndef LOOM_COMPILER_INTERP_OP_TABLE_H_
#define LOOM_COMPILER_INTERP_OP_TABLE_H_

#include <string>
#include <string_view>
#include <vector>

#include "compiler/ir/graph.h"
#include "runtime/kernels/kernels.h"

namespace loom::interp {

// A kernel view of an IR tensor (the tensor keeps ownership).
Status ToView(const ir::Tensor& t, kernels::TensorView* v);

class ExecContext {
 public:
  ExecContext(const ir::Graph& g, const ir::Node& n, const std::vector<const ir::Tensor*>& inputs,
              std::vector<ir::Tensor>* outputs)
      : graph_(g), node_(n), inputs_(inputs), outputs_(outputs) {}

  const ir::Node& node() const { return node_; }
  bool has_input(int i) const {
    return i < static_cast<int>(inputs_.size()) && inputs_[static_cast<size_t>(i)] != nullptr;
  }
  const ir::Tensor& input_tensor(int i) const { return *inputs_[static_cast<size_t>(i)]; }
  // Whether input i is the graph's own constant tensor (not a copy): its bytes stay put for as
  // long as the graph is unchanged.
  bool input_is_graph_constant(int i) const {
    if (!has_input(i)) return false;
    const ir::Value& v = graph_.value(node_.inputs[static_cast<size_t>(i)]);
    return v.is_constant() && inputs_[static_cast<size_t>(i)] == &*v.constant;
  }
  int num_inputs() const { return static_cast<int>(inputs_.size()); }
  int num_outputs() const { return static_cast<int>(outputs_->size()); }
  // Views of a required input / an output.
  Status In(int i, kernels::TensorView* v) const;
  Status Out(int i, kernels::TensorView* v) const;
  // An optional input: *present is false (and *v untouched) when omitted.
  Status InOpt(int i, kernels::TensorView* v, bool* present) const;
  // The pre-allocated output tensor i (typed as the node's output value).
  ir::Tensor& output_tensor(int i) const { return (*outputs_)[static_cast<size_t>(i)]; }
  // Per-tensor scales of quantized input / output values (q.* ops; the verifier guarantees them).
  float input_scale(int i) const {
    return graph_.value(node_.inputs[static_cast<size_t>(i)]).quant->scales[0];
  }
  float output_scale(int i) const {
    return graph_.value(node_.outputs[static_cast<size_t>(i)]).quant->scales[0];
  }
  // Their zero points (0 when the value carries none).
  int32_t input_zero_point(int i) const {
    return ZeroPointOf(graph_.value(node_.inputs[static_cast<size_t>(i)]));
  }
  int32_t output_zero_point(int i) const {
    return ZeroPointOf(graph_.value(node_.outputs[static_cast<size_t>(i)]));
  }
  static int32_t ZeroPointOf(const ir::Value& v) {
    return v.quant && !v.quant->zero_points.empty() ? v.quant->zero_points[0] : 0;
  }
  // Prefixes the kernel's message with the node label.
  Status Wrap(Status s) const;

 private:
  const ir::Graph& graph_;
  const ir::Node& node_;
  const std::vector<const ir::Tensor*>& inputs_;
  std::vector<ir::Tensor>* outputs_;
};

using ExecFn = Status (*)(ExecContext& ctx);

// Defined in ops_nn.cc and ops_tensor.cc; looked up by op name.
ExecFn FindNnExecutor(std::string_view op);
ExecFn FindTensorExecutor(std::string_view op);
ExecFn FindQuantExecutor(std::string_view op);  // ops_quant.cc: q.* on the int8 kernels
ExecFn FindShapeExecutor(std::string_view op);  // ops_shape.cc: casts, shape and indexing ops
// Vision and normalization family (ops_vision.cc).
ExecFn FindVisionExecutor(std::string_view op);
// Reduction family (ops_reduce.cc).
ExecFn FindReduceExecutor(std::string_view op);
// Elementwise math, logic and activation family (ops_math.cc).
ExecFn FindMathExecutor(std::string_view op);
// Shape and indexing family (ops_index.cc).
ExecFn FindIndexExecutor(std::string_view op);
// Recurrent, signal and misc family (ops_seq.cc).
ExecFn FindSeqExecutor(std::string_view op);
// Detection/vision family (ops_vision2.cc).
ExecFn FindVision2Executor(std::string_view op);

// Applies a node's fused activation attributes (activation = relu | clip) to y in place.
Status ApplyFusedActivation(const ir::Node& n, const kernels::TensorView& y);

}  // namespace loom::interp

#endif  // LOOM_COMPILER_INTERP_OP_TABLE_H_
