// The rewrite of quantize.h: one function per source op (the table in Run below; the rules live
// in rewrite_dense.cc and rewrite_elementwise.cc), each either
// replacing its node by a q.* node or leaving it in float. Float values whose producer was
// rewritten get an int8 twin; afterwards every float reader of such a value is fed through
// q.dequantize, and float values read by q.* ops come through q.quantize.
#include "compiler/quantize/quantize.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <set>

#include "compiler/ir/op_registry.h"
#include "compiler/passes/conv_transpose_as_conv.h"
#include "compiler/passes/rewrite_util.h"
#include "compiler/quantize/requant.h"
#include "compiler/quantize/rewriter.h"
#include "runtime/core/checked_math.h"

namespace loom::quantize::internal {

namespace {
bool IsActivationValue(const ir::Graph& g, ValueId v, bool allow_2d) {
  if (v == ir::kNoValue) return false;
  const ir::Value& val = g.value(v);
  return val.dtype == DType::kF32 && !val.is_constant() &&
         (Rank4(val.shape) || (allow_2d && val.shape.size() == 2));
}
}  // namespace

bool Rewriter::IsActivation(ValueId v, bool allow_2d) const {
  return IsActivationValue(g_, v, allow_2d);
}

namespace {
const ir::QuantParams* SymmetricHint(const ir::Value& v) {
  if (!v.quant || v.quant->per_axis() || v.quant->scales.size() != 1) return nullptr;
  if (v.quant->zero_points[0] != 0 || !(v.quant->scales[0] > 0.0f)) return nullptr;
  return &*v.quant;
}
}  // namespace

namespace {
// An asymmetric value's grid: [lo, hi] on 256 levels, lo <= 0 <= hi.
struct Grid {
  float scale = 0.0f;
  int32_t zero_point = 0;
};
// The extent's range R (of |x|) clips it on both sides, so the percentile and mse methods keep
// cutting outliers; false when nothing is left (a value that is always 0).
bool AsymmetricGrid(const Extent& e, Grid* out) {
  const double lo = std::max<double>(e.lo, -double{e.range});
  const double hi = std::min<double>(e.hi, double{e.range});
  const double s = (hi - lo) / 255.0;
  if (!(s > 0.0) || !std::isfinite(s) || lo > 0.0 || hi < 0.0) return false;
  out->scale = static_cast<float>(s);
  out->zero_point =
      static_cast<int32_t>(std::clamp(std::nearbyint(-128.0 - lo / s), -128.0, 127.0));
  return true;
}
}  // namespace

float Rewriter::ScaleOf(ValueId f, bool* given) const {
  if (const ir::QuantParams* h = SymmetricHint(g_.value(f))) {
    *given = true;
    return h->scales[0];
  }
  *given = false;
  auto alias = range_of_.find(f);
  const ValueId src = alias == range_of_.end() ? f : alias->second;
  auto it = ranges_.find(src);
  const float range = it == ranges_.end() ? 0.0f : it->second;
  Grid grid;
  if (asymmetric_.count(src) && AsymmetricGrid(options_.extents->at(src), &grid)) {
    return grid.scale;
  }
  // A value that is always 0 (or never observed) gets the scale of range 1: any scale represents 0.
  return range > 0.0f && std::isfinite(range) ? range / 127.0f : 1.0f / 127.0f;
}

int32_t Rewriter::ZeroPointOf(ValueId f) const {
  if (SymmetricHint(g_.value(f))) return 0;
  auto alias = range_of_.find(f);
  const ValueId src = alias == range_of_.end() ? f : alias->second;
  Grid grid;
  return asymmetric_.count(src) && AsymmetricGrid(options_.extents->at(src), &grid)
             ? grid.zero_point
             : 0;
}

// A value takes a zero point when every op that makes or reads it, once rewritten, can: q.conv2d
// (the bias absorbs both zero points, padding reads the input's), q.mul and q.avg_pool (offsets),
// q.max_pool and q.resize (they copy: input and output share scale and zero point, so they are
// decided together), q.quantize/q.dequantize and every float op (through them). q.add, q.concat
// and q.zero_insert cannot; graph inputs stay symmetric (the first layer's packing and images
// centred on 0), as do QDQ-hinted values.
void Rewriter::ChooseZeroPoints() {
  if (options_.extents == nullptr) return;
  std::set<ValueId> symmetric(g_.inputs().begin(), g_.inputs().end());
  symmetric.insert(options_.symmetric.begin(), options_.symmetric.end());
  static const std::set<std::string> kLaneOps = {"Mul", "HardSwish", "AveragePool",
                                                 "GlobalAveragePool"};
  // Whether an op whose offsets touch every lane would have padding lanes.
  const auto padding_lanes = [&](const Node* n) {
    if (!kLaneOps.count(n->op) || n->outputs.empty() || n->outputs[0] == ir::kNoValue) return false;
    const Shape& s = g_.value(n->outputs[0]).shape;
    if (s.size() != 4) return false;
    return (options_.block > 0 && s[1] % options_.block != 0) ||
           (options_.batch > 0 && s[0] % options_.batch != 0);
  };
  for (const Node* n : g_.nodes()) {
    if (n->op == "ConvTranspose") {  // its zero insertion writes 0; its convolution takes any
      if (n->input(0) != ir::kNoValue) symmetric.insert(n->input(0));
      continue;
    }
    if (n->op != "Add" && n->op != "Concat" && !padding_lanes(n)) continue;
    for (ValueId v : n->inputs)
      if (v != ir::kNoValue) symmetric.insert(v);
    for (ValueId v : n->outputs)
      if (v != ir::kNoValue) symmetric.insert(v);
  }
  for (ValueId v = 0; v < static_cast<ValueId>(g_.num_values()); ++v) {
    if (!g_.IsValid(v) || !IsActivation(v, true) || SymmetricHint(g_.value(v)) ||
        !options_.extents->count(v) || symmetric.count(v)) {
      continue;
    }
    asymmetric_.insert(v);
  }
  // A copying op's input and output are decided as one: both stay symmetric if one must, along
  // chains of them, until nothing changes.
  for (bool changed = true; changed;) {
    changed = false;
    for (const Node* n : g_.nodes()) {
      if ((n->op != "MaxPool" && n->op != "Resize") || n->outputs.size() != 1) continue;
      const ValueId a = n->input(0), b = n->outputs[0];
      if (a == ir::kNoValue || asymmetric_.count(a) == asymmetric_.count(b)) continue;
      asymmetric_.erase(a);
      asymmetric_.erase(b);
      changed = true;
    }
  }
}

ValueId Rewriter::Int8Of(ValueId f, const Node* before) {
  auto it = twin_.find(f);
  if (it != twin_.end()) return it->second;
  const ir::Value fv = g_.value(f);
  bool given = false;
  const float s = ScaleOf(f, &given);
  ValueId src = f;
  Shape shape = fv.shape;
  if (shape.size() == 2) {  // [N, K] travels as [N, K, 1, 1]
    shape = {shape[0], shape[1], 1, 1};
    src = g_.AddValue(fv.name() + ".4d", DType::kF32, shape);
    g_.AddNode("Reshape", {f}, {src}, {{"shape", Attribute::Ints(shape)}}, "", before);
  }
  const ValueId q = g_.AddValue(fv.name() + ".q", DType::kI8, shape);
  g_.value(q).quant = ir::QuantParams{{s}, {ZeroPointOf(f)}, -1};
  g_.AddNode("q.quantize", {src}, {q}, {}, "", before);
  twin_[f] = q;
  return q;
}

ValueId Rewriter::NewOutput(ValueId f, const Shape& shape, float scale) {
  return NewOutput(f, shape, scale, ZeroPointOf(f));
}

ValueId Rewriter::NewOutput(ValueId f, const Shape& shape, float scale, int32_t zp) {
  const ValueId q = g_.AddValue(g_.value(f).name() + ".q", DType::kI8, shape);
  g_.value(q).quant = ir::QuantParams{{scale}, {zp}, -1};
  twin_[f] = q;
  replaced_.insert(f);
  return q;
}

ValueId Rewriter::Dequantized(ValueId f, const Node* before) {
  auto it = dequantized_.find(f);
  if (it != dequantized_.end()) return it->second;
  const ValueId q = twin_.at(f);
  const ir::Value fv = g_.value(f);
  const bool reshape = g_.value(q).shape != fv.shape;
  const ValueId d = g_.AddValue(fv.name() + ".dq", DType::kF32, g_.value(q).shape);
  g_.AddNode("q.dequantize", {q}, {d}, {}, "", before);
  ValueId result = d;
  if (reshape) {
    result = g_.AddValue(fv.name() + ".dq2d", DType::kF32, fv.shape);
    g_.AddNode("Reshape", {d}, {result}, {{"shape", Attribute::Ints(fv.shape)}}, "", before);
  }
  dequantized_[f] = result;
  return result;
}

void Rewriter::Clip(const Node& src, float s_y, int32_t z_y, int64_t* lo, int64_t* hi) const {
  *lo = -128;
  *hi = 127;
  const std::string act = src.GetString("activation");
  if (act == "relu") {
    *lo = std::clamp<int64_t>(z_y, -128, 127);
  } else if (act == "clip") {
    const double l = std::nearbyint(src.GetFloat("clip_min", 0.0f) / s_y) + z_y;
    const double h = std::nearbyint(src.GetFloat("clip_max", 0.0f) / s_y) + z_y;
    *lo = static_cast<int64_t>(std::clamp(l, -128.0, 127.0));
    *hi = static_cast<int64_t>(std::clamp(h, -128.0, 127.0));
  }
}

LayerInfo& Rewriter::NewLayer(const Node& src, const char* op, ValueId f_out, float s_y,
                              bool given) {
  LayerInfo l;
  l.name = src.name.empty() ? ir::NodeLabel(g_, src) : src.name;
  l.source_op = src.op;
  l.op = op;
  l.float_output = f_out;
  l.output_scale = s_y;
  l.given_scale = given;
  res_->layers.push_back(std::move(l));
  return res_->layers.back();
}

void Rewriter::SweepDeadNodes(bool float_only) {
  for (bool changed = true; changed;) {
    changed = false;
    const std::vector<Node*> order = g_.nodes();
    for (auto it = order.rbegin(); it != order.rend(); ++it) {
      if (float_only && (*it)->op.rfind("q.", 0) == 0) continue;
      bool used = false;
      for (ValueId o : (*it)->outputs) used = used || g_.NumUses(o) > 0;
      if (!used) {
        g_.EraseNode(*it);
        changed = true;
      }
    }
  }
}

// The fusion pass folds Relu/Clip into the Conv, Gemm or Add before it as an attribute, which
// only q.* ops and the interpreter read; a package's CPU float ops carry no such epilogue. So a
// node that stays float (a dilated convolution, a broadcasting Add) gets its Relu or Clip back.
void Rewriter::UnfuseActivation(Node& n) {
  const std::string act = n.GetString("activation");
  if (act.empty()) return;
  const ValueId y = n.outputs[0];
  const ir::Value yv = g_.value(y);
  const std::string base = Base(n);
  const ValueId raw = g_.AddValue(yv.name() + ".pre_act", yv.dtype, yv.shape);
  n.outputs[0] = raw;
  std::vector<ValueId> ins{raw};
  if (act == "clip") {
    for (const char* bound : {"clip_min", "clip_max"}) {
      ins.push_back(Constant(base + "." + bound, ir::Tensor::FromVector<float>(
                                                     DType::kF32, {}, {n.GetFloat(bound, 0)})));
    }
  }
  for (const char* key : {"activation", "clip_min", "clip_max"}) n.attrs.erase(key);
  g_.AddNode(act == "clip" ? "Clip" : "Relu", ins, {y}, {}, base + "." + act);
}

Status Rewriter::Run() {
  // Source op -> its rewrite (each one-line rule is documented in quantize.h).
  static const std::map<std::string, RewriteFn> kRules = {
      {"Conv", &Rewriter::RewriteConv},
      {"ConvTranspose", &Rewriter::RewriteConvTranspose},
      {"Gemm", &Rewriter::RewriteGemm},
      {"MatMul", &Rewriter::RewriteMatMul},
      {"Add", &Rewriter::RewriteAdd},
      {"Mul", &Rewriter::RewriteMul},
      {"HardSwish", &Rewriter::RewriteHardSwish},
      {"MaxPool", &Rewriter::RewriteMaxPool},
      {"AveragePool", &Rewriter::RewriteAveragePool},
      {"GlobalAveragePool", &Rewriter::RewriteGlobalAveragePool},
      {"Concat", &Rewriter::RewriteConcat},
      {"Resize", &Rewriter::RewriteResize},
  };
  ChooseZeroPoints();
  const std::vector<Node*> order = g_.nodes();
  for (Node* n : order) {
    if (n->op.rfind("q.", 0) == 0) continue;
    auto it = kRules.find(n->op);
    bool done = false;
    if (it != kRules.end()) LOOM_RETURN_IF_ERROR((this->*(it->second))(*n, &done));
  }
  // Float nodes only read by rewritten ones (a Flatten before a dense layer) go first; the q.*
  // nodes' outputs get their readers below.
  SweepDeadNodes(true);
  for (Node* n : std::vector<Node*>(g_.nodes())) {
    if (n->op.rfind("q.", 0) != 0) UnfuseActivation(*n);
  }
  // Float readers of rewritten values read them through q.dequantize.
  const std::vector<Node*> after = g_.nodes();
  for (Node* n : after) {
    if (n->op.rfind("q.", 0) == 0) continue;
    for (ValueId& in : n->inputs) {
      if (in != ir::kNoValue && replaced_.count(in)) in = Dequantized(in, n);
    }
    res_->float_ops.push_back(ir::NodeLabel(g_, *n));
  }
  for (ValueId& out : g_.mutable_outputs()) {
    if (!replaced_.count(out)) continue;
    const ValueId f = out;
    const ValueId d = Dequantized(f, nullptr);
    const std::string name = g_.value(f).name();
    LOOM_RETURN_IF_ERROR(g_.RenameValue(f, g_.UniqueName(name + ".fp32")));
    LOOM_RETURN_IF_ERROR(g_.RenameValue(d, name));
    out = d;
  }
  SweepDeadNodes(false);
  g_.RemoveDeadValues();
  return g_.TopologicalSort();
}

}  // namespace loom::quantize::internal

namespace loom::quantize {

Status QuantizeGraph(ir::Graph& g, const Ranges& ranges, QuantizeResult* result,
                     const QuantizeOptions& options) {
  *result = QuantizeResult();
  internal::Rewriter r(g, ranges, result, options);
  return r.Run();
}

}  // namespace loom::quantize
