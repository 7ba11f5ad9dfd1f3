// Control flow (issue 12). Loom's graphs are static dataflow, so a control-flow node is inlined:
// - If imports both branches into the outer graph and selects each output with a Where on the
//   condition (both branches are pure dataflow, so computing both changes no result), or only
//   the taken branch when the condition is a constant;
// - Loop (constant trip count and start condition) and Scan (static scan length) are unrolled:
//   one renamed copy of the body per iteration, loop-carried values threaded through, per-step
//   outputs stacked with Reshape + Concat. What the body computes from the iteration number
//   folds, as every copy sees it as a constant.
// Sequence- and optional-typed values and nested bodies are refused: Loom has tensors only.
#include <algorithm>
#include <unordered_set>

#include "compiler/frontend/onnx_internal.h"

namespace loom::frontend {
namespace {

const onnx::GraphProto* Branch(const onnx::NodeProto& n, const char* name) {
  const onnx::AttributeProto* a = FindAttr(n, name);
  return a != nullptr && a->type() == onnx::AttributeProto::GRAPH ? &a->g() : nullptr;
}

// Imports a branch; *outs gets its outputs' values.
Status ImportBranch(ImportContext& ctx, const onnx::NodeProto& n, const onnx::GraphProto& g,
                    const char* which, std::vector<ir::ValueId>* outs,
                    bool match_node_outputs = true) {
  if (match_node_outputs && g.output_size() != n.output_size()) {
    return ctx.Invalid(n, std::string(which) + " has " + std::to_string(g.output_size()) +
                              " outputs, the node " + std::to_string(n.output_size()));
  }
  for (const onnx::ValueInfoProto& o : g.output()) {
    if (o.has_type() && !o.type().has_tensor_type()) {
      return ctx.Unsupported(n, std::string(which) + " output '" + o.name() +
                                    "' is a sequence, map or optional; Loom has tensors only");
    }
  }
  LOOM_RETURN_IF_ERROR(ImportSubgraph(ctx, g).WithContext(ctx.Label(n) + ": " + which));
  outs->clear();
  for (const onnx::ValueInfoProto& o : g.output()) {
    const ir::ValueId id = ctx.Lookup(o.name());
    if (id == ir::kNoValue) {
      return ctx.Invalid(n, std::string(which) + " never produces its output '" + o.name() + "'");
    }
    outs->push_back(id);
  }
  return Status::Ok();
}

// The body with every name it defines (inputs, initializers, node outputs) suffixed, so each
// unrolled copy has its own values; names from the outer scope stay as they are.
Status RenamedBody(ImportContext& ctx, const onnx::NodeProto& n, const onnx::GraphProto& body,
                   const std::string& suffix, onnx::GraphProto* out) {
  std::unordered_set<std::string> local;
  for (const onnx::ValueInfoProto& v : body.input()) local.insert(v.name());
  for (const onnx::TensorProto& t : body.initializer()) local.insert(t.name());
  for (const onnx::NodeProto& bn : body.node()) {
    for (const onnx::AttributeProto& a : bn.attribute()) {
      if (a.type() == onnx::AttributeProto::GRAPH || a.type() == onnx::AttributeProto::GRAPHS) {
        return ctx.Unsupported(
            n, "a body with nested subgraphs (" + bn.op_type() + ") is not supported");
      }
    }
    for (const std::string& o : bn.output()) local.insert(o);
  }
  auto rename = [&](std::string* name) {
    if (!name->empty() && local.count(*name)) *name += suffix;
  };
  *out = body;
  for (onnx::ValueInfoProto& v : *out->mutable_input()) rename(v.mutable_name());
  for (onnx::ValueInfoProto& v : *out->mutable_output()) rename(v.mutable_name());
  for (onnx::TensorProto& t : *out->mutable_initializer()) rename(t.mutable_name());
  out->clear_value_info();
  for (onnx::NodeProto& bn : *out->mutable_node()) {
    for (std::string& i : *bn.mutable_input()) rename(&i);
    for (std::string& o : *bn.mutable_output()) rename(&o);
    if (!bn.name().empty()) bn.set_name(bn.name() + suffix);
  }
  return Status::Ok();
}

// One unrolled step: binds the body's inputs to `ins`, imports the copy, returns its outputs.
Status RunBody(ImportContext& ctx, const onnx::NodeProto& n, const onnx::GraphProto& body, int step,
               const std::vector<ir::ValueId>& ins, std::vector<ir::ValueId>* outs) {
  if (body.input_size() != static_cast<int>(ins.size())) {
    return ctx.Invalid(n, "the body takes " + std::to_string(body.input_size()) +
                              " inputs, the node passes " + std::to_string(ins.size()));
  }
  onnx::GraphProto copy;
  LOOM_RETURN_IF_ERROR(RenamedBody(ctx, n, body, "/iter" + std::to_string(step), &copy));
  for (int i = 0; i < copy.input_size(); ++i) {
    if (ctx.Lookup(copy.input(i).name()) != ir::kNoValue) {
      return ctx.Invalid(n, "body input '" + body.input(i).name() + "' shadows an outer value");
    }
    ctx.Bind(copy.input(i).name(), ins[static_cast<size_t>(i)]);
  }
  return ImportBranch(ctx, n, copy, ("body step " + std::to_string(step)).c_str(), outs,
                      /*match_node_outputs=*/false);
}

// Reshape of v to `shape` as an internal value.
Status ReshapeTo(ImportContext& ctx, const onnx::NodeProto& n, ir::ValueId v, ir::Shape shape,
                 const std::string& suffix, ir::ValueId* out) {
  ir::AttributeMap attrs;
  attrs["shape"] = ir::Attribute::Ints(std::move(shape));
  return ctx.EmitInternal(n, "Reshape", {v}, std::move(attrs), suffix, out);
}

// Stacks per-step values along a new `axis` into ONNX output `index` of n.
Status Stack(ImportContext& ctx, const onnx::NodeProto& n, const std::vector<ir::ValueId>& steps,
             int64_t axis, int index) {
  if (n.output(index).empty()) return Status::Ok();
  std::vector<ir::ValueId> parts;
  for (size_t t = 0; t < steps.size(); ++t) {
    ir::Shape s = ctx.graph().value(steps[t]).shape;
    if (axis < 0 || axis > static_cast<int64_t>(s.size())) {
      return ctx.Invalid(n, "scan output axis " + std::to_string(axis) + " is out of range");
    }
    s.insert(s.begin() + axis, 1);
    ir::ValueId v;
    LOOM_RETURN_IF_ERROR(ReshapeTo(ctx, n, steps[t], s,
                                   "stack" + std::to_string(index) + "_" + std::to_string(t), &v));
    parts.push_back(v);
  }
  ir::AttributeMap attrs;
  attrs["axis"] = ir::Attribute::Int(axis);
  return ctx.Emit(n, "Concat", parts, std::move(attrs), {index});
}

// Binds ONNX output `index` of n to v through an Identity, so the output keeps its name.
Status BindOutput(ImportContext& ctx, const onnx::NodeProto& n, int index, ir::ValueId v) {
  if (index >= n.output_size() || n.output(index).empty()) return Status::Ok();
  return ctx.Emit(n, "Identity", {v}, {}, {index});
}

constexpr int64_t kMaxUnroll = 4096;
// Unrolled copies times body nodes: bounds what a small model can make the importer build.
constexpr int64_t kMaxUnrolledNodes = 1 << 16;

Status CheckUnrolledSize(ImportContext& ctx, const onnx::NodeProto& n, int64_t steps,
                         const onnx::GraphProto& body) {
  const int64_t nodes = std::max<int64_t>(1, body.node_size());
  if (steps > kMaxUnrolledNodes / nodes) {
    return ctx.Unsupported(n, "unrolling " + std::to_string(steps) + " steps of a " +
                                  std::to_string(body.node_size()) + "-node body exceeds " +
                                  std::to_string(kMaxUnrolledNodes) + " nodes");
  }
  return Status::Ok();
}

}  // namespace

Status MapIf(ImportContext& ctx, const onnx::NodeProto& n, int) {
  ir::ValueId cond;
  LOOM_RETURN_IF_ERROR(ctx.Input(n, 0, &cond));
  const onnx::GraphProto* then_g = Branch(n, "then_branch");
  const onnx::GraphProto* else_g = Branch(n, "else_branch");
  if (then_g == nullptr || else_g == nullptr) {
    return ctx.Invalid(n, "needs then_branch and else_branch graphs");
  }
  const ir::Value& c = ctx.graph().value(cond);
  if (c.dtype != DType::kBool || !(c.shape.empty() || (c.shape.size() == 1 && c.shape[0] == 1))) {
    return ctx.Invalid(n, "cond must be one bool, is " + std::string(DTypeName(c.dtype)) +
                              ir::ShapeToString(c.shape));
  }
  std::vector<ir::ValueId> then_out, else_out;
  if (const ir::Tensor* k = ctx.ConstantInput(n, 0)) {
    const bool taken = k->ElementAsDouble(0) != 0;
    LOOM_RETURN_IF_ERROR(ImportBranch(ctx, n, taken ? *then_g : *else_g,
                                      taken ? "then_branch" : "else_branch", &then_out));
    for (int i = 0; i < n.output_size(); ++i) {
      if (!n.output(i).empty()) ctx.Bind(n.output(i), then_out[static_cast<size_t>(i)]);
    }
    return Status::Ok();
  }
  LOOM_RETURN_IF_ERROR(ImportBranch(ctx, n, *then_g, "then_branch", &then_out));
  LOOM_RETURN_IF_ERROR(ImportBranch(ctx, n, *else_g, "else_branch", &else_out));
  for (int i = 0; i < n.output_size(); ++i) {
    const ir::Value& t = ctx.graph().value(then_out[static_cast<size_t>(i)]);
    const ir::Value& e = ctx.graph().value(else_out[static_cast<size_t>(i)]);
    if (t.dtype != e.dtype || t.shape != e.shape) {
      return ctx.Unsupported(n, "output " + std::to_string(i) + " is " + DTypeName(t.dtype) +
                                    ir::ShapeToString(t.shape) + " in then_branch and " +
                                    DTypeName(e.dtype) + ir::ShapeToString(e.shape) +
                                    " in else_branch; with a run-time condition Loom needs one "
                                    "static type");
    }
    if (n.output(i).empty()) continue;
    LOOM_RETURN_IF_ERROR(ctx.Emit(
        n, "Where", {cond, then_out[static_cast<size_t>(i)], else_out[static_cast<size_t>(i)]}, {},
        {i}));
  }
  return Status::Ok();
}

// Loop(M, cond, v...) with body (iter, cond, v...) -> (cond, v..., scan...): unrolled M times.
Status MapLoop(ImportContext& ctx, const onnx::NodeProto& n, int) {
  const onnx::GraphProto* body = Branch(n, "body");
  if (body == nullptr) return ctx.Invalid(n, "needs a body graph");
  int64_t trips = -1;
  if (ctx.HasInput(n, 0)) {
    const ir::Tensor* m = ctx.ConstantInput(n, 0);
    if (m == nullptr || m->num_elements() != 1) {
      return ctx.Unsupported(n, "the trip count (input 0) must be a constant: Loom unrolls loops");
    }
    // Range-checked as a double first: casting an out-of-range double is undefined.
    const double m0 = m->ElementAsDouble(0);
    trips = m0 >= 0 && m0 <= static_cast<double>(kMaxUnroll) ? static_cast<int64_t>(m0) : -1;
  }
  bool running = true;
  if (ctx.HasInput(n, 1)) {
    const ir::Tensor* c = ctx.ConstantInput(n, 1);
    if (c == nullptr || c->num_elements() != 1) {
      return ctx.Unsupported(n, "the start condition (input 1) must be a constant");
    }
    running = c->ElementAsDouble(0) != 0;
  }
  if (trips < 0 || trips > kMaxUnroll) {
    return ctx.Unsupported(n, "needs a trip count in [0, " + std::to_string(kMaxUnroll) +
                                  "] (an unbounded loop is not unrolled)");
  }
  LOOM_RETURN_IF_ERROR(CheckUnrolledSize(ctx, n, trips, *body));
  const int carried = n.input_size() - 2;
  if (carried < 0 || body->output_size() < 1 + carried) {
    return ctx.Invalid(n, "body outputs must be cond, the " + std::to_string(carried) +
                              " loop-carried values, then scan outputs");
  }
  const int scans = body->output_size() - 1 - carried;
  std::vector<ir::ValueId> state;
  for (int i = 0; i < carried; ++i) {
    ir::ValueId v;
    LOOM_RETURN_IF_ERROR(ctx.Input(n, 2 + i, &v));
    state.push_back(v);
  }
  std::vector<std::vector<ir::ValueId>> scan_steps(static_cast<size_t>(scans));
  ir::ValueId cond = ctx.AddConstant(
      n.output(0) + "/cond",
      ir::Tensor::FromVector<uint8_t>(DType::kBool, {}, {static_cast<uint8_t>(running)}));
  for (int64_t t = 0; t < trips && running; ++t) {
    std::vector<ir::ValueId> ins = {
        ctx.AddConstant(n.output(0) + "/iter" + std::to_string(t),
                        ir::Tensor::FromVector<int64_t>(DType::kI64, {}, {t})),
        cond};
    ins.insert(ins.end(), state.begin(), state.end());
    std::vector<ir::ValueId> outs;
    LOOM_RETURN_IF_ERROR(RunBody(ctx, n, *body, static_cast<int>(t), ins, &outs));
    const ir::Value& c = ctx.graph().value(outs[0]);
    if (!c.is_constant() || c.constant->num_elements() != 1) {
      return ctx.Unsupported(n,
                             "the body's condition is computed at run time; Loom unrolls "
                             "only loops whose condition folds to a constant");
    }
    running = c.constant->ElementAsDouble(0) != 0;
    cond = outs[0];
    for (int i = 0; i < carried; ++i)
      state[static_cast<size_t>(i)] = outs[static_cast<size_t>(1 + i)];
    for (int k = 0; k < scans; ++k) {
      scan_steps[static_cast<size_t>(k)].push_back(outs[static_cast<size_t>(1 + carried + k)]);
    }
  }
  for (int i = 0; i < carried; ++i)
    LOOM_RETURN_IF_ERROR(BindOutput(ctx, n, i, state[static_cast<size_t>(i)]));
  for (int k = 0; k < scans; ++k) {
    if (scan_steps[static_cast<size_t>(k)].empty()) {
      return ctx.Unsupported(n, "a loop that runs no iteration has empty scan outputs");
    }
    LOOM_RETURN_IF_ERROR(Stack(ctx, n, scan_steps[static_cast<size_t>(k)], 0, carried + k));
  }
  return Status::Ok();
}

// Scan-9+ (states..., scan inputs...) and Scan-8 (sequence_lens, then the same with a leading
// batch dim, batch 1 only): unrolled over the static scan length.
Status MapScan(ImportContext& ctx, const onnx::NodeProto& n, int since) {
  const onnx::GraphProto* body = Branch(n, "body");
  if (body == nullptr) return ctx.Invalid(n, "needs a body graph");
  const int64_t num_scan = AttrInt(n, "num_scan_inputs", 0);
  const bool v8 = since < 9;
  const int first = v8 ? 1 : 0;
  if (v8 && ctx.HasInput(n, 0)) {
    return ctx.Unsupported(n,
                           "Scan-8's sequence_lens is not supported (every batch row scans "
                           "the whole sequence)");
  }
  const int states = n.input_size() - first - static_cast<int>(num_scan);
  if (num_scan < 1 || states < 0 || body->output_size() < states) {
    return ctx.Invalid(n, "num_scan_inputs " + std::to_string(num_scan) + " does not fit " +
                              std::to_string(n.input_size()) + " inputs");
  }
  const int scan_outs = body->output_size() - states;
  auto list = [&](const char* name, int64_t count) {
    std::vector<int64_t> v = AttrInts(n, name);
    if (v.empty()) v.assign(static_cast<size_t>(count), 0);
    return v;
  };
  const std::vector<int64_t> in_axes = list("scan_input_axes", num_scan);
  const std::vector<int64_t> in_dirs = list(v8 ? "directions" : "scan_input_directions", num_scan);
  const std::vector<int64_t> out_axes = list("scan_output_axes", scan_outs);
  const std::vector<int64_t> out_dirs = list("scan_output_directions", scan_outs);
  if (static_cast<int64_t>(in_axes.size()) != num_scan ||
      static_cast<int64_t>(in_dirs.size()) != num_scan ||
      static_cast<int64_t>(out_axes.size()) != scan_outs ||
      static_cast<int64_t>(out_dirs.size()) != scan_outs) {
    return ctx.Invalid(n, "scan axes and directions need one entry per scan input / output");
  }
  // Scan-8: drop the batch dim (of 1) from every input; put it back on every output.
  std::vector<ir::ValueId> ins;
  for (int i = first; i < n.input_size(); ++i) {
    ir::ValueId v;
    LOOM_RETURN_IF_ERROR(ctx.Input(n, i, &v));
    if (v8) {
      const ir::Shape s = ctx.graph().value(v).shape;
      if (s.empty() || s[0] != 1) {
        return ctx.Unsupported(n, "Scan-8 with a batch other than 1 is not supported");
      }
      LOOM_RETURN_IF_ERROR(ReshapeTo(ctx, n, v, ir::Shape(s.begin() + 1, s.end()),
                                     "unbatch" + std::to_string(i), &v));
    }
    ins.push_back(v);
  }
  std::vector<ir::ValueId> state(ins.begin(), ins.begin() + states);
  int64_t length = -1;
  std::vector<int64_t> axes(in_axes);
  for (int k = 0; k < num_scan; ++k) {
    const ir::Shape s = ctx.graph().value(ins[static_cast<size_t>(states + k)]).shape;
    int64_t& a = axes[static_cast<size_t>(k)];
    LOOM_RETURN_IF_ERROR(
        ctx.NormalizeAxis(n, "scan_input_axes", static_cast<int64_t>(s.size()), &a));
    if (length >= 0 && s[static_cast<size_t>(a)] != length) {
      return ctx.Invalid(n, "scan inputs disagree on the sequence length");
    }
    length = s[static_cast<size_t>(a)];
  }
  if (length < 1 || length > kMaxUnroll) {
    return ctx.Unsupported(n, "needs a scan length in [1, " + std::to_string(kMaxUnroll) + "]");
  }
  LOOM_RETURN_IF_ERROR(CheckUnrolledSize(ctx, n, length, *body));
  std::vector<std::vector<ir::ValueId>> steps(static_cast<size_t>(scan_outs));
  for (int64_t t = 0; t < length; ++t) {
    std::vector<ir::ValueId> body_ins = state;
    for (int k = 0; k < num_scan; ++k) {
      const ir::ValueId x = ins[static_cast<size_t>(states + k)];
      const ir::Shape s = ctx.graph().value(x).shape;
      const size_t a = static_cast<size_t>(axes[static_cast<size_t>(k)]);
      const int64_t at = in_dirs[static_cast<size_t>(k)] != 0 ? length - 1 - t : t;
      std::vector<int64_t> starts(s.size(), 0), ends(s.begin(), s.end()), one(s.size(), 1);
      starts[a] = at;
      ends[a] = at + 1;
      ir::AttributeMap attrs;
      attrs["starts"] = ir::Attribute::Ints(starts);
      attrs["ends"] = ir::Attribute::Ints(ends);
      attrs["steps"] = ir::Attribute::Ints(one);
      const std::string tag = std::to_string(k) + "_" + std::to_string(t);
      ir::ValueId slice, squeezed;
      LOOM_RETURN_IF_ERROR(
          ctx.EmitInternal(n, "Slice", {x}, std::move(attrs), "slice" + tag, &slice));
      ir::Shape inner = s;
      inner.erase(inner.begin() + static_cast<int64_t>(a));
      LOOM_RETURN_IF_ERROR(ReshapeTo(ctx, n, slice, inner, "step" + tag, &squeezed));
      body_ins.push_back(squeezed);
    }
    std::vector<ir::ValueId> outs;
    LOOM_RETURN_IF_ERROR(RunBody(ctx, n, *body, static_cast<int>(t), body_ins, &outs));
    for (int i = 0; i < states; ++i) state[static_cast<size_t>(i)] = outs[static_cast<size_t>(i)];
    for (int k = 0; k < scan_outs; ++k)
      steps[static_cast<size_t>(k)].push_back(outs[static_cast<size_t>(states + k)]);
  }
  for (int i = 0; i < states; ++i) {
    ir::ValueId v = state[static_cast<size_t>(i)];
    if (v8) {
      ir::Shape s = ctx.graph().value(v).shape;
      s.insert(s.begin(), 1);
      LOOM_RETURN_IF_ERROR(ReshapeTo(ctx, n, v, s, "rebatch" + std::to_string(i), &v));
    }
    LOOM_RETURN_IF_ERROR(BindOutput(ctx, n, i, v));
  }
  for (int k = 0; k < scan_outs; ++k) {
    std::vector<ir::ValueId>& seq = steps[static_cast<size_t>(k)];
    if (out_dirs[static_cast<size_t>(k)] != 0) std::reverse(seq.begin(), seq.end());
    int64_t axis = out_axes[static_cast<size_t>(k)];
    const int64_t rank = static_cast<int64_t>(ctx.graph().value(seq[0]).shape.size()) + 1;
    LOOM_RETURN_IF_ERROR(ctx.NormalizeAxis(n, "scan_output_axes", rank, &axis));
    if (v8) {  // stack along the sequence axis 1 of [batch 1, seq, ...]
      for (ir::ValueId& v : seq) {
        ir::Shape s = ctx.graph().value(v).shape;
        s.insert(s.begin(), 1);
        LOOM_RETURN_IF_ERROR(ReshapeTo(ctx, n, v, s, "batch" + std::to_string(k), &v));
      }
      axis = 1;
    }
    LOOM_RETURN_IF_ERROR(Stack(ctx, n, seq, axis, states + k));
  }
  return Status::Ok();
}

}  // namespace loom::frontend
