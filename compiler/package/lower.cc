#include "compiler/package/lower.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <limits>
#include <map>
#include <utility>

#include "compiler/ir/op_registry.h"
#include "compiler/package/lowerer.h"
#include "compiler/partition/partition.h"
#include "compiler/tensorize/concat.h"
#include "compiler/tensorize/conv2d.h"
#include "compiler/tensorize/eltwise.h"
#include "compiler/tensorize/mul.h"
#include "compiler/tensorize/resize.h"
#include "runtime/core/blocked_layout.h"
#include "runtime/core/checked_math.h"
#include "runtime/kernels/int8/qops.h"
#include "runtime/package/package.h"

namespace loom::package::internal {
namespace {

uint64_t AlignUp(uint64_t v, uint64_t a) { return (v + a - 1) / a * a; }

Status MapDType(DType t, pkg::DType* out) {
  if (!runtime::ToPkgDType(t, out)) {
    return Unimplemented(std::string("tensors of type ") + DTypeName(t));
  }
  return Status::Ok();
}

// The package's 32-bit window fields; a value that does not fit is an error naming the
// attribute, never a truncated window the runtime would then run.
Status WindowOf(const ir::Node& n, Window* w) {
  const auto k = n.GetInts("kernel"), s = n.GetInts("strides"), p = n.GetInts("pads");
  auto at = [](const std::vector<int64_t>& v, const char* attr, size_t i, int64_t d,
               uint32_t* out) {
    if (CheckedCast(i < v.size() ? v[i] : d, out)) return Status::Ok();
    return InvalidArgument(std::string(attr) + "[" + std::to_string(i) + "] = " +
                           std::to_string(v[i]) + " does not fit the package's 32-bit field");
  };
  LOOM_RETURN_IF_ERROR(at(k, "kernel", 0, 1, &w->kh));
  LOOM_RETURN_IF_ERROR(at(k, "kernel", 1, 1, &w->kw));
  LOOM_RETURN_IF_ERROR(at(s, "strides", 0, 1, &w->stride_h));
  LOOM_RETURN_IF_ERROR(at(s, "strides", 1, 1, &w->stride_w));
  LOOM_RETURN_IF_ERROR(at(p, "pads", 0, 0, &w->pad_top));
  LOOM_RETURN_IF_ERROR(at(p, "pads", 1, 0, &w->pad_left));
  LOOM_RETURN_IF_ERROR(at(p, "pads", 2, 0, &w->pad_bottom));
  LOOM_RETURN_IF_ERROR(at(p, "pads", 3, 0, &w->pad_right));
  return Status::Ok();
}

Requant RequantOf(const ir::Node& n) {
  Requant r;
  r.pre_shift = static_cast<int32_t>(n.GetInt("pre_shift", 0));
  r.post_shift = static_cast<int32_t>(n.GetInt("post_shift", 0));
  r.clip_lo = static_cast<int32_t>(n.GetInt("clip_lo", -128));
  r.clip_hi = static_cast<int32_t>(n.GetInt("clip_hi", 127));
  return r;
}

}  // namespace

int32_t Lowerer::AddConstant(const std::string& name, pkg::DType dtype, TensorLayout layout,
                             std::vector<uint32_t> shape, const void* bytes, size_t size,
                             float scale) {
  TensorSpec t;
  t.name = name;
  t.dtype = dtype;
  t.layout = layout;
  t.shape = std::move(shape);
  t.storage = Storage::Constant;
  t.offset = AlignUp(spec_.constants.size(), align_);
  t.size = size;
  t.scale = scale;
  spec_.constants.resize(t.offset + size, 0);
  if (size) std::memcpy(spec_.constants.data() + t.offset, bytes, size);
  spec_.tensors.push_back(std::move(t));
  return static_cast<int32_t>(spec_.tensors.size() - 1);
}

Status Lowerer::ArenaTensor(ir::ValueId v, int32_t* index) {
  if (auto it = arena_.find(v); it != arena_.end()) {
    *index = it->second;
    return Status::Ok();
  }
  const ir::Value& val = g_.value(v);
  TensorSpec t;
  t.name = val.name();
  LOOM_RETURN_IF_ERROR(MapDType(val.dtype, &t.dtype).WithContext("value " + val.name()));
  for (int64_t d : val.shape) {
    if (d == 0) {
      return Unimplemented("value " + val.name() + " has no elements (shape " +
                           ir::ShapeToString(val.shape) + "); packages hold no empty tensors");
    }
    if (d < 0 || d > std::numeric_limits<uint32_t>::max()) {
      return InvalidArgument("value " + val.name() + ": dimension out of range");
    }
    t.shape.push_back(static_cast<uint32_t>(d));
  }
  if (val.quant && !val.quant->scales.empty()) t.scale = val.quant->scales[0];
  if (val.quant && !val.quant->zero_points.empty() && !val.quant->per_axis()) {
    t.zero_point = val.quant->zero_points[0];
  }
  if (val.layout == ir::Layout::kBlocked) {
    if (t.dtype != pkg::DType::Int8 || t.shape.size() != 4) {
      return InvalidArgument("value " + val.name() + ": a blocked tensor must be 4-D int8");
    }
    t.layout = TensorLayout::Blocked;
    t.size = q::BlockedBytes(blk_, {t.shape[0], t.shape[1], t.shape[2], t.shape[3]});
    if (t.size == SIZE_MAX) {
      return InvalidArgument("value " + val.name() + ": its blocked size overflows");
    }
  } else {
    t.layout = TensorLayout::Plain;
    t.size = static_cast<uint64_t>(ir::NumElementsUnchecked(val.shape)) * DTypeSize(val.dtype);
  }
  t.storage = Storage::Arena;
  spec_.tensors.push_back(std::move(t));
  *index = static_cast<int32_t>(spec_.tensors.size() - 1);
  arena_[v] = *index;
  return Status::Ok();
}

// A constant input of a node, packed for the role it plays there.
Status Lowerer::ConstantInput(const ir::Node& n, size_t i, int32_t* index) {
  const ir::ValueId v = n.inputs[i];
  const ir::Value& val = g_.value(v);
  const ir::Tensor& data = *val.constant;
  const bool conv = n.op == "q.conv2d";
  const int role = conv ? static_cast<int>(i) : 0;
  if (auto it = const_.find({v, role}); it != const_.end()) {
    *index = it->second;
    return Status::Ok();
  }
  std::vector<uint32_t> shape;
  for (int64_t d : val.shape) {
    shape.emplace_back();
    if (!CheckedCast(d, &shape.back())) {
      return InvalidArgument(Where(n) + ": constant " + val.name() + " " +
                             ir::ShapeToString(val.shape) +
                             " has a dimension beyond the package's 32 bits");
    }
  }
  const float scale = val.quant && !val.quant->scales.empty() ? val.quant->scales[0] : 1.0f;
  if (conv && i == 1) {
    if (val.dtype != DType::kI8 || shape.size() != 4) {
      return InvalidArgument(Where(n) + ": weights must be a 4-D int8 constant");
    }
    const bool dw = n.GetInt("depthwise", 0) != 0;
    std::vector<int8_t> packed;
    if (dw) {
      packed.resize(q::DepthwiseWeightBytes(blk_, shape[0], shape[2], shape[3]));
      LOOM_RETURN_IF_ERROR(q::PackDepthwiseWeights(blk_, shape[0], shape[2], shape[3],
                                                   data.data<int8_t>(), packed.data())
                               .WithContext(Where(n)));
    } else {
      packed.resize(q::ConvWeightBytes(blk_, shape[0], shape[1], shape[2], shape[3]));
      LOOM_RETURN_IF_ERROR(q::PackConvWeights(blk_, shape[0], shape[1], shape[2], shape[3],
                                              data.data<int8_t>(), packed.data())
                               .WithContext(Where(n)));
    }
    *index = AddConstant(val.name(), pkg::DType::Int8,
                         dw ? TensorLayout::BlockedDepthwise : TensorLayout::BlockedWeights, shape,
                         packed.data(), packed.size(), scale);
    if (dw) {  // the accelerator reads filter-row (window) or diagonal weight blocks
      const std::vector<int8_t> accel =
          tensorize::DepthwiseWeights(c_, shape[0], shape[2], shape[3], data.data<int8_t>());
      const char* form =
          tensorize::DepthwiseWindowApplies(c_, shape[2], shape[3]) ? ".window" : ".diagonal";
      diag_[v] =
          AddConstant(val.name() + form, pkg::DType::Int8, TensorLayout::Plain,
                      {static_cast<uint32_t>(accel.size())}, accel.data(), accel.size(), 1.0f);
    }
  } else if (conv && (i == 2 || i == 3)) {
    if (val.dtype != DType::kI32 || shape.size() != 1) {
      return InvalidArgument(Where(n) + ": bias and multipliers must be 1-D int32 constants");
    }
    std::vector<int32_t> packed(q::ChannelVectorElems(blk_, shape[0]));
    LOOM_RETURN_IF_ERROR(
        q::PackChannelVector(blk_, shape[0], data.data<int32_t>(), packed.data()).WithContext(Where(n)));
    *index = AddConstant(val.name(), pkg::DType::Int32, TensorLayout::BlockedVector, shape,
                         packed.data(), packed.size() * 4, scale);
  } else {
    pkg::DType dt;
    LOOM_RETURN_IF_ERROR(MapDType(val.dtype, &dt).WithContext(Where(n) + ", constant " + val.name()));
    *index = AddConstant(val.name(), dt, TensorLayout::Plain, shape, data.bytes(), data.byte_size(),
                         scale);
  }
  const_[{v, role}] = *index;
  return Status::Ok();
}

Status Lowerer::PlanArena() {
  // Live interval of every arena value in node positions: graph inputs from -1, graph outputs to
  // the end; a value is live from its producer through its last reader.
  const auto& nodes = g_.nodes();
  const int64_t end = static_cast<int64_t>(nodes.size());
  std::map<ir::ValueId, std::pair<int64_t, int64_t>> live;
  for (ir::ValueId v : g_.inputs()) live[v] = {-1, -1};
  for (int64_t i = 0; i < end; ++i) {
    for (ir::ValueId v : nodes[static_cast<size_t>(i)]->outputs) {
      if (v != ir::kNoValue) live[v] = {i, i};
    }
    for (ir::ValueId v : nodes[static_cast<size_t>(i)]->inputs) {
      if (auto it = live.find(v); it != live.end()) it->second.second = i;
    }
  }
  for (ir::ValueId v : g_.outputs()) {
    if (auto it = live.find(v); it != live.end()) it->second.second = end;
  }
  // A max pool fused into its convolution's program (lower_conv_pool.cc) is written while the
  // convolution still reads its inputs: its output is live from the convolution on.
  for (size_t i = 0; i + 1 < nodes.size(); ++i) {
    if (PoolToFuse(*nodes[i], nodes[i + 1]) == nullptr) continue;
    for (ir::ValueId v : nodes[i + 1]->outputs) {
      if (auto it = live.find(v); it != live.end()) it->second.first = static_cast<int64_t>(i);
    }
  }
  struct Placed {
    int64_t first, last;
    uint64_t offset, size;
  };
  std::vector<Placed> placed;
  uint64_t arena = 0;
  // First fit, values in order of definition.
  std::vector<std::pair<ir::ValueId, std::pair<int64_t, int64_t>>> order(live.begin(), live.end());
  std::stable_sort(order.begin(), order.end(),
                   [](const auto& a, const auto& b) { return a.second.first < b.second.first; });
  for (const auto& [v, interval] : order) {
    auto it = arena_.find(v);
    if (it == arena_.end()) continue;  // not read or written by any node (nothing to hold)
    TensorSpec& t = spec_.tensors[static_cast<size_t>(it->second)];
    const uint64_t size = AlignUp(std::max<uint64_t>(t.size, 1), align_);
    std::vector<std::pair<uint64_t, uint64_t>> busy;
    for (const Placed& p : placed) {
      if (p.first <= interval.second && interval.first <= p.last) busy.push_back({p.offset, p.size});
    }
    std::sort(busy.begin(), busy.end());
    uint64_t offset = 0;
    for (const auto& [o, s] : busy) {
      if (offset + size <= o) break;
      offset = std::max(offset, o + s);
    }
    t.offset = offset;
    placed.push_back({interval.first, interval.second, offset, size});
    arena = std::max(arena, offset + size);
  }
  spec_.arena_bytes = arena;
  report_.arena_bytes = arena;
  return Status::Ok();
}

Status Lowerer::CollectTensors() {
  for (ir::ValueId v : g_.inputs()) {
    int32_t i;
    LOOM_RETURN_IF_ERROR(ArenaTensor(v, &i));
  }
  for (const ir::Node* n : g_.nodes()) {
    for (size_t i = 0; i < n->inputs.size(); ++i) {
      const ir::ValueId v = n->inputs[i];
      if (v == ir::kNoValue) continue;
      int32_t index;
      if (g_.value(v).is_constant()) {
        LOOM_RETURN_IF_ERROR(ConstantInput(*n, i, &index));
      } else {
        LOOM_RETURN_IF_ERROR(ArenaTensor(v, &index));
      }
    }
    for (ir::ValueId v : n->outputs) {
      int32_t index;
      if (v != ir::kNoValue) LOOM_RETURN_IF_ERROR(ArenaTensor(v, &index));
    }
  }
  // A constant output (a folded graph, ConstantOfShape of a frozen shape) is returned straight
  // from the constants region: no op writes it, so it never takes arena space.
  for (ir::ValueId v : g_.outputs()) {
    const ir::Value& val = g_.value(v);
    if (!val.is_constant() || const_outputs_.count(v)) continue;
    pkg::DType dt;
    LOOM_RETURN_IF_ERROR(MapDType(val.dtype, &dt).WithContext("graph output " + val.name()));
    std::vector<uint32_t> shape;
    for (int64_t d : val.shape) {
      shape.emplace_back();
      if (d == 0) {
        return Unimplemented("graph output " + val.name() + " has no elements (shape " +
                             ir::ShapeToString(val.shape) + "); packages hold no empty tensors");
      }
      if (!CheckedCast(d, &shape.back())) {
        return InvalidArgument("graph output " + val.name() + " " + ir::ShapeToString(val.shape) +
                               " has a dimension beyond the package's 32 bits");
      }
    }
    const float scale = val.quant && !val.quant->scales.empty() ? val.quant->scales[0] : 1.0f;
    const_outputs_[v] = AddConstant(val.name(), dt, TensorLayout::Plain, std::move(shape),
                                    val.constant->bytes(), val.constant->byte_size(), scale);
  }
  return Status::Ok();
}

Status Lowerer::MakeOp(const ir::Node& n, OpSpec* op) {
  op->name = n.name.empty() ? ir::NodeLabel(g_, n) : n.name;
  for (size_t i = 0; i < n.inputs.size(); ++i) {
    const ir::ValueId v = n.inputs[i];
    if (v == ir::kNoValue) {
      op->inputs.push_back(-1);
    } else if (g_.value(v).is_constant()) {
      int32_t index;
      LOOM_RETURN_IF_ERROR(ConstantInput(n, i, &index));
      op->inputs.push_back(index);
    } else {
      op->inputs.push_back(arena_.at(v));
    }
  }
  for (ir::ValueId v : n.outputs) op->outputs.push_back(v == ir::kNoValue ? -1 : arena_.at(v));
  // The q.* branches below narrow int64 attributes to the package's 32-bit fields; the op table
  // bounds each one (ir/op_registry.cc). The pass manager's verifier checks them after every pass,
  // but the lowering takes any graph (tools and tests build them directly), so it checks too.
  if (n.op.rfind("q.", 0) == 0) LOOM_RETURN_IF_ERROR(ir::CheckNodeSignature(g_, n));
  if (n.op == "q.conv2d") {
    Conv2dParams p;
    LOOM_RETURN_IF_ERROR(WindowOf(n, &p.window).WithContext(Where(n)));
    p.depthwise = n.GetInt("depthwise", 0) != 0;
    p.groups = static_cast<uint32_t>(n.GetInt("group", 1));
    p.pad_value = static_cast<int32_t>(n.GetInt("pad_value", 0));
    p.requant = RequantOf(n);
    const auto& y = T(op->outputs[0]).shape;
    // Saturating: a report figure, and the dims alone may multiply past 64 bits. The reduction is
    // the weights' input channels (a grouped convolution's merged groups count their zeros).
    const uint32_t reduce = p.depthwise ? 1 : T(op->inputs[1]).shape[1];
    op->macs = 1;
    for (uint64_t f : {uint64_t{y[0]}, uint64_t{y[1]}, uint64_t{y[2]}, uint64_t{y[3]},
                       uint64_t{p.window.kh}, uint64_t{p.window.kw}, uint64_t{reduce}}) {
      if (!CheckedMul(op->macs, f, &op->macs)) op->macs = UINT64_MAX;
    }
    // A packed first layer (first-layer packing) counts its source's MACs, not its zero taps.
    if (n.FindAttr("source_macs")) op->macs = static_cast<uint64_t>(n.GetInt("source_macs", 0));
    op->params = p;
    while (op->inputs.size() < 4) op->inputs.push_back(-1);
  } else if (n.op == "q.add") {
    AddParams p;
    p.mult_a = static_cast<int32_t>(n.GetInt("mult_a", 1));
    p.mult_b = static_cast<int32_t>(n.GetInt("mult_b", 1));
    p.shift = static_cast<int32_t>(n.GetInt("shift", 0));
    p.clip_lo = static_cast<int32_t>(n.GetInt("clip_lo", -128));
    p.clip_hi = static_cast<int32_t>(n.GetInt("clip_hi", 127));
    op->params = p;
  } else if (n.op == "q.mul") {
    MulParams p;
    p.mult = static_cast<int32_t>(n.GetInt("mult", 1));
    p.b_mult = static_cast<int32_t>(n.GetInt("b_mult", 1));
    p.b_offset = static_cast<int32_t>(n.GetInt("b_offset", 0));
    p.b_lo = static_cast<int32_t>(n.GetInt("b_lo", -128));
    p.b_hi = static_cast<int32_t>(n.GetInt("b_hi", 127));
    p.a_offset = static_cast<int32_t>(n.GetInt("a_offset", 0));
    p.out_offset = static_cast<int32_t>(n.GetInt("out_offset", 0));
    p.requant = RequantOf(n);
    op->params = p;
  } else if (n.op == "q.max_pool") {
    MaxPoolParams p;
    LOOM_RETURN_IF_ERROR(WindowOf(n, &p.window).WithContext(Where(n)));
    op->params = p;
  } else if (n.op == "q.avg_pool") {
    AvgPoolParams p;
    LOOM_RETURN_IF_ERROR(WindowOf(n, &p.window).WithContext(Where(n)));
    p.count_include_pad = n.GetInt("count_include_pad", 0) != 0;
    p.x_offset = static_cast<int32_t>(n.GetInt("x_offset", 0));
    p.out_offset = static_cast<int32_t>(n.GetInt("out_offset", 0));
    p.requant = RequantOf(n);
    op->params = p;
  } else if (n.op == "q.concat") {
    ConcatParams p;
    for (int64_t m : n.GetInts("mults")) p.mults.push_back(static_cast<int32_t>(m));
    for (int64_t s : n.GetInts("shifts")) p.shifts.push_back(static_cast<int32_t>(s));
    op->params = p;
  } else if (n.op == "q.resize") {
    ResizeParams p;
    p.factor_h = static_cast<uint32_t>(n.GetInt("factor_h", 1));
    p.factor_w = static_cast<uint32_t>(n.GetInt("factor_w", 1));
    op->params = p;
  } else if (n.op == "q.zero_insert") {
    ZeroInsertParams p;
    p.stride_h = static_cast<uint32_t>(n.GetInt("stride_h", 1));
    p.stride_w = static_cast<uint32_t>(n.GetInt("stride_w", 1));
    op->params = p;
  } else if (n.op == "q.quantize") {
    op->params = QuantizeParams{};
  } else if (n.op == "q.dequantize") {
    op->params = DequantizeParams{};
  } else if (n.op == "q.relayout") {
    op->params = RelayoutParams{};
  } else {
    // A CPU float op writes each of its outputs (several for LayerNormalization, the recurrent
    // ops, ...: since package 1.5); an omitted one has no tensor to write.
    for (size_t i = 0; i < n.outputs.size(); ++i) {
      if (n.outputs[i] == ir::kNoValue) {
        return Unimplemented(Where(n) + ": output " + std::to_string(i) +
                             " is omitted; a CPU float op in a package writes every output");
      }
    }
    // The runtime's row says how many outputs its kernel writes (MaxPool's Indices and Dropout's
    // mask have none there); more is an op the runtime lacks, not a package to write.
    if (const size_t most = runtime::FloatOpMaxOutputs(n.op);
        most != 0 && n.outputs.size() > most) {
      return Unimplemented(Where(n) + ": " + std::to_string(n.outputs.size()) +
                           " outputs; the runtime's " + n.op + " writes " + std::to_string(most) +
                           " (the interpreter computes the others: drop them from the model to "
                           "compile it)");
    }
    // Float convolutions and products count their MACs as the int8 ones do, so the package's
    // offload ratio by MACs (loom inspect, the zoo) sees the work left on the CPU.
    if (n.op == "Conv" || n.op == "Gemm" || n.op == "MatMul") {
      op->macs = static_cast<uint64_t>(std::max<int64_t>(0, partition::NodeMacs(g_, n)));
    }
    FloatOpParams p;
    p.op = n.op;
    for (const auto& [name, a] : n.attrs) {
      if (name == "target") continue;
      // Cast's target type is its output tensor's, which the package stores.
      if (n.op == "Cast" && name == "to") continue;
      FloatAttr fa;
      fa.name = name;
      switch (a.kind()) {
        case ir::Attribute::Kind::kInt: fa.ints = {a.i()}; break;
        case ir::Attribute::Kind::kInts: fa.ints = a.ints(); break;
        case ir::Attribute::Kind::kFloat: fa.floats = {a.f()}; break;
        case ir::Attribute::Kind::kFloats: fa.floats = a.floats(); break;
        case ir::Attribute::Kind::kString:
          fa.text = a.s();
          break;
        default:
          return Unimplemented(Where(n) + ": attribute " + name + " of kind " +
                               ir::AttributeKindName(a.kind()) + " on a CPU float op");
      }
      p.attrs.push_back(std::move(fa));
    }
    op->params = std::move(p);
  }
  return Status::Ok();
}
Status Lowerer::BuildSegments() {
  const auto& nodes = g_.nodes();
  size_t accel_layers = 0, done = 0;
  for (const ir::Node* n : nodes) accel_layers += n->GetString("target", "cpu") == "accel";
  for (size_t i = 0; i < nodes.size();) {
    const bool accel = nodes[i]->GetString("target", "cpu") == "accel";
    SegmentSpec seg;
    seg.kind = accel ? SegmentKind::Accel : SegmentKind::Cpu;
    seg.name = (accel ? "accel" : "cpu") + std::to_string(spec_.segments.size());
    AccelCode code;
    size_t prev_begin = 0;    // the previous accelerator layer's first instruction
    bool pool_fused = false;  // the previous layer's program computed this node (a max pool)
    for (; i < nodes.size() && (nodes[i]->GetString("target", "cpu") == "accel") == accel; ++i) {
      const ir::Node& n = *nodes[i];
      OpSpec op;
      LOOM_RETURN_IF_ERROR(MakeOp(n, &op));
      LayerLowering layer;
      layer.name = op.name;
      layer.op = n.op;
      layer.segment = seg.name;
      layer.accel = accel;
      layer.macs = op.macs;
      if (accel && pool_fused) {
        // No instructions of its own: the empty range at the end of the conv's (package.md).
        pool_fused = false;
        if (!CheckedCast(code.insns.size(), &op.insn_begin)) {
          return InvalidArgument(Where(n) + ": segment " + seg.name +
                                 " has more instructions than a package's 32-bit index reaches");
        }
        op.insn_end = op.insn_begin;
        layer.fused_with = report_.layers.back().name;
        layer.tiling = "fused";
        if (o_.progress) o_.progress(++done, accel_layers, layer.name);
      } else if (accel) {
        // The barrier before a layer belongs to it, so the layers' ranges tile the program.
        if (!CheckedCast(code.insns.size(), &op.insn_begin)) {
          return InvalidArgument(Where(n) + ": segment " + seg.name +
                                 " has more instructions than a package's 32-bit index reaches");
        }
        // The weakest barrier that keeps the order (docs/tensorize.md "Chaining layers").
        const bool chained = !code.insns.empty();
        const size_t barrier = chained ? tensorize::EmitBufferBarrier(&code) : 0;
        pool_ = PoolToFuse(n, i + 1 < nodes.size() ? nodes[i + 1] : nullptr);
        LOOM_RETURN_IF_ERROR(LowerAccel(n, &code, &layer));
        pool_ = nullptr;
        pool_fused = !layer.fused_with.empty();
        if (chained) {
          const bool forced = o_.schedules && o_.schedules->layer_barriers.count(op.name) != 0;
          layer.barrier =
              tensorize::SettleBarrier(c_, prev_begin, barrier, &code, forced) ? "buffer" : "layer";
        }
        prev_begin = op.insn_begin;
        if (!CheckedCast(code.insns.size(), &op.insn_end)) {
          return InvalidArgument(Where(n) + ": segment " + seg.name +
                                 " has more instructions than a package's 32-bit index reaches");
        }
        if (o_.progress) o_.progress(++done, accel_layers, layer.name);
      }
      seg.macs += op.macs;
      seg.ops.push_back(std::move(op));
      report_.layers.push_back(std::move(layer));
    }
    if (accel) {
      isa::Insn finish;
      finish.opcode = isa::Opcode::kFinish;
      code.Emit(finish);
      LOOM_RETURN_IF_ERROR(VerifyProgram(seg.name, code));
      seg.has_program = true;
      seg.program.insns = std::move(code.insns);
      seg.program.regions = std::move(code.regions);
      seg.program.uops = std::move(code.uops);
      report_.insns += seg.program.insns.size();
      report_.uops += seg.program.uops.size();
    }
    spec_.segments.push_back(std::move(seg));
  }
  return Status::Ok();
}

Status Lowerer::Run() {
  LOOM_RETURN_IF_ERROR(c_.Validate());
  if (c_.block_in != c_.block_out) {
    return Unimplemented("configs with block_in != block_out (" + std::to_string(c_.block_in) +
                         " vs " + std::to_string(c_.block_out) + ")");
  }
  spec_ = PackageSpec{};
  report_ = LowerReport{};
  spec_.config = c_;
  spec_.board = o_.board;
  spec_.provenance = o_.provenance;
  LOOM_RETURN_IF_ERROR(CollectTensors());
  LOOM_RETURN_IF_ERROR(PlanArena());
  LOOM_RETURN_IF_ERROR(BuildSegments());
  auto bind = [&](ir::ValueId v, std::vector<BindingSpec>* out) {
    BindingSpec b;
    b.name = g_.value(v).name();
    auto c = const_outputs_.find(v);
    b.tensor = c != const_outputs_.end() ? c->second : arena_.at(v);
    for (int64_t d : g_.value(v).shape) b.shape.push_back(static_cast<uint32_t>(d));
    out->push_back(std::move(b));
  };
  for (ir::ValueId v : g_.inputs()) bind(v, &spec_.inputs);
  for (ir::ValueId v : g_.outputs()) bind(v, &spec_.outputs);
  spec_.constants.resize(AlignUp(spec_.constants.size(), align_), 0);
  report_.constants_bytes = spec_.constants.size();
  return Status::Ok();
}

}  // namespace loom::package::internal

namespace loom::package {

Status LowerToPackage(const ir::Graph& graph, const HwConfig& config, const LowerOptions& options,
                      PackageSpec* out, LowerReport* report) {
  internal::Lowerer l(graph, config, options, out, report);
  return l.Run();
}

}  // namespace loom::package
