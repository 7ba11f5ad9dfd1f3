// The package lowering's accelerator layers (lowerer.h): each q.* node's emitter call, the conv
// tiling choice, and the checks that a layer's DMA touches only its own tensors.
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

// The accelerator addresses DRAM in 32-bit element indices: a tensor placed beyond that is an
// error, not an address that wraps onto another tensor.
Status ElemAddr(uint64_t byte_offset, uint64_t elem_bytes, const std::string& what, uint32_t* out) {
  if (CheckedCast(byte_offset / elem_bytes, out)) return Status::Ok();
  return InvalidArgument(what + " at byte " + std::to_string(byte_offset) +
                         " is beyond the accelerator's 32-bit element addresses");
}

tensorize::Window2d Geometry(const Window& w) {
  return {w.kh, w.kw, w.stride_h, w.stride_w, w.pad_top, w.pad_left, w.pad_bottom, w.pad_right};
}

}  // namespace

Status Lowerer::LowerAccel(const ir::Node& n, AccelCode* code, LayerLowering* layer) {
  // Every accelerator op but the convolution copies through the identity weights. Adding that
  // constant appends to spec_.tensors, which may move every TensorSpec: add it before the
  // branches below take references to tensors.
  if (n.op != "q.conv2d") Identity();
  const size_t first = code->insns.size();
  std::vector<Range> allowed;
  auto allow = [&](int32_t t) {
    if (t < 0) return;
    const TensorSpec& s = T(t);
    allowed.push_back({s.storage == Storage::Arena ? Region::kArena : Region::kConstants, s.offset,
                       s.offset + s.size});
  };
  OpSpec op;
  LOOM_RETURN_IF_ERROR(MakeOp(n, &op));
  for (int32_t t : op.inputs) allow(t);
  for (int32_t t : op.outputs) allow(t);
  if (n.op == "q.conv2d") {
    const auto& p = std::get<Conv2dParams>(op.params);
    const TensorSpec &x = T(op.inputs[0]), &y = T(op.outputs[0]);
    if (x.layout != TensorLayout::Blocked || y.layout != TensorLayout::Blocked) {
      return Internal(Where(n) + ": accelerator convolution on unblocked tensors");
    }
    const int32_t weights = p.depthwise ? diag_.at(n.inputs[1]) : op.inputs[1];
    allow(weights);
    // A grouped convolution (groups of whole channel blocks over one batch block: ConvLowers) is
    // one layer per group on the group's contiguous channel blocks, weight tiles and bias and
    // multiplier blocks, each after a buffer barrier (the groups share no DRAM byte). A short last
    // group reads the input's zero padding lanes and writes its real channels' blocks.
    const uint32_t groups = p.groups;
    const uint32_t gc = groups == 1 ? x.shape[1] : T(op.inputs[1]).shape[1];
    const uint32_t go = groups == 1 ? y.shape[1] : gc * y.shape[1] / x.shape[1];
    const uint64_t lanes = uint64_t{c_.batch} * c_.block_in;
    const uint64_t in_step = uint64_t{gc / c_.block_in} * x.shape[2] * x.shape[3] * lanes;
    const uint64_t out_step = uint64_t{go / c_.block_in} * y.shape[2] * y.shape[3] * lanes;
    const uint64_t w_step = q::ConvWeightBytes(blk_, go, gc, p.window.kh, p.window.kw);
    const uint64_t v_step = uint64_t{go / c_.block_in} * lanes * sizeof(int32_t);
    uint64_t cycles = 0;
    size_t prev_begin = 0;
    for (uint32_t g = 0; g < groups; ++g) {
      const std::string where = groups == 1 ? Where(n) : Where(n) + " group " + std::to_string(g);
      const size_t barrier = g == 0 ? 0 : tensorize::EmitBufferBarrier(code);
      const size_t begin = code->insns.size();
      tensorize::Conv2dLayer l =
          tensorize::Conv2dGeometry(c_, op.name, x.shape[0], gc, x.shape[2], x.shape[3],
                                    std::min(go, y.shape[1] - g * go), Geometry(p.window));
      l.depthwise = p.depthwise;
      l.pad_value = static_cast<int8_t>(p.pad_value);  // checked in [-128, 127] by the op table
      l.has_bias = op.inputs[2] >= 0;
      l.pre_shift = p.requant.pre_shift;
      l.post_shift = p.requant.post_shift;
      l.clip_lo = p.requant.clip_lo;
      l.clip_hi = p.requant.clip_hi;
      LOOM_RETURN_IF_ERROR(
          ElemAddr(x.offset + g * in_step, c_.inp_elem_bytes(), where + ": input", &l.input));
      LOOM_RETURN_IF_ERROR(
          ElemAddr(y.offset + g * out_step, c_.out_elem_bytes(), where + ": output", &l.output));
      LOOM_RETURN_IF_ERROR(ElemAddr(T(weights).offset + g * w_step, c_.wgt_elem_bytes(),
                                    where + ": weights", &l.weights));
      if (l.has_bias) {
        LOOM_RETURN_IF_ERROR(ElemAddr(T(op.inputs[2]).offset + g * v_step, c_.acc_elem_bytes(),
                                      where + ": bias", &l.bias));
      }
      LOOM_RETURN_IF_ERROR(ElemAddr(T(op.inputs[3]).offset + g * v_step, c_.acc_elem_bytes(),
                                    where + ": multipliers", &l.mult));
      if (pool_ != nullptr && !p.depthwise && groups == 1) {  // with the max pool after it
        bool fused = false;                                   // (lower_conv_pool.cc)
        LOOM_RETURN_IF_ERROR(LowerConvPool(*pool_, l, code, layer, &allowed, &fused));
        if (fused) return VerifyLayer(n, *code, first, allowed);
      }
      Conv2dLowering conv;
      conv.name = op.name;
      conv.signature =
          tensorize::Conv2dSignature(l, p.depthwise, tensorize::UsesDepthwiseWindow(c_, l));
      conv.layer = l;
      conv.depthwise = p.depthwise;
      LOOM_RETURN_IF_ERROR(ChooseTiling(&conv));
      tensorize::TilingChoice& choice = conv.choice;
      LOOM_RETURN_IF_ERROR(tensorize::EmitConv2d(c_, l, choice.tiling, code));
      // A layer barrier drops the buffer barrier's fourth instruction: this group moves up by one.
      const bool kept = g == 0 || tensorize::SettleBarrier(c_, prev_begin, barrier, code);
      prev_begin = kept ? begin : begin - 1;
      if (o_.on_conv2d) o_.on_conv2d(conv);
      layer->tuned = conv.tuned;
      layer->tiling = choice.tiling.ToString();
      cycles += choice.cycles;
    }
    layer->est_cycles = cycles;
    layer->utilization =
        cycles ? double(op.macs) / (double(cycles) * double(c_.macs_per_cycle())) : 0;
  } else if (n.op == "q.add") {
    const auto& p = std::get<AddParams>(op.params);
    tensorize::AddLayer l;
    l.name = op.name;
    l.mult_a = p.mult_a;
    l.mult_b = p.mult_b;
    // The digit weights before the references below: adding a constant may move every TensorSpec.
    const std::vector<int8_t> w = tensorize::AddWeights(c_, l);
    const int32_t weights =
        AddConstant(op.name + ".add_weights", pkg::DType::Int8, TensorLayout::Plain,
                    {static_cast<uint32_t>(w.size())}, w.data(), w.size(), 1.0f);
    allow(weights);
    const TensorSpec &a = T(op.inputs[0]), &b = T(op.inputs[1]), &y = T(op.outputs[0]);
    if (a.layout != TensorLayout::Blocked || b.layout != TensorLayout::Blocked ||
        y.layout != TensorLayout::Blocked || a.size != y.size || b.size != y.size) {
      return Internal(Where(n) + ": accelerator add needs blocked tensors of one shape");
    }
    LOOM_RETURN_IF_ERROR(ElemAddr(y.size, c_.inp_elem_bytes(), Where(n) + ": size", &l.elems));
    l.shift = p.shift;
    l.clip_lo = p.clip_lo;
    l.clip_hi = p.clip_hi;
    LOOM_RETURN_IF_ERROR(ElemAddr(a.offset, c_.inp_elem_bytes(), Where(n) + ": input 0", &l.a));
    LOOM_RETURN_IF_ERROR(ElemAddr(b.offset, c_.inp_elem_bytes(), Where(n) + ": input 1", &l.b));
    LOOM_RETURN_IF_ERROR(ElemAddr(y.offset, c_.out_elem_bytes(), Where(n) + ": output", &l.output));
    LOOM_RETURN_IF_ERROR(
        ElemAddr(T(weights).offset, c_.wgt_elem_bytes(), Where(n) + ": add weights", &l.weights));
    LOOM_RETURN_IF_ERROR(tensorize::EmitAdd(c_, l, code));
    layer->tiling = "elementwise";
  } else if (n.op == "q.mul") {
    const auto& p = std::get<MulParams>(op.params);
    const TensorSpec &a = T(op.inputs[0]), &b = T(op.inputs[1]), &y = T(op.outputs[0]);
    if (a.layout != TensorLayout::Blocked || b.layout != TensorLayout::Blocked ||
        y.layout != TensorLayout::Blocked || a.size != y.size) {
      return Internal(Where(n) +
                      ": accelerator mul needs blocked tensors, a of the output's shape");
    }
    allow(Identity());
    tensorize::MulLayer l = tensorize::MulGeometry(c_, op.name, a.shape[0], a.shape[1], a.shape[2],
                                                   a.shape[3], b.shape != a.shape);
    l.mult = p.mult;
    l.b_mult = p.b_mult;
    l.b_offset = p.b_offset;
    l.same_operand = a.offset == b.offset && a.size == b.size;
    l.b_lo = p.b_lo;
    l.b_hi = p.b_hi;
    l.pre_shift = p.requant.pre_shift;
    l.post_shift = p.requant.post_shift;
    l.clip_lo = p.requant.clip_lo;
    l.clip_hi = p.requant.clip_hi;
    l.a_offset = p.a_offset;
    l.out_offset = p.out_offset;
    LOOM_RETURN_IF_ERROR(ElemAddr(a.offset, c_.inp_elem_bytes(), Where(n) + ": input 0", &l.a));
    LOOM_RETURN_IF_ERROR(ElemAddr(b.offset, c_.inp_elem_bytes(), Where(n) + ": input 1", &l.b));
    LOOM_RETURN_IF_ERROR(ElemAddr(y.offset, c_.out_elem_bytes(), Where(n) + ": output", &l.output));
    LOOM_RETURN_IF_ERROR(ElemAddr(T(identity_).offset, c_.wgt_elem_bytes(),
                                  Where(n) + ": identity weights", &l.identity));
    LOOM_RETURN_IF_ERROR(tensorize::EmitMul(c_, l, code));
    layer->tiling = "elementwise";
  } else if (n.op == "q.concat") {
    const auto& p = std::get<ConcatParams>(op.params);
    const TensorSpec& y = T(op.outputs[0]);
    if (y.layout != TensorLayout::Blocked || p.mults.size() != op.inputs.size() ||
        p.shifts.size() != op.inputs.size()) {
      return Internal(Where(n) +
                      ": accelerator concat needs blocked tensors, one mult and shift each");
    }
    allow(Identity());
    tensorize::ConcatLayer l;
    l.name = op.name;
    l.n_blocks = CeilDiv(y.shape[0], c_.batch);
    l.plane_elems = y.shape[2] * y.shape[3];
    for (size_t i = 0; i < op.inputs.size(); ++i) {
      const TensorSpec& x = T(op.inputs[i]);
      if (x.layout != TensorLayout::Blocked) {
        return Internal(Where(n) + ": accelerator concat of an unblocked input");
      }
      tensorize::ConcatLayer::Input in;
      in.channels = x.shape[1];
      in.mult = p.mults[i];
      in.shift = p.shifts[i];
      LOOM_RETURN_IF_ERROR(ElemAddr(x.offset, c_.inp_elem_bytes(),
                                    Where(n) + ": input " + std::to_string(i), &in.data));
      l.inputs.push_back(in);
    }
    LOOM_RETURN_IF_ERROR(ElemAddr(y.offset, c_.out_elem_bytes(), Where(n) + ": output", &l.output));
    LOOM_RETURN_IF_ERROR(ElemAddr(T(Identity()).offset, c_.wgt_elem_bytes(),
                                  Where(n) + ": identity weights", &l.identity));
    LOOM_RETURN_IF_ERROR(tensorize::EmitConcat(c_, l, code));
    layer->tiling = "copy";
  } else if (n.op == "q.resize" || n.op == "q.zero_insert") {
    // A zero insertion is the resize's copy pattern with only the phase (0, 0) copied.
    const bool zeros = n.op == "q.zero_insert";
    uint32_t fh = 0, fw = 0;
    if (zeros) {
      const auto& p = std::get<ZeroInsertParams>(op.params);
      fh = p.stride_h;
      fw = p.stride_w;
    } else {
      const auto& p = std::get<ResizeParams>(op.params);
      fh = p.factor_h;
      fw = p.factor_w;
    }
    const TensorSpec &x = T(op.inputs[0]), &y = T(op.outputs[0]);
    if (x.layout != TensorLayout::Blocked || y.layout != TensorLayout::Blocked) {
      return Internal(Where(n) + ": accelerator " + n.op + " on unblocked tensors");
    }
    allow(Identity());
    tensorize::ResizeLayer l = tensorize::ResizeGeometry(c_, op.name, x.shape[0], x.shape[1],
                                                         x.shape[2], x.shape[3], fh, fw);
    l.zeros = zeros;
    LOOM_RETURN_IF_ERROR(ElemAddr(x.offset, c_.inp_elem_bytes(), Where(n) + ": input", &l.data));
    LOOM_RETURN_IF_ERROR(ElemAddr(y.offset, c_.out_elem_bytes(), Where(n) + ": output", &l.output));
    LOOM_RETURN_IF_ERROR(ElemAddr(T(Identity()).offset, c_.wgt_elem_bytes(),
                                  Where(n) + ": identity weights", &l.identity));
    LOOM_RETURN_IF_ERROR(tensorize::EmitResize(c_, l, code));
    layer->tiling = "copy";
  } else if (n.op == "q.max_pool" || n.op == "q.avg_pool") {
    const bool average = n.op == "q.avg_pool";
    const Window& w = average ? std::get<AvgPoolParams>(op.params).window
                              : std::get<MaxPoolParams>(op.params).window;
    const TensorSpec &x = T(op.inputs[0]), &y = T(op.outputs[0]);
    if (x.layout != TensorLayout::Blocked || y.layout != TensorLayout::Blocked) {
      return Internal(Where(n) + ": accelerator pooling on unblocked tensors");
    }
    // A max pool pads with -128 (PoolGeometry); an average with its input's zero point.
    tensorize::PoolLayer l = tensorize::PoolGeometry(c_, op.name, x.shape[0], x.shape[1],
                                                     x.shape[2], x.shape[3], Geometry(w));
    if (average) {
      // Every window counts kh x kw elements here (no padding, or padding counted).
      const AvgPoolParams& ap = std::get<AvgPoolParams>(op.params);
      const Requant& rq = ap.requant;
      const ir::Tensor& mults = *g_.value(n.inputs[1]).constant;
      const int64_t count = int64_t{w.kh} * w.kw;
      if (mults.num_elements() < count) return Internal(Where(n) + ": mult_by_count too short");
      l.average = true;
      l.mult = mults.data<int32_t>()[count - 1];
      l.pre_shift = rq.pre_shift;
      l.post_shift = rq.post_shift;
      l.clip_lo = rq.clip_lo;
      l.clip_hi = rq.clip_hi;
      tensorize::SetAverageOffsets(ap.x_offset, ap.out_offset, &l);
    }
    LOOM_RETURN_IF_ERROR(ElemAddr(x.offset, c_.inp_elem_bytes(), Where(n) + ": input", &l.input));
    LOOM_RETURN_IF_ERROR(ElemAddr(y.offset, c_.out_elem_bytes(), Where(n) + ": output", &l.output));
    LOOM_RETURN_IF_ERROR(ElemAddr(T(Identity()).offset, c_.wgt_elem_bytes(),
                                  Where(n) + ": identity weights", &l.identity));
    allow(Identity());
    LOOM_RETURN_IF_ERROR(tensorize::EmitPool(c_, l, code));
    layer->tiling = "rows";
  } else {
    return Internal(Where(n) + ": no accelerator lowering for " + n.op +
                    " (the partitioner must place it on the CPU)");
  }
  return VerifyLayer(n, *code, first, allowed);
}

