// The import driver: parse, screen for unsupported ops, check, apply input-shape overrides, run
// ONNX shape inference, then map initializers, inputs and nodes to the IR and verify the result.
// Everything libonnx or protobuf might throw is caught here, at the boundary.
#include "compiler/frontend/onnx_import.h"

#include <onnx/checker.h>
#include <onnx/defs/schema.h>
#include <onnx/shape_inference/implementation.h>

#include <algorithm>
#include <unordered_set>

#include "compiler/frontend/onnx_internal.h"
#include "compiler/ir/op_registry.h"
#include "compiler/ir/printer.h"
#include "compiler/ir/verifier.h"
#include "runtime/io/file.h"

namespace loom::frontend {
namespace {

constexpr int kMaxOpset = 17;

bool IsDefaultDomain(const std::string& d) { return d.empty() || d == "ai.onnx"; }

std::string NodeLabelOf(const onnx::NodeProto& n, int index) {
  if (!n.name().empty()) return "node '" + n.name() + "' (" + n.op_type() + ")";
  std::string label = "node #" + std::to_string(index) + " (" + n.op_type() + ")";
  if (n.output_size() > 0) label += " -> '" + n.output(0) + "'";
  return label;
}

// Op and attribute support, before the checker, so a model that is merely beyond Loom's coverage
// is reported as unsupported rather than as whatever the checker says about it.
Status ScreenNodes(const onnx::GraphProto& g) {
  for (int i = 0; i < g.node_size(); ++i) {
    const onnx::NodeProto& n = g.node(i);
    const std::string label = NodeLabelOf(n, i);
    if (!IsDefaultDomain(n.domain())) {
      return Unimplemented(label + ": operator " + n.domain() + "::" + n.op_type() +
                           " is not supported (only the default ONNX domain is)");
    }
    const OpMapper* m = FindOpMapper(n.op_type());
    // Without a mapper, a foldable op imports when it folds (its attributes checked there).
    if (m == nullptr && IsFoldableShapeOp(n.op_type())) continue;
    if (m == nullptr) {
      return Unimplemented(label + ": operator " + n.op_type() + " is not supported");
    }
    for (const onnx::AttributeProto& a : n.attribute()) {
      bool known = false;
      for (const char* name : m->attrs) known = known || a.name() == name;
      if (!known) {
        return Unimplemented(label + ": attribute '" + a.name() + "' of " + n.op_type() +
                             " is not supported");
      }
    }
  }
  return Status::Ok();
}

Status ApplyInputShapes(const ImportOptions& options, onnx::GraphProto* g) {
  std::unordered_set<std::string> used;
  for (onnx::ValueInfoProto& in : *g->mutable_input()) {
    auto it = options.input_shapes.find(in.name());
    if (it == options.input_shapes.end()) continue;
    used.insert(in.name());
    if (!in.type().has_tensor_type()) {
      return InvalidArgument("input_shapes: input '" + in.name() + "' is not a tensor");
    }
    onnx::TensorShapeProto* shape = in.mutable_type()->mutable_tensor_type()->mutable_shape();
    shape->clear_dim();
    for (int64_t d : it->second) {
      if (d < 0) return InvalidArgument("input_shapes: negative dim for '" + in.name() + "'");
      shape->add_dim()->set_dim_value(d);
    }
  }
  for (const auto& [name, dims] : options.input_shapes) {
    if (!used.count(name)) {
      return InvalidArgument("input_shapes: the model has no input named '" + name + "'");
    }
  }
  return Status::Ok();
}

// Freezes graph inputs: each becomes an initializer with the given value (so ONNX shape inference
// sees it too) and stops being an input.
Status ApplyConstantInputs(const ImportOptions& options, onnx::GraphProto* g) {
  for (const auto& entry : options.constant_inputs) {
    // Not a structured binding: C++17 lambdas cannot capture those (clang enforces it).
    const std::string& name = entry.first;
    const ir::Tensor& value = entry.second;
    auto* inputs = g->mutable_input();
    auto it = std::find_if(inputs->begin(), inputs->end(),
                           [&](const onnx::ValueInfoProto& in) { return in.name() == name; });
    if (it == inputs->end()) {
      return InvalidArgument("constant_inputs: the model has no input named '" + name + "'");
    }
    for (const onnx::TensorProto& init : g->initializer()) {
      if (init.name() == name) {
        return InvalidArgument("constant_inputs: '" + name + "' already has an initializer");
      }
    }
    DType declared;
    if (!it->type().has_tensor_type() ||
        !DTypeFromOnnx(it->type().tensor_type().elem_type(), &declared).ok() ||
        declared != value.dtype()) {
      return InvalidArgument("constant_inputs: '" + name + "' is declared with another type than " +
                             ir::TypeToString(value.dtype(), value.shape()));
    }
    TensorToProto(value, name, g->add_initializer());
    inputs->erase(it);
  }
  return Status::Ok();
}

// A graph input's IR type; every dim must be a fixed number.
Status InputType(const onnx::ValueInfoProto& in, DType* dtype, ir::Shape* shape) {
  const std::string what = "graph input '" + in.name() + "'";
  if (!in.type().has_tensor_type()) {
    return Unimplemented(what +
                         ": only tensor inputs are supported (not sequences, maps or "
                         "optionals)");
  }
  const onnx::TypeProto::Tensor& t = in.type().tensor_type();
  LOOM_RETURN_IF_ERROR(DTypeFromOnnx(t.elem_type(), dtype).WithContext(what));
  if (!t.has_shape()) {
    return InvalidArgument(what + " has no shape; give it one with input_shapes");
  }
  shape->clear();
  for (const onnx::TensorShapeProto::Dimension& d : t.shape().dim()) {
    if (!d.has_dim_value()) {
      return InvalidArgument(what + " has symbolic dim '" + d.dim_param() +
                             "'; fix it with input_shapes (e.g. --input-shape " + in.name() +
                             "=1,3,224,224)");
    }
    if (d.dim_value() < 0) return InvalidArgument(what + " has a negative dim");
    shape->push_back(d.dim_value());
  }
  int64_t n = 0;
  return ir::NumElements(*shape, &n).WithContext(what);
}

Status ImportModel(onnx::ModelProto& model, const ImportOptions& options, ir::Graph* out) {
  if (!model.has_graph()) return InvalidArgument("model has no graph");
  LOOM_RETURN_IF_ERROR(ScreenNodes(model.graph()));
  int opset = -1;
  for (const onnx::OperatorSetIdProto& o : model.opset_import()) {
    if (IsDefaultDomain(o.domain())) opset = static_cast<int>(o.version());
  }
  if (opset < 0) return InvalidArgument("model imports no default-domain (ai.onnx) opset");
  if (opset > kMaxOpset) {
    return Unimplemented("opset " + std::to_string(opset) + " is newer than the supported " +
                         std::to_string(kMaxOpset));
  }
  if (options.run_checker) {
    try {
      onnx::checker::check_model(model);
    } catch (const std::exception& e) {
      return InvalidArgument(std::string("onnx checker: ") + e.what());
    }
  }
  onnx::GraphProto* gp = model.mutable_graph();
  LOOM_RETURN_IF_ERROR(ApplyInputShapes(options, gp));
  LOOM_RETURN_IF_ERROR(ApplyConstantInputs(options, gp));
  ir::Graph g;
  g.name = gp->name();
  ImportContext ctx(&g, opset);
  std::unordered_set<std::string> initializer_names;
  for (const onnx::TensorProto& init : gp->initializer()) {
    if (init.name().empty()) return InvalidArgument("an initializer has no name");
    if (!initializer_names.insert(init.name()).second) {
      return InvalidArgument("initializer '" + init.name() + "' is defined twice");
    }
    ir::Tensor t;
    LOOM_RETURN_IF_ERROR(TensorFromProto(init, &t).WithContext("initializer"));
    ctx.Bind(init.name(), g.AddConstant(init.name(), std::move(t)));
  }
  if (gp->sparse_initializer_size() > 0) {
    return Unimplemented("sparse initializers are not supported");
  }
  for (const onnx::ValueInfoProto& in : gp->input()) {
    // Inputs that have an initializer are constants (the initializer is their value).
    if (initializer_names.count(in.name())) continue;
    DType dtype;
    ir::Shape shape;
    LOOM_RETURN_IF_ERROR(InputType(in, &dtype, &shape));
    if (ctx.Lookup(in.name()) != ir::kNoValue) {
      return InvalidArgument("graph input '" + in.name() + "' is declared twice");
    }
    ctx.Bind(in.name(), g.AddInput(in.name(), dtype, std::move(shape)));
  }

  LOOM_RETURN_IF_ERROR(ImportNodes(ctx, *gp, /*is_subgraph=*/false));
  for (const onnx::ValueInfoProto& o : gp->output()) {
    const ir::ValueId id = ctx.Lookup(o.name());
    if (id == ir::kNoValue) {
      return InvalidArgument("graph output '" + o.name() + "' is never produced");
    }
    g.AddOutput(id);
  }
  // ONNX's own shape inference runs last, as a second opinion on a model Loom's shape functions
  // have already validated: libonnx 1.12's inference crashes on some malformed inputs (a Conv on
  // a rank-2 tensor, a zero stride), which Loom's mapping rejects first.
  // libonnx 1.12's STFT inference reads an absent `onesided` as 0 (the schema's default is 1)
  // and then contradicts the declared output; spelling the default out keeps it honest.
  for (onnx::NodeProto& n : *gp->mutable_node()) {
    if (IsDefaultDomain(n.domain()) && n.op_type() == "STFT" &&
        FindAttr(n, "onesided") == nullptr) {
      onnx::AttributeProto* a = n.add_attribute();
      a->set_name("onesided");
      a->set_type(onnx::AttributeProto::INT);
      a->set_i(1);
    }
  }
  try {
    // Strict: an inference error is an import error. Type constraints are not re-checked here:
    // exporters emit a few violations onnxruntime accepts (PyTorch's int64 Constant-1 in
    // opset 6), and Loom's own shape functions check the dtypes of everything it maps.
    onnx::ShapeInferenceOptions si(/*check_type=*/false, /*strict_mode=*/1);
    onnx::shape_inference::InferShapes(model, onnx::OpSchemaRegistry::Instance(), si);
  } catch (const std::exception& e) {
    return InvalidArgument(std::string("onnx shape inference: ") + e.what());
  }
  for (const onnx::ValueInfoProto& vi : gp->value_info()) {
    LOOM_RETURN_IF_ERROR(ctx.CrossCheck(vi.name(), vi.type()));
  }
  for (const onnx::ValueInfoProto& vi : gp->output()) {
    LOOM_RETURN_IF_ERROR(ctx.CrossCheck(vi.name(), vi.type()));
  }
  LOOM_RETURN_IF_ERROR(ir::Verify(g).WithContext("imported graph fails verification"));
  *out = std::move(g);
  return Status::Ok();
}

}  // namespace

Status ImportNodes(ImportContext& ctx, const onnx::GraphProto& g, bool is_subgraph) {
  // A subgraph's outputs fold like any value (a loop body's condition must); the model's stay
  // computed (FoldShapeNode sees no outputs for a subgraph).
  const onnx::GraphProto& outputs_of = is_subgraph ? onnx::GraphProto::default_instance() : g;
  const int outer_index = ctx.node_index;
  for (int i = 0; i < g.node_size(); ++i) {
    const onnx::NodeProto& n = g.node(i);
    ctx.node_index = i;
    const onnx::OpSchema* schema =
        onnx::OpSchemaRegistry::Schema(n.op_type(), ctx.opset(), n.domain());
    if (schema == nullptr) {
      return InvalidArgument(ctx.Label(n) + ": no ONNX schema for opset " +
                             std::to_string(ctx.opset()));
    }
    const int since = schema->SinceVersion();
    bool folded = false;
    std::string why_not;
    LOOM_RETURN_IF_ERROR(FoldShapeNode(ctx, outputs_of, n, since, &folded, &why_not));
    if (folded) continue;
    const OpMapper* m = FindOpMapper(n.op_type());
    if (m == nullptr) {  // a foldable op (ScreenNodes let it through) that did not fold
      return Unimplemented(ctx.Label(n) + ": operator " + n.op_type() +
                           " is supported only where it folds to a constant, and here " + why_not);
    }
    if (since < m->min_since) {
      return Unimplemented(ctx.Label(n) + ": " + n.op_type() + "-" + std::to_string(since) +
                           " (opset " + std::to_string(ctx.opset()) +
                           ") is not supported; Loom maps " + n.op_type() + "-" +
                           std::to_string(m->min_since) + " and later");
    }
    LOOM_RETURN_IF_ERROR(m->map(ctx, n, since));
  }
  ctx.node_index = outer_index;
  return Status::Ok();
}

Status ImportSubgraph(ImportContext& ctx, const onnx::GraphProto& g) {
  LOOM_RETURN_IF_ERROR(ScreenNodes(g));
  if (g.sparse_initializer_size() > 0) {
    return Unimplemented("subgraph '" + g.name() + "': sparse initializers are not supported");
  }
  for (const onnx::TensorProto& init : g.initializer()) {
    if (init.name().empty() || ctx.Lookup(init.name()) != ir::kNoValue) {
      return InvalidArgument("subgraph '" + g.name() + "': initializer '" + init.name() +
                             "' is unnamed or shadows an outer value");
    }
    ir::Tensor t;
    LOOM_RETURN_IF_ERROR(TensorFromProto(init, &t).WithContext("initializer"));
    ctx.Bind(init.name(), ctx.graph().AddConstant(init.name(), std::move(t)));
  }
  return ImportNodes(ctx, g, /*is_subgraph=*/true);
}

// --- ImportContext ---

std::string ImportContext::Label(const onnx::NodeProto& n) const {
  return NodeLabelOf(n, node_index);
}

Status ImportContext::Unsupported(const onnx::NodeProto& n, const std::string& what) const {
  return Unimplemented(Label(n) + ": " + what);
}

Status ImportContext::Invalid(const onnx::NodeProto& n, const std::string& what) const {
  return InvalidArgument(Label(n) + ": " + what);
}

Status ImportContext::ConstantInts(const onnx::NodeProto& n, int i, const char* what,
                                   std::vector<int64_t>* out, bool* present) const {
  out->clear();
  *present = HasInput(n, i);
  if (!*present) return Status::Ok();
  const ir::Tensor* t = ConstantInput(n, i);
  if (t == nullptr) {
    return Unsupported(n, std::string(what) + " (input " + std::to_string(i) +
                              ") must be a constant: it decides the output shape; pin the input "
                              "shapes (--input-shape) so it folds");
  }
  if (t->shape().size() > 1) return Invalid(n, std::string(what) + " must be 0-D or 1-D");
  if (t->dtype() == DType::kI64) {
    out->assign(t->data<int64_t>(), t->data<int64_t>() + t->num_elements());
  } else if (t->dtype() == DType::kI32) {
    out->assign(t->data<int32_t>(), t->data<int32_t>() + t->num_elements());
  } else {
    return Invalid(n, std::string(what) + " must be int32 or int64, is " + DTypeName(t->dtype()));
  }
  return Status::Ok();
}

Status ImportContext::NormalizeAxis(const onnx::NodeProto& n, const char* what, int64_t rank,
                                    int64_t* axis, int64_t extra) const {
  if (*axis < -rank || *axis >= rank + extra) {
    return Invalid(n, std::string(what) + " " + std::to_string(*axis) + " is outside [" +
                          std::to_string(-rank) + ", " + std::to_string(rank + extra) +
                          ") for rank " + std::to_string(rank));
  }
  if (*axis < 0) *axis += rank;
  return Status::Ok();
}

ir::ValueId ImportContext::Lookup(const std::string& onnx_name) const {
  auto it = names_.find(onnx_name);
  return it == names_.end() ? ir::kNoValue : it->second;
}

Status ImportContext::Input(const onnx::NodeProto& n, int i, ir::ValueId* out) const {
  if (!HasInput(n, i)) return Invalid(n, "input " + std::to_string(i) + " is required");
  *out = Lookup(n.input(i));
  if (*out == ir::kNoValue) {
    return Invalid(n, "input '" + n.input(i) +
                          "' is not defined by any earlier node, input or "
                          "initializer");
  }
  return Status::Ok();
}

ir::ValueId ImportContext::OptionalInput(const onnx::NodeProto& n, int i) const {
  return HasInput(n, i) ? Lookup(n.input(i)) : ir::kNoValue;
}

const ir::Tensor* ImportContext::ConstantInput(const onnx::NodeProto& n, int i) const {
  const ir::ValueId id = OptionalInput(n, i);
  if (id == ir::kNoValue || !g_->value(id).is_constant()) return nullptr;
  return &*g_->value(id).constant;
}

ir::ValueId ImportContext::AddConstant(const std::string& name_hint, ir::Tensor t) {
  return g_->AddConstant(name_hint, std::move(t));
}

Status ImportContext::Emit(const onnx::NodeProto& n, const std::string& op,
                           std::vector<ir::ValueId> inputs, ir::AttributeMap attrs,
                           const std::vector<int>& onnx_outputs) {
  for (ir::ValueId in : inputs) {
    if (in == ir::kNoValue) continue;
    if (!g_->IsValid(in)) return Invalid(n, "an input is undefined");
  }
  // Outputs up to the last one the model names; an unnamed one before it gets an internal value.
  size_t count = 0;
  for (size_t k = 0; k < onnx_outputs.size(); ++k) {
    const int i = onnx_outputs[k];
    if (i < n.output_size() && !n.output(i).empty()) count = k + 1;
  }
  if (count == 0) return Invalid(n, "has no outputs");
  std::vector<ir::ValueId> outputs;
  // An unnamed output before a named one (RNN's Y before Y_h) is named after the first named.
  std::string base;
  for (const std::string& o : n.output()) {
    if (base.empty()) base = o;
  }
  for (size_t k = 0; k < count; ++k) {
    const int i = onnx_outputs[k];
    const bool named = i < n.output_size() && !n.output(i).empty();
    if (named && Lookup(n.output(i)) != ir::kNoValue) {
      return Invalid(n, "output '" + n.output(i) + "' is already defined");
    }
    outputs.push_back(g_->AddValue(named ? n.output(i) : base + "/unused"));
  }
  ir::Node* node = g_->AddNode(op, std::move(inputs), outputs, std::move(attrs), n.name());
  Status s = ir::InferAndUpdateNode(*g_, *node);
  if (!s.ok()) return InvalidArgument(s.message());
  for (size_t k = 0; k < count; ++k) {
    const int i = onnx_outputs[k];
    if (i < n.output_size() && !n.output(i).empty()) Bind(n.output(i), outputs[k]);
  }
  return Status::Ok();
}

Status ImportContext::EmitInternal(const onnx::NodeProto& n, const std::string& op,
                                   std::vector<ir::ValueId> inputs, ir::AttributeMap attrs,
                                   const std::string& suffix, ir::ValueId* out) {
  const std::string base = n.output_size() > 0 ? n.output(0) : n.op_type();
  *out = g_->AddValue(base + "/" + suffix);
  ir::Node* node = g_->AddNode(op, std::move(inputs), {*out}, std::move(attrs),
                               n.name().empty() ? "" : n.name() + "/" + suffix);
  Status s = ir::InferAndUpdateNode(*g_, *node);
  if (!s.ok()) return InvalidArgument(s.message());
  return Status::Ok();
}

// Loom's shape functions and ONNX's inference must agree wherever ONNX found a static type; a
// disagreement is a bug in one of them, so it stops the import instead of compiling a guess.
Status ImportContext::CrossCheck(const std::string& name, const onnx::TypeProto& type) const {
  const ir::ValueId id = Lookup(name);
  if (id == ir::kNoValue || !type.has_tensor_type()) return Status::Ok();
  const onnx::TypeProto::Tensor& t = type.tensor_type();
  const ir::Value& v = g_->value(id);
  const std::string producer = "'" + name + "'";
  DType dtype;
  if (t.elem_type() != 0 && DTypeFromOnnx(t.elem_type(), &dtype).ok() && dtype != v.dtype) {
    return Internal("Loom infers " + std::string(DTypeName(v.dtype)) + " for " + producer +
                    ", ONNX shape inference says " + OnnxTypeName(t.elem_type()));
  }
  if (!t.has_shape()) return Status::Ok();
  ir::Shape shape;
  for (const auto& d : t.shape().dim()) {
    if (!d.has_dim_value()) return Status::Ok();  // not fully static: nothing to compare
    shape.push_back(d.dim_value());
  }
  if (shape != v.shape) {
    return Internal("Loom infers " + ir::ShapeToString(v.shape) + " for " + producer +
                    ", ONNX shape inference gives " + ir::ShapeToString(shape));
  }
  return Status::Ok();
}

// --- entry points ---

Status ImportOnnxBytes(const void* data, size_t size, const ImportOptions& options,
                       ir::Graph* out) {
  try {
    onnx::ModelProto model;
    if (size > static_cast<size_t>(INT32_MAX)) return InvalidArgument("model larger than 2 GiB");
    if (!model.ParseFromArray(data, static_cast<int>(size))) {
      return DataLoss(
          "not a valid ONNX model (protobuf parse failed: truncated or not an "
          ".onnx file)");
    }
    return ImportModel(model, options, out);
  } catch (const std::exception& e) {
    return InvalidArgument(std::string("ONNX import failed: ") + e.what());
  } catch (...) {
    return InvalidArgument("ONNX import failed with an unknown exception");
  }
}

Status ImportOnnxFile(const std::string& path, const ImportOptions& options, ir::Graph* out) {
  // Bounded and type-checked before reading: /dev/zero, a FIFO or a directory is refused, not
  // read until memory runs out or blocked on.
  std::vector<uint8_t> bytes;
  LOOM_RETURN_IF_ERROR(ReadFileBytes(path, "ONNX model", kMaxModelFileBytes, &bytes));
  return ImportOnnxBytes(bytes.data(), bytes.size(), options, out).WithContext(path);
}

Status ListOnnxInputs(const void* data, size_t size, std::vector<OnnxInput>* out) {
  try {
    onnx::ModelProto model;
    if (size > static_cast<size_t>(INT32_MAX) ||
        !model.ParseFromArray(data, static_cast<int>(size))) {
      return DataLoss("not a valid ONNX model (protobuf parse failed)");
    }
    const onnx::GraphProto& g = model.graph();
    std::unordered_set<std::string> initializers, compile_time;
    for (const onnx::TensorProto& t : g.initializer()) initializers.insert(t.name());
    for (const onnx::NodeProto& n : g.node()) {
      const OpMapper* m = IsDefaultDomain(n.domain()) ? FindOpMapper(n.op_type()) : nullptr;
      if (m == nullptr) continue;
      for (int i : m->static_inputs) {
        if (i < n.input_size() && !n.input(i).empty()) compile_time.insert(n.input(i));
      }
    }
    // A static input computed from graph inputs by ops the import folds (a window's size
    // through Cast and Sub into Range, as ONNX's function bodies do) needs those inputs as
    // constants too. Nodes are in topological order, so one backward walk reaches them all.
    for (int k = g.node_size() - 1; k >= 0; --k) {
      const onnx::NodeProto& n = g.node(k);
      if (!IsDefaultDomain(n.domain()) || !IsFoldableShapeOp(n.op_type())) continue;
      const bool feeds = std::any_of(n.output().begin(), n.output().end(),
                                     [&](const std::string& o) { return compile_time.count(o); });
      if (!feeds) continue;
      for (const std::string& in : n.input()) {
        if (!in.empty()) compile_time.insert(in);
      }
    }
    out->clear();
    for (const onnx::ValueInfoProto& in : g.input()) {
      if (initializers.count(in.name())) continue;
      // Refused as the import refuses it, before a caller reads data files for it.
      if (!in.type().has_tensor_type()) {
        DType unused_dtype;
        ir::Shape unused_shape;
        return InputType(in, &unused_dtype, &unused_shape);
      }
      out->push_back({in.name(), compile_time.count(in.name()) > 0});
    }
    return Status::Ok();
  } catch (const std::exception& e) {
    return InvalidArgument(std::string("reading the model failed: ") + e.what());
  } catch (...) {
    return InvalidArgument("reading the model failed");
  }
}

std::vector<std::string> SupportedOnnxOps() {
  std::vector<std::string> ops;
  for (const OpMapper& m : OpMappers()) ops.push_back(m.op);
  return ops;
}

}  // namespace loom::frontend
