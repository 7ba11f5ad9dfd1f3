// ImportPrequantized (quantize.h): adopts the scales of a QDQ model before the float pipeline.
#include <cmath>
#include <string>

#include "compiler/ir/op_registry.h"
#include "compiler/quantize/quantize.h"

namespace loom::quantize {
namespace {

using ir::Node;
using ir::ValueId;

// Scale (f32 constant) and zero point (constant) of a Q/DQ node; false when either is not constant.
bool QdqParams(const ir::Graph& g, const Node& n, std::vector<float>* scales,
               std::vector<double>* zps) {
  const ir::Value& s = g.value(n.input(1));
  const ir::Value& z = g.value(n.input(2));
  if (!s.is_constant() || !z.is_constant() || s.dtype != DType::kF32) return false;
  scales->assign(s.constant->data<float>(), s.constant->data<float>() + s.constant->num_elements());
  zps->clear();
  for (int64_t i = 0; i < z.constant->num_elements(); ++i) zps->push_back(z.constant->ElementAsDouble(i));
  return true;
}

bool AllZero(const std::vector<double>& v) {
  for (double d : v) {
    if (d != 0.0) return false;
  }
  return true;
}

}  // namespace

Status ImportPrequantized(ir::Graph& g, std::vector<std::string>* warnings) {
  const std::vector<Node*> order = g.nodes();
  for (Node* n : order) {
    if (n->erased()) continue;
    std::vector<float> scales;
    std::vector<double> zps;
    if (n->op == "DequantizeLinear" && g.value(n->input(0)).is_constant()) {
      // A weight: fold to float, remembering its scales.
      const ir::Value& x = g.value(n->input(0));
      if (!QdqParams(g, *n, &scales, &zps)) continue;
      if (x.dtype != DType::kI8 || !AllZero(zps)) {
        warnings->push_back(ir::NodeLabel(g, *n) +
                            ": asymmetric weight quantization is re-quantized symmetrically "
                            "(its scales are not kept)");
        continue;
      }
      const int64_t axis = n->GetInt("axis", 1);
      const ir::Shape shape = x.shape;
      ir::Tensor f;
      LOOM_RETURN_IF_ERROR(ir::Tensor::Create(DType::kF32, shape, &f)
                               .WithContext(ir::NodeLabel(g, *n) + ": float weights"));
      const int8_t* q = x.constant->data<int8_t>();
      float* out = f.mutable_data<float>();
      int64_t inner = 1;
      const bool per_axis = scales.size() > 1;
      if (per_axis) {
        for (size_t d = static_cast<size_t>(axis) + 1; d < shape.size(); ++d) inner *= shape[d];
      }
      for (int64_t i = 0; i < f.num_elements(); ++i) {
        const size_t c = per_axis ? static_cast<size_t>((i / inner) % shape[static_cast<size_t>(axis)]) : 0;
        out[i] = static_cast<float>(q[i]) * scales[c];
      }
      const ValueId c = g.AddConstant(g.value(n->outputs[0]).name() + ".w", std::move(f));
      ir::QuantParams hint;
      hint.scales = scales;
      hint.zero_points.assign(scales.size(), 0);
      hint.axis = per_axis ? static_cast<int>(axis) : -1;
      g.value(c).quant = hint;
      g.ReplaceAllUsesWith(n->outputs[0], c);
      g.EraseNode(n);
      continue;
    }
    if (n->op != "QuantizeLinear") continue;
    // An activation Q -> DQ pair.
    if (!QdqParams(g, *n, &scales, &zps)) continue;
    const ValueId qv = n->outputs[0];
    const DType qt = g.value(qv).dtype;
    if (qt != DType::kI8 || !AllZero(zps)) {
      return InvalidArgument(ir::NodeLabel(g, *n) + ": asymmetric activation quantization (" +
                             DTypeName(qt) + ", zero point " +
                             std::to_string(static_cast<long long>(zps.empty() ? 0.0 : zps[0])) +
                             ") is not supported: Loom's int8 activations are symmetric "
                             "(int8, zero point 0); re-export the model with symmetric "
                             "activations or give the float model");
    }
    if (scales.size() != 1) {
      return InvalidArgument(ir::NodeLabel(g, *n) +
                             ": per-channel activation scales are not supported (Loom quantizes "
                             "activations per tensor)");
    }
    const ValueId x = n->input(0);
    bool all_dq = true;
    for (const ir::Use& u : g.Uses(qv)) {
      std::vector<float> s2;
      std::vector<double> z2;
      all_dq = all_dq && u.node->op == "DequantizeLinear" && QdqParams(g, *u.node, &s2, &z2) &&
               s2 == scales && AllZero(z2);
    }
    if (!all_dq || g.IsGraphOutput(qv)) {
      warnings->push_back(ir::NodeLabel(g, *n) +
                          ": quantized tensor feeds an ONNX integer op; it stays on the CPU");
      continue;
    }
    for (const ir::Use& u : g.Uses(qv)) {
      g.ReplaceAllUsesWith(u.node->outputs[0], x);
      g.EraseNode(u.node);
    }
    g.EraseNode(n);
    g.value(x).quant = ir::QuantParams{{scales[0]}, {0}, -1};
  }
  for (const Node* n : g.nodes()) {
    if (n->op == "QLinearConv" || n->op == "QLinearMatMul" || n->op == "ConvInteger" ||
        n->op == "MatMulInteger") {
      warnings->push_back(ir::NodeLabel(g, *n) + ": " + n->op +
                          " is kept as an ONNX integer op on the CPU (not offloaded)");
    }
  }
  g.RemoveDeadValues();
  return Status::Ok();
}

}  // namespace loom::quantize
