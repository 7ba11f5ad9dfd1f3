#include "compiler/partition/partition.h"

#include <algorithm>
#include <cstdio>
#include <limits>
#include <utility>

#include "compiler/ir/op_registry.h"
#include "compiler/passes/conv_transpose_as_conv.h"
#include "compiler/tensorize/concat.h"
#include "compiler/tensorize/conv2d.h"
#include "compiler/tensorize/eltwise.h"
#include "compiler/tensorize/mul.h"
#include "compiler/tensorize/resize.h"
#include "runtime/core/blocked_layout.h"
#include "runtime/core/checked_math.h"
#include "runtime/core/conv_groups.h"

namespace loom::partition {
namespace {

using Predicate = bool (*)(const ir::Graph& g, const ir::Node& n, const HwConfig& c,
                           std::string* why_not);

// The node's window in the tensorizer's 32-bit fields; false (the node stays on the CPU) when a
// value does not fit, rather than a truncated stride or pad the accelerator would then run.
bool WindowOf(const ir::Node& n, tensorize::Window2d* w, std::string* why) {
  const auto k = n.GetInts("kernel"), s = n.GetInts("strides"), p = n.GetInts("pads");
  if (k.size() == 2 && s.size() == 2 && p.size() == 4 && CheckedCast(k[0], &w->kh) &&
      CheckedCast(k[1], &w->kw) && CheckedCast(s[0], &w->stride_h) &&
      CheckedCast(s[1], &w->stride_w) && CheckedCast(p[0], &w->pad_top) &&
      CheckedCast(p[1], &w->pad_left) && CheckedCast(p[2], &w->pad_bottom) &&
      CheckedCast(p[3], &w->pad_right)) {
    return true;
  }
  *why = "window attributes beyond the accelerator's 32-bit fields";
  return false;
}

// a * b, or INT64_MAX when that overflows: MAC counts are for reports, and a saturated count
// still orders layers correctly.
int64_t SaturatingMul(int64_t a, int64_t b) {
  int64_t r = 0;
  return CheckedMul(a, b, &r) ? r : std::numeric_limits<int64_t>::max();
}
int64_t SaturatingAdd(int64_t a, int64_t b) {
  int64_t r = 0;
  return CheckedAdd(a, b, &r) ? r : std::numeric_limits<int64_t>::max();
}

// The logical NCHW shape of a node's input as four 32-bit dims; false if it is not 4-D or too big.
bool Nchw(const ir::Graph& g, ir::ValueId v, uint32_t out[4]) {
  const ir::Shape& s = g.value(v).shape;
  if (s.size() != 4) return false;
  for (size_t i = 0; i < 4; ++i) {
    if (s[i] < 1 || s[i] > (int64_t{1} << 30)) return false;
    out[i] = static_cast<uint32_t>(s[i]);
  }
  return true;
}

// What the tensorizer itself accepts (Conv2dLayer::Check): DMA padding field, loop fields, buffer
// and micro-op fit. There is no second list of limits here.
bool ConvLowers(const ir::Graph& g, const ir::Node& n, const HwConfig& c, std::string* why) {
  uint32_t x[4], y[4];
  if (!Nchw(g, n.input(0), x) || !Nchw(g, n.outputs[0], y)) {
    *why = "not a 4-D activation";
    return false;
  }
  // A grouped convolution runs as one layer per group (lower_accel.cc): its groups must be whole
  // channel blocks (a short last one ending in the last block) over one batch block, so that each
  // group's channels, weights and outputs are contiguous.
  const uint64_t group = static_cast<uint64_t>(n.GetInt("group", 1));
  uint32_t gc = x[1], go = y[1];
  if (group != 1) {
    const uint64_t wc = static_cast<uint64_t>(g.value(n.input(1)).shape[1]);
    const uint64_t wo = GroupOutChannels(x[1], y[1], wc);
    if (x[0] > c.batch || !GroupsOfWholeBlocks(group, x[1], y[1], wc, c.block_in)) {
      *why = "grouped convolution (group " + std::to_string(group) +
             "): the accelerator runs groups of whole channel blocks over one batch block";
      return false;
    }
    gc = static_cast<uint32_t>(wc);
    go = static_cast<uint32_t>(wo);
  }
  tensorize::Window2d w;
  if (!WindowOf(n, &w, why)) return false;
  tensorize::Conv2dLayer l = tensorize::Conv2dGeometry(c, n.name, x[0], gc, x[2], x[3], go, w);
  l.depthwise = n.GetInt("depthwise", 0) != 0;
  if (Status st = l.Check(c); !st.ok()) {
    *why = st.message();
    return false;
  }
  return true;
}

bool AddLowers(const ir::Graph& g, const ir::Node& n, const HwConfig& c, std::string* why) {
  uint32_t a[4], b[4];
  if (!Nchw(g, n.input(0), a) || !Nchw(g, n.input(1), b) || !std::equal(a, a + 4, b)) {
    *why = "inputs are not 4-D activations of one shape";
    return false;
  }
  tensorize::AddLayer l;
  l.name = n.name;
  uint64_t elems = 0;
  if (!BlockedActivationVectors(a[0], a[1], a[2], a[3], c.batch, c.block_in, &elems) ||
      elems > UINT32_MAX) {
    *why = "tensor larger than the DMA's element addresses";
    return false;
  }
  l.elems = static_cast<uint32_t>(elems);
  l.mult_a = static_cast<int32_t>(n.GetInt("mult_a", 1));
  l.mult_b = static_cast<int32_t>(n.GetInt("mult_b", 1));
  l.shift = static_cast<int32_t>(n.GetInt("shift", 0));
  l.clip_lo = static_cast<int32_t>(n.GetInt("clip_lo", -128));
  l.clip_hi = static_cast<int32_t>(n.GetInt("clip_hi", 127));
  if (Status st = l.Check(c); !st.ok()) {
    *why = st.message();
    return false;
  }
  return true;
}

bool MulLowers(const ir::Graph& g, const ir::Node& n, const HwConfig& c, std::string* why) {
  uint32_t a[4], b[4];
  if (!Nchw(g, n.input(0), a) || !Nchw(g, n.input(1), b)) {
    *why = "inputs are not 4-D activations";
    return false;
  }
  const bool per_channel = !std::equal(a, a + 4, b);
  tensorize::MulLayer l = tensorize::MulGeometry(c, n.name, a[0], a[1], a[2], a[3], per_channel);
  // Attributes are int64 in the IR (and in IR text): a value beyond int32 is refused, not cut.
  const std::pair<const char*, std::pair<int32_t*, int64_t>> attrs[] = {
      {"mult", {&l.mult, 1}},
      {"b_mult", {&l.b_mult, 1}},
      {"b_offset", {&l.b_offset, 0}},
      {"b_lo", {&l.b_lo, -128}},
      {"b_hi", {&l.b_hi, 127}},
      {"pre_shift", {&l.pre_shift, 0}},
      {"post_shift", {&l.post_shift, 0}},
      {"clip_lo", {&l.clip_lo, -128}},
      {"clip_hi", {&l.clip_hi, 127}},
      {"a_offset", {&l.a_offset, 0}},
      {"out_offset", {&l.out_offset, 0}},
  };
  for (const auto& [name, field] : attrs) {
    if (!CheckedCast(n.GetInt(name, field.second), field.first)) {
      *why = std::string("attribute ") + name + " is beyond 32 bits";
      return false;
    }
  }
  // Check refuses zero-point offsets on tensors with padding lanes (MulLayer::offsets_fit).
  if (Status st = l.Check(c); !st.ok()) {
    *why = st.message();
    return false;
  }
  return true;
}

bool ConcatLowers(const ir::Graph& g, const ir::Node& n, const HwConfig& c, std::string* why) {
  const auto mults = n.GetInts("mults"), shifts = n.GetInts("shifts");
  uint32_t y[4];
  if (!Nchw(g, n.outputs[0], y) || mults.size() != n.inputs.size() ||
      shifts.size() != n.inputs.size()) {
    *why = "not a 4-D concatenation with one multiplier and shift per input";
    return false;
  }
  tensorize::ConcatLayer l;
  l.name = n.name;
  l.n_blocks = CeilDiv(y[0], c.batch);
  l.plane_elems = y[2] * y[3];
  for (size_t i = 0; i < n.inputs.size(); ++i) {
    uint32_t x[4];
    if (!Nchw(g, n.inputs[i], x)) {
      *why = "not a 4-D concatenation";
      return false;
    }
    tensorize::ConcatLayer::Input in;
    in.channels = x[1];
    if (!CheckedCast(mults[i], &in.mult) || !CheckedCast(shifts[i], &in.shift)) {
      *why = "multiplier or shift beyond 32 bits";
      return false;
    }
    l.inputs.push_back(in);
  }
  if (Status st = l.Check(c); !st.ok()) {
    *why = st.message();
    return false;
  }
  return true;
}

// q.resize and q.zero_insert share the copy pattern (a zero insertion copies phase (0, 0) only).
bool ResizeLowers(const ir::Graph& g, const ir::Node& n, const HwConfig& c, std::string* why) {
  const bool zeros = n.op == "q.zero_insert";
  uint32_t x[4];
  uint32_t fh = 0, fw = 0;
  if (!Nchw(g, n.input(0), x) || !CheckedCast(n.GetInt(zeros ? "stride_h" : "factor_h", 0), &fh) ||
      !CheckedCast(n.GetInt(zeros ? "stride_w" : "factor_w", 0), &fw)) {
    *why = "not a 4-D activation with 32-bit factors";
    return false;
  }
  tensorize::ResizeLayer l = tensorize::ResizeGeometry(c, n.name, x[0], x[1], x[2], x[3], fh, fw);
  l.zeros = zeros;
  if (Status st = l.Check(c); !st.ok()) {
    *why = st.message();
    return false;
  }
  return true;
}

// Any padding: the accelerator pads a max pool with -128 (PoolGeometry), which never wins.
bool MaxPoolLowers(const ir::Graph& g, const ir::Node& n, const HwConfig& c, std::string* why) {
  uint32_t x[4];
  if (!Nchw(g, n.input(0), x)) {
    *why = "not a 4-D activation";
    return false;
  }
  tensorize::Window2d w;
  if (!WindowOf(n, &w, why)) return false;
  const tensorize::PoolLayer l = tensorize::PoolGeometry(c, n.name, x[0], x[1], x[2], x[3], w);
  if (Status st = l.Check(c); !st.ok()) {
    *why = st.message();
    return false;
  }
  return true;
}

bool AvgPoolLowers(const ir::Graph& g, const ir::Node& n, const HwConfig& c, std::string* why) {
  bool zero_pads = true;
  for (int64_t p : n.GetInts("pads")) zero_pads = zero_pads && p == 0;
  if (!zero_pads && n.GetInt("count_include_pad", 0) == 0) {
    *why = "padded average pooling whose divisor varies at the border";
    return false;
  }
  uint32_t x[4];
  const ir::Value& mults = g.value(n.input(1));
  if (!Nchw(g, n.input(0), x) || !mults.is_constant()) {
    *why = "not a 4-D activation with constant multipliers";
    return false;
  }
  tensorize::Window2d w;
  if (!WindowOf(n, &w, why)) return false;
  tensorize::PoolLayer l = tensorize::PoolGeometry(c, n.name, x[0], x[1], x[2], x[3], w);
  const int64_t count = int64_t{l.kh} * l.kw;
  if (mults.constant->num_elements() < count) {
    *why = "mult_by_count shorter than the window";
    return false;
  }
  l.average = true;
  l.mult = mults.constant->data<int32_t>()[count - 1];
  l.pre_shift = static_cast<int32_t>(n.GetInt("pre_shift", 0));
  l.post_shift = static_cast<int32_t>(n.GetInt("post_shift", 0));
  l.clip_lo = static_cast<int32_t>(n.GetInt("clip_lo", -128));
  l.clip_hi = static_cast<int32_t>(n.GetInt("clip_hi", 127));
  int32_t x_offset = 0, out_offset = 0;
  if (!CheckedCast(n.GetInt("x_offset", 0), &x_offset) ||
      !CheckedCast(n.GetInt("out_offset", 0), &out_offset)) {
    *why = "zero-point offsets beyond 32 bits";
    return false;
  }
  tensorize::SetAverageOffsets(x_offset, out_offset, &l);
  // Check refuses offsets on tensors with padding lanes (PoolLayer::offsets_fit) and a padded
  // layer whose input zero point is no int8 pad value.
  if (Status st = l.Check(c); !st.ok()) {
    *why = st.message();
    return false;
  }
  return true;
}

struct Rule {
  const char* op;
  Predicate fits;
};

// The offload table: op -> when it runs on the accelerator. Ops without a row run on the CPU.
const Rule kRules[] = {
    {"q.conv2d", ConvLowers},    // groups 1 or depthwise; what tensorize takes
    {"q.add", AddLowers},        // GEMM identity copy + ALU; same shapes, 16-bit multipliers
    {"q.mul", MulLowers},        // identity copy, clamp of b, register MUL; offsets: no pad lanes
    {"q.concat", ConcatLowers},  // copies of channel blocks (+ ALU rescale); block-aligned inputs
    {"q.resize", ResizeLowers},  // identity copy, one micro-op per output phase; rows fit buffers
    {"q.zero_insert", ResizeLowers},  // resize's copy of phase (0, 0) only; rows fit buffers
    {"q.max_pool", MaxPoolLowers},    // ALU max; pads with -128; rows fit the buffers
    {"q.avg_pool", AvgPoolLowers},    // ALU sums + requant; one divisor; offsets: no pad lanes
};

int64_t Elems(const ir::Graph& g, ir::ValueId id) { return ir::NumElementsUnchecked(g.value(id).shape); }

// Why a node without an offload rule runs on the CPU, in the terms of mixed precision: a
// conversion at an int8 boundary, an int8 op the accelerator has no lowering for, or an op the
// quantizer left in float (no int8 kernel) or whose type is not a quantized one.
std::string NoRuleReason(const ir::Graph& g, const ir::Node& n) {
  if (n.op == "q.quantize" || n.op == "q.dequantize") return "float <-> int8 boundary";
  if (n.op == "q.relayout") return "int8 layout change (blocked <-> plain)";
  if (n.op.rfind("q.", 0) == 0) return "no accelerator lowering for " + n.op;
  if (n.op == "ConvTranspose") {  // what keeps it from zero insertion + q.conv2d
    const std::string why = passes::ConvTransposeAsConv(g, n, nullptr);
    if (!why.empty()) return why + ": stays float32 between dequantize and quantize";
  }
  if (n.op == "Conv") {  // what kept the quantizer from q.conv2d (quantize.h)
    for (int64_t d : n.GetInts("dilations")) {
      if (d != 1) return "dilated convolution: stays float32 between dequantize and quantize";
    }
    const ir::Shape& w = g.value(n.input(1)).shape;
    const int64_t group = n.GetInt("group", 1);
    const bool depthwise = w.size() == 4 && w[0] == group && w[1] == 1;
    if (group != 1 && !depthwise) {
      return "grouped convolution (group " + std::to_string(group) +
             ") whose groups merge neither into whole channel blocks nor into one: stays float32 "
             "between dequantize and quantize";
    }
  }
  for (ir::ValueId v : n.outputs) {
    if (v == ir::kNoValue) continue;
    const DType t = g.value(v).dtype;
    if (t != DType::kF32) {
      return std::string("dtype ") + DTypeName(t) + ": the accelerator computes int8 only";
    }
  }
  return "no int8 kernel for " + n.op + ": stays float32 between dequantize and quantize";
}

}  // namespace

int64_t NodeMacs(const ir::Graph& g, const ir::Node& n) {
  if (n.outputs.empty()) return 0;
  const int64_t out = Elems(g, n.outputs[0]);
  if (n.op == "q.conv2d" || n.op == "Conv") {
    // Weights [M, C/group, K1..Ks]: each output sums C/group x K1 x .. x Ks products (a float
    // Conv may be 1-D or 3-D).
    const ir::Shape& w = g.value(n.input(1)).shape;
    int64_t per_output = 1;
    for (size_t d = 1; d < w.size(); ++d) per_output = SaturatingMul(per_output, w[d]);
    return SaturatingMul(out, per_output);
  }
  if (n.op == "ConvTranspose") {
    // Every input element meets M/group x K1 x .. x Ks weights (w: [C, M/group, K...]).
    const ir::Shape& w = g.value(n.input(1)).shape;
    int64_t per_input = 1;
    for (size_t d = 1; d < w.size(); ++d) per_input = SaturatingMul(per_input, w[d]);
    return SaturatingMul(Elems(g, n.input(0)), per_input);
  }
  if (n.op == "Gemm" || n.op == "MatMul") {
    const ir::Shape& a = g.value(n.input(0)).shape;
    if (a.empty()) return 0;
    const bool trans_a = n.op == "Gemm" && n.GetInt("transA", 0) != 0;
    return SaturatingMul(out, trans_a ? a.front() : a.back());
  }
  if (n.op == "q.max_pool" || n.op == "q.avg_pool") {
    const auto k = n.GetInts("kernel");
    return k.size() == 2 ? SaturatingMul(SaturatingMul(out, k[0]), k[1]) : 0;
  }
  if (n.op == "q.add" || n.op == "q.mul" || n.op == "Add" || n.op == "Mul" || n.op == "Sub") {
    return out;
  }
  return 0;
}

Status PartitionGraph(ir::Graph& g, const HwConfig& config, PartitionReport* report) {
  return PartitionGraph(g, config, PartitionOptions{}, report);
}

Status PartitionGraph(ir::Graph& g, const HwConfig& config, const PartitionOptions& options,
                      PartitionReport* report) {
  if (config.block_in != config.block_out) {
    return InvalidArgument("config " + config.name + ": the accelerator needs block_in == block_out");
  }
  *report = PartitionReport();
  for (ir::Node* n : g.nodes()) {
    NodePlacement p;
    p.name = n->name.empty() ? ir::NodeLabel(g, *n) : n->name;
    p.op = n->op;
    p.macs = NodeMacs(g, *n);
    p.target = "cpu";
    const Rule* rule = nullptr;
    for (const Rule& r : kRules) {
      if (n->op == r.op) rule = &r;
    }
    if (rule == nullptr) {
      p.reason = NoRuleReason(g, *n);
    } else if (rule->fits(g, *n, config, &p.reason)) {
      p.target = "accel";
      p.reason.clear();
    }
    n->SetAttr(ir::kTargetAttr, ir::Attribute::String(p.target));
    ++report->total_nodes;
    report->total_macs = SaturatingAdd(report->total_macs, p.macs);
    if (p.target == "accel") {
      ++report->accel_nodes;
      report->accel_macs = SaturatingAdd(report->accel_macs, p.macs);
    }
    report->nodes.push_back(std::move(p));
  }
  if (options.segment_cost) ChooseSegmentsByCost(g, config, options.cost, report);
  return Status::Ok();
}

nlohmann::json ReportToJson(const PartitionReport& r) {
  nlohmann::json j;
  j["accel_nodes"] = r.accel_nodes;
  j["total_nodes"] = r.total_nodes;
  j["accel_macs"] = r.accel_macs;
  j["total_macs"] = r.total_macs;
  j["offload_ratio_nodes"] = r.node_ratio();
  j["offload_ratio_macs"] = r.mac_ratio();
  nlohmann::json nodes = nlohmann::json::array();
  for (const NodePlacement& p : r.nodes) {
    nlohmann::json e = {{"name", p.name}, {"op", p.op}, {"target", p.target}, {"macs", p.macs}};
    if (!p.reason.empty()) e["reason"] = p.reason;
    nodes.push_back(std::move(e));
  }
  j["nodes"] = std::move(nodes);
  return j;
}

void PrintReport(const PartitionReport& r, std::ostream& os) {
  char line[256];
  std::snprintf(line, sizeof line, "%-28s %-14s %-6s %14s  %s\n", "node", "op", "target", "MACs",
                "reason");
  os << line;
  for (const NodePlacement& p : r.nodes) {
    std::snprintf(line, sizeof line, "%-28.28s %-14s %-6s %14lld  %s\n", p.name.c_str(),
                  p.op.c_str(), p.target.c_str(), static_cast<long long>(p.macs),
                  p.target == "accel" ? "" : p.reason.c_str());
    os << line;
  }
  std::snprintf(line, sizeof line,
                "offload: %lld/%lld nodes (%.1f%%), %lld/%lld MACs (%.1f%%)\n",
                static_cast<long long>(r.accel_nodes), static_cast<long long>(r.total_nodes),
                100.0 * r.node_ratio(), static_cast<long long>(r.accel_macs),
                static_cast<long long>(r.total_macs), 100.0 * r.mac_ratio());
  os << line;
}

}  // namespace loom::partition
