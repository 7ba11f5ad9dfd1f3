// Checks, in order: graph inputs, constants, then each node in order (registered op, arity and
// attributes, inputs defined before use, single producer, outputs typed as the op's shape function
// says), then the graph outputs. "Defined" means: a graph input, a constant, or the output of an
// earlier node.
#include "compiler/ir/verifier.h"

#include <vector>

#include "compiler/ir/op_registry.h"

namespace loom::ir {
namespace {

std::string V(const Graph& g, ValueId id) { return "%" + g.value(id).name(); }

Status CheckValueType(const Graph& g, ValueId id, const std::string& where) {
  const Value& v = g.value(id);
  if (v.dtype == DType::kUndefined)
    return InvalidArgument(where + ": " + V(g, id) + " has no type");
  for (int64_t d : v.shape) {
    if (d < 0) return InvalidArgument(where + ": " + V(g, id) + " has a negative dimension");
  }
  int64_t count = 0;
  if (Status s = NumElements(v.shape, &count); !s.ok()) {
    return InvalidArgument(where + ": " + V(g, id) + ": " + s.message());
  }
  if (v.is_constant()) {
    const Tensor& t = *v.constant;
    if (t.dtype() != v.dtype || t.shape() != v.shape) {
      return InvalidArgument(where + ": constant " + V(g, id) + " is " +
                             TypeToString(v.dtype, v.shape) + " but holds " +
                             TypeToString(t.dtype(), t.shape()));
    }
    if (t.byte_size() != static_cast<size_t>(t.num_elements()) * DTypeSize(t.dtype())) {
      return InvalidArgument(where + ": constant " + V(g, id) + " has the wrong byte size");
    }
  }
  if (v.quant) {
    Status s = CheckQuantParams(*v.quant, v.shape);
    if (!s.ok()) return InvalidArgument(where + ": " + V(g, id) + ": " + s.message());
  }
  return Status::Ok();
}

}  // namespace

Status Verify(const Graph& g) {
  // 0 = not yet defined, 1 = defined (input, constant or produced earlier).
  std::vector<char> defined(static_cast<size_t>(g.num_values()), 0);
  std::vector<char> produced(static_cast<size_t>(g.num_values()), 0);

  for (ValueId id : g.inputs()) {
    if (!g.IsValid(id)) return InvalidArgument("graph input refers to an invalid value id");
    if (g.value(id).is_constant()) {
      return InvalidArgument("graph input " + V(g, id) + " must not be a constant");
    }
    if (defined[id]) return InvalidArgument("graph input " + V(g, id) + " is listed twice");
    LOOM_RETURN_IF_ERROR(CheckValueType(g, id, "graph input"));
    defined[id] = 1;
  }
  for (ValueId id = 0; id < g.num_values(); ++id) {
    if (g.IsValid(id) && g.value(id).is_constant()) {
      LOOM_RETURN_IF_ERROR(CheckValueType(g, id, "constant"));
      defined[id] = 1;
    }
  }

  std::vector<ValueType> types;
  for (const Node* n : g.nodes()) {
    const std::string where = NodeLabel(g, *n);
    for (size_t i = 0; i < n->inputs.size(); ++i) {
      const ValueId in = n->inputs[i];
      if (in == kNoValue) continue;
      if (!g.IsValid(in)) {
        return InvalidArgument(where + ": input " + std::to_string(i) +
                               " refers to an invalid or removed value");
      }
      if (!defined[in]) {
        return InvalidArgument(where + ": input " + std::to_string(i) + " " + V(g, in) +
                               " is used before it is defined");
      }
    }
    for (size_t i = 0; i < n->outputs.size(); ++i) {
      const ValueId out = n->outputs[i];
      if (!g.IsValid(out)) {
        return InvalidArgument(where + ": output " + std::to_string(i) +
                               " refers to an invalid or removed value");
      }
      if (g.value(out).is_constant() || g.IsGraphInput(out)) {
        return InvalidArgument(where + ": output " + V(g, out) +
                               " is a constant or graph input and cannot be produced");
      }
      if (produced[out]) {
        return InvalidArgument(where + ": output " + V(g, out) + " already has a producer");
      }
      produced[out] = 1;
    }
    LOOM_RETURN_IF_ERROR(InferOutputTypes(g, *n, &types));
    for (size_t i = 0; i < n->outputs.size(); ++i) {
      const ValueId out = n->outputs[i];
      LOOM_RETURN_IF_ERROR(CheckValueType(g, out, where));
      const Value& v = g.value(out);
      if (v.dtype != types[i].dtype || v.shape != types[i].shape) {
        return InvalidArgument(where + ": output " + V(g, out) + " is recorded as " +
                               TypeToString(v.dtype, v.shape) + " but the op gives " +
                               TypeToString(types[i].dtype, types[i].shape));
      }
      defined[out] = 1;
    }
  }

  if (g.outputs().empty()) return InvalidArgument("graph has no outputs");
  for (ValueId id : g.outputs()) {
    if (!g.IsValid(id)) return InvalidArgument("graph output refers to an invalid value id");
    if (!defined[id]) return InvalidArgument("graph output " + V(g, id) + " is never defined");
    LOOM_RETURN_IF_ERROR(CheckValueType(g, id, "graph output"));
  }
  return Status::Ok();
}

}  // namespace loom::ir