// The tuned tiling when the table has one the emitter takes (timed on fsim's model for the
// report), else the built-in search.
Status Lowerer::ChooseTiling(Conv2dLowering* conv) const {
  if (o_.schedules != nullptr) {
    if (const tensorize::Conv2dTiling* t = o_.schedules->Find(conv->signature)) {
      uint64_t cycles = 0;
      if (tensorize::TimeConv2d(c_, conv->layer, *t, &cycles).ok()) {
        conv->choice.tiling = *t;
        conv->choice.cycles = cycles;
        conv->choice.candidates = 1;
        conv->choice.timed = 1;
        conv->tuned = true;
        return Status::Ok();
      }
    }
  }
  return tensorize::ChooseConv2dTiling(c_, conv->layer, &conv->choice);
}

// Every DRAM access of the layer's instructions lies inside a tensor the layer reads or writes.
Status Lowerer::VerifyLayer(const ir::Node& n, const AccelCode& code, size_t first,
                            const std::vector<Range>& allowed) const {
  for (size_t k = first; k < code.insns.size(); ++k) {
    const isa::Insn& i = code.insns[k];
    const Region r = code.regions[k];
    if (r != Region::kArena && r != Region::kConstants) continue;
    if (i.dram_span() == 0) continue;
    const uint64_t elem = isa::ElemBytes(c_, i.buffer);
    const uint64_t begin = uint64_t{i.dram_base} * elem;
    const uint64_t end = begin + i.dram_span() * elem;
    const bool inside = std::any_of(allowed.begin(), allowed.end(), [&](const Range& a) {
      return a.region == r && begin >= a.begin && end <= a.end;
    });
    if (!inside) {
      return Internal(Where(n) + ": instruction " + std::to_string(k) + " (" + isa::Disassemble(i) +
                      ") touches " + runtime::RegionName(r) + " bytes [" + std::to_string(begin) +
                      ", " + std::to_string(end) + ") outside the layer's tensors (compiler bug)");
    }
  }
  return Status::Ok();
}

