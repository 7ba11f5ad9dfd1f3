#include "compiler/ir/printer.h"

#include <cmath>
#include <cstdio>
#include <cstring>
#include <sstream>
#include <vector>

namespace loom::ir {
namespace {

bool IsBareChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
         c == '.' || c == '-' || c == '/';
}

std::string Quote(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (static_cast<unsigned char>(c) < 0x20 || static_cast<unsigned char>(c) >= 0x7f) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02x", static_cast<unsigned char>(c));
      out += buf;
    } else {
      out += c;
    }
  }
  return out + "\"";
}

std::string Ref(const Graph& g, ValueId id) {
  if (id == kNoValue) return "_";
  if (!g.IsValid(id)) return "%<invalid:" + std::to_string(id) + ">";
  return "%" + FormatName(g.value(id).name());
}

template <typename T, typename F>
std::string List(const std::vector<T>& items, F format) {
  std::string s = "[";
  for (size_t i = 0; i < items.size(); ++i) {
    if (i) s += ", ";
    s += format(items[i]);
  }
  return s + "]";
}

std::string FormatElements(const Tensor& t) {
  std::string s = "[";
  for (int64_t i = 0; i < t.num_elements(); ++i) {
    if (i) s += ", ";
    if (t.dtype() == DType::kF32) {
      s += FormatFloat(t.data<float>()[i]);
    } else if (IsFloat(t.dtype())) {
      s += FormatFloat(static_cast<float>(t.ElementAsDouble(i)));
    } else if (t.dtype() == DType::kI64) {
      s += std::to_string(t.data<int64_t>()[i]);
    } else {
      s += std::to_string(static_cast<int64_t>(t.ElementAsDouble(i)));
    }
  }
  return s + "]";
}

std::string FormatTensorLiteral(const Tensor& t, int64_t inline_elements = kInlineElements) {
  std::string s = "#" + ShortHash(t);
  if (inline_elements < 0 || t.num_elements() <= inline_elements) s += " " + FormatElements(t);
  return s;
}

std::string FormatAttr(const Attribute& a) {
  switch (a.kind()) {
    case Attribute::Kind::kInt:
      return std::to_string(a.i());
    case Attribute::Kind::kFloat:
      return FormatFloat(a.f());
    case Attribute::Kind::kString:
      return Quote(a.s());
    case Attribute::Kind::kInts:
      return List(a.ints(), [](int64_t v) { return std::to_string(v); });
    case Attribute::Kind::kFloats:
      // An empty list would read back as ints; spell its kind.
      if (a.floats().empty()) return "floats[]";
      return List(a.floats(), [](float v) { return FormatFloat(v); });
    case Attribute::Kind::kTensor:
      return "tensor<" + TypeToString(a.tensor().dtype(), a.tensor().shape()) + " " +
             FormatTensorLiteral(a.tensor()) + ">";
  }
  return "?";
}

}  // namespace

std::string FormatName(const std::string& name) {
  bool bare = !name.empty();
  for (char c : name) bare = bare && IsBareChar(c);
  return bare ? name : Quote(name);
}

std::string FormatFloat(float v) {
  if (std::isnan(v)) {
    uint32_t bits = 0;
    std::memcpy(&bits, &v, sizeof bits);
    if (bits == 0x7fc00000u) return "nan";
    if (bits == 0xffc00000u) return "-nan";
    char buf[24];
    std::snprintf(buf, sizeof buf, "nan(0x%08x)", bits);
    return buf;
  }
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.9g", static_cast<double>(v));
  std::string s = buf;
  if (s.find_first_of(".e") == std::string::npos) s += ".0";
  return s;
}

std::string FormatValueType(const Value& v) {
  std::string s = TypeToString(v.dtype, v.shape);
  if (v.layout != Layout::kPlain) s += std::string(" layout(") + LayoutName(v.layout) + ")";
  if (v.quant) {
    const QuantParams& q = *v.quant;
    auto zp = [](int32_t z) { return std::to_string(z); };
    if (q.per_axis()) {
      s += " quant(axis=" + std::to_string(q.axis) +
           ", scale=" + List(q.scales, [](float f) { return FormatFloat(f); }) +
           ", zero_point=" + List(q.zero_points, zp) + ")";
    } else if (!q.scales.empty() && !q.zero_points.empty()) {
      s += " quant(scale=" + FormatFloat(q.scales[0]) +
           ", zero_point=" + std::to_string(q.zero_points[0]) + ")";
    }
  }
  return s;
}

std::string PrintNode(const Graph& g, const Node& n) {
  std::string s;
  for (size_t i = 0; i < n.outputs.size(); ++i) {
    if (i) s += ", ";
    s += Ref(g, n.outputs[i]);
    if (g.IsValid(n.outputs[i])) s += ": " + FormatValueType(g.value(n.outputs[i]));
  }
  s += " = " + n.op + "(";
  for (size_t i = 0; i < n.inputs.size(); ++i) {
    if (i) s += ", ";
    s += Ref(g, n.inputs[i]);
  }
  s += ")";
  if (!n.attrs.empty()) {
    s += " {";
    bool first = true;
    for (const auto& [name, attr] : n.attrs) {
      if (!first) s += ", ";
      first = false;
      s += FormatName(name) + " = " + FormatAttr(attr);
    }
    s += "}";
  }
  if (!n.name.empty()) s += " @" + FormatName(n.name);
  return s;
}

void PrintGraph(const Graph& g, std::ostream& os, const PrintOptions& options) {
  os << "graph";
  if (!g.name.empty()) os << " @" << FormatName(g.name);
  os << "(";
  for (size_t i = 0; i < g.inputs().size(); ++i) {
    const ValueId id = g.inputs()[i];
    os << (i ? ", " : "") << Ref(g, id);
    if (g.IsValid(id)) os << ": " << FormatValueType(g.value(id));
  }
  os << ") {\n";
  // Constants in order of first use, each once.
  std::vector<char> listed(static_cast<size_t>(g.num_values()), 0);
  auto list_constant = [&](ValueId id) {
    if (!g.IsValid(id) || listed[id] || !g.value(id).is_constant()) return;
    listed[id] = 1;
    const Value& v = g.value(id);
    os << "  " << Ref(g, id) << ": " << FormatValueType(v) << " = const "
       << FormatTensorLiteral(*v.constant, options.inline_elements) << "\n";
  };
  for (const Node* n : g.nodes()) {
    for (ValueId in : n->inputs) list_constant(in);
  }
  for (ValueId id : g.outputs()) list_constant(id);
  for (const Node* n : g.nodes()) os << "  " << PrintNode(g, *n) << "\n";
  os << "  return";
  for (size_t i = 0; i < g.outputs().size(); ++i) {
    os << (i ? ", " : " ") << Ref(g, g.outputs()[i]);
  }
  os << "\n}\n";
}

std::string PrintGraph(const Graph& g, const PrintOptions& options) {
  std::ostringstream os;
  PrintGraph(g, os, options);
  return os.str();
}

}  // namespace loom::ir