// Each instruction is valid for the config (field ranges, on-chip buffer bounds), and every
// token queue is balanced.
Status Lowerer::VerifyProgram(const std::string& segment, const AccelCode& code) const {
  isa::Layout layout;
  LOOM_RETURN_IF_ERROR(isa::Layout::Create(c_, &layout));
  int64_t tokens[isa::kNumQueues] = {};
  for (size_t k = 0; k < code.insns.size(); ++k) {
    const isa::Insn& i = code.insns[k];
    LOOM_RETURN_IF_ERROR(isa::Verify(layout, i).WithContext(
        "segment " + segment + ", instruction " + std::to_string(k) + " (compiler bug)"));
    const isa::TokenQueues t = isa::QueuesOf(i);
    for (int p = 0; p < t.num_pops; ++p) --tokens[static_cast<int>(t.pops[p])];
    for (int p = 0; p < t.num_pushes; ++p) ++tokens[static_cast<int>(t.pushes[p])];
  }
  for (int k = 0; k < isa::kNumQueues; ++k) {
    if (tokens[k] != 0) {
      return Internal("segment " + segment + ": queue " +
                      isa::QueueName(static_cast<isa::Queue>(k)) + " ends with " +
                      std::to_string(tokens[k]) + " tokens (compiler bug)");
    }
  }
  if (code.uops.size() > std::numeric_limits<uint32_t>::max() / HwConfig::kUopBytes) {
    return Internal("segment " + segment + ": micro-op table too large");
  }
  return Status::Ok();
}

}  // namespace loom::package::internal
