// Executors of the quantized graph's ops (q.*) on the int8 kernels (runtime/kernels/int8/qops.h).
// Interpreter tensors always hold logical row-major data, whatever layout the IR value records:
// each executor packs its operands into the kernels' blocked layout, runs the kernel and unpacks.
// The kernels' results do not depend on the blocking (their tests check every blocking against
// the same plain reference), so one fixed blocking serves every config here.
#include <cstring>
#include <vector>

#include "compiler/interp/op_table.h"
#include "runtime/kernels/int8/qops.h"

namespace loom::interp {
namespace {

namespace q = kernels::q;

constexpr q::Blocking kBlocking{1, 16};

q::ActShape ActShapeOf(const ir::Shape& s) {
  return {static_cast<uint32_t>(s[0]), static_cast<uint32_t>(s[1]), static_cast<uint32_t>(s[2]),
          static_cast<uint32_t>(s[3])};
}

Status Pack(const ir::Tensor& t, std::vector<int8_t>* out) {
  const q::ActShape s = ActShapeOf(t.shape());
  out->assign(q::BlockedBytes(kBlocking, s), 0);
  return q::PackActivation(kBlocking, s, t.data<int8_t>(), out->data());
}

Status Unpack(const std::vector<int8_t>& blocked, ir::Tensor* t) {
  return q::UnpackActivation(kBlocking, ActShapeOf(t->shape()), blocked.data(),
                             t->mutable_data<int8_t>());
}

void WindowOf(const ir::Node& n, q::PoolParams* p) {
  const auto k = n.GetInts("kernel"), s = n.GetInts("strides"), pads = n.GetInts("pads");
  p->kh = static_cast<uint32_t>(k[0]);
  p->kw = static_cast<uint32_t>(k[1]);
  p->stride_h = static_cast<uint32_t>(s[0]);
  p->stride_w = static_cast<uint32_t>(s[1]);
  p->pad_top = static_cast<uint32_t>(pads[0]);
  p->pad_left = static_cast<uint32_t>(pads[1]);
  p->pad_bottom = static_cast<uint32_t>(pads[2]);
  p->pad_right = static_cast<uint32_t>(pads[3]);
}

q::Requant RequantOf(const ir::Node& n) {
  q::Requant rq;
  rq.pre_shift = static_cast<int32_t>(n.GetInt("pre_shift", 0));
  rq.post_shift = static_cast<int32_t>(n.GetInt("post_shift", 0));
  rq.clip_lo = static_cast<int32_t>(n.GetInt("clip_lo", -128));
  rq.clip_hi = static_cast<int32_t>(n.GetInt("clip_hi", 127));
  return rq;
}

Status ExecQConv2d(ExecContext& ctx) {
  const ir::Node& n = ctx.node();
  const ir::Tensor& x = ctx.input_tensor(0);
  const ir::Tensor& w = ctx.input_tensor(1);
  q::PoolParams win;
  WindowOf(n, &win);
  q::Conv2dParams p;
  p.in = ActShapeOf(x.shape());
  p.out_c = static_cast<uint32_t>(ctx.output_tensor(0).shape()[1]);
  p.kh = win.kh;
  p.kw = win.kw;
  p.stride_h = win.stride_h;
  p.stride_w = win.stride_w;
  p.pad_top = win.pad_top;
  p.pad_left = win.pad_left;
  p.pad_bottom = win.pad_bottom;
  p.pad_right = win.pad_right;
  p.depthwise = n.GetInt("depthwise", 0) != 0;
  p.rq = RequantOf(n);
  std::vector<int8_t> xb, wb, yb(q::BlockedBytes(kBlocking, p.out()));
  LOOM_RETURN_IF_ERROR(ctx.Wrap(Pack(x, &xb)));
  if (p.depthwise) {
    wb.resize(q::DepthwiseWeightBytes(kBlocking, p.in.c, p.kh, p.kw));
    LOOM_RETURN_IF_ERROR(ctx.Wrap(
        q::PackDepthwiseWeights(kBlocking, p.in.c, p.kh, p.kw, w.data<int8_t>(), wb.data())));
  } else {
    wb.resize(q::ConvWeightBytes(kBlocking, p.out_c, p.in.c, p.kh, p.kw));
    LOOM_RETURN_IF_ERROR(ctx.Wrap(
        q::PackConvWeights(kBlocking, p.out_c, p.in.c, p.kh, p.kw, w.data<int8_t>(), wb.data())));
  }
  const int32_t* bias = ctx.has_input(2) ? ctx.input_tensor(2).data<int32_t>() : nullptr;
  LOOM_RETURN_IF_ERROR(ctx.Wrap(q::Conv2d(kBlocking, p, xb.data(), wb.data(), bias,
                                          ctx.input_tensor(3).data<int32_t>(), yb.data())));
  return ctx.Wrap(Unpack(yb, &ctx.output_tensor(0)));
}

Status ExecQAdd(ExecContext& ctx) {
  const ir::Node& n = ctx.node();
  q::AddParams p;
  p.shape = ActShapeOf(ctx.input_tensor(0).shape());
  p.mult_a = static_cast<int32_t>(n.GetInt("mult_a", 1));
  p.mult_b = static_cast<int32_t>(n.GetInt("mult_b", 1));
  p.shift = static_cast<int32_t>(n.GetInt("shift", 0));
  p.clip_lo = static_cast<int32_t>(n.GetInt("clip_lo", -128));
  p.clip_hi = static_cast<int32_t>(n.GetInt("clip_hi", 127));
  std::vector<int8_t> ab, bb, yb(q::BlockedBytes(kBlocking, p.shape));
  LOOM_RETURN_IF_ERROR(ctx.Wrap(Pack(ctx.input_tensor(0), &ab)));
  LOOM_RETURN_IF_ERROR(ctx.Wrap(Pack(ctx.input_tensor(1), &bb)));
  LOOM_RETURN_IF_ERROR(ctx.Wrap(q::Add(kBlocking, p, ab.data(), bb.data(), yb.data())));
  return ctx.Wrap(Unpack(yb, &ctx.output_tensor(0)));
}

Status ExecQMaxPool(ExecContext& ctx) {
  q::PoolParams p;
  WindowOf(ctx.node(), &p);
  p.in = ActShapeOf(ctx.input_tensor(0).shape());
  std::vector<int8_t> xb, yb(q::BlockedBytes(kBlocking, p.out()));
  LOOM_RETURN_IF_ERROR(ctx.Wrap(Pack(ctx.input_tensor(0), &xb)));
  LOOM_RETURN_IF_ERROR(ctx.Wrap(q::MaxPool(kBlocking, p, xb.data(), yb.data())));
  return ctx.Wrap(Unpack(yb, &ctx.output_tensor(0)));
}

Status ExecQAvgPool(ExecContext& ctx) {
  q::AvgPoolParams p;
  WindowOf(ctx.node(), &p.pool);
  p.pool.in = ActShapeOf(ctx.input_tensor(0).shape());
  p.count_include_pad = ctx.node().GetInt("count_include_pad", 0) != 0;
  p.rq = RequantOf(ctx.node());
  std::vector<int8_t> xb, yb(q::BlockedBytes(kBlocking, p.pool.out()));
  LOOM_RETURN_IF_ERROR(ctx.Wrap(Pack(ctx.input_tensor(0), &xb)));
  LOOM_RETURN_IF_ERROR(ctx.Wrap(
      q::AvgPool(kBlocking, p, ctx.input_tensor(1).data<int32_t>(), xb.data(), yb.data())));
  return ctx.Wrap(Unpack(yb, &ctx.output_tensor(0)));
}

Status ExecQConcat(ExecContext& ctx) {
  const auto mults = ctx.node().GetInts("mults"), shifts = ctx.node().GetInts("shifts");
  const int k = ctx.num_inputs();
  std::vector<std::vector<int8_t>> packed(static_cast<size_t>(k));
  std::vector<q::ConcatInput> ins(static_cast<size_t>(k));
  for (int i = 0; i < k; ++i) {
    const size_t u = static_cast<size_t>(i);
    LOOM_RETURN_IF_ERROR(ctx.Wrap(Pack(ctx.input_tensor(i), &packed[u])));
    ins[u] = {ActShapeOf(ctx.input_tensor(i).shape()), packed[u].data(),
              static_cast<int32_t>(mults[u]), static_cast<int32_t>(shifts[u])};
  }
  std::vector<int8_t> yb(q::BlockedBytes(kBlocking, ActShapeOf(ctx.output_tensor(0).shape())));
  LOOM_RETURN_IF_ERROR(ctx.Wrap(q::Concat(kBlocking, ins.data(), ins.size(), yb.data())));
  return ctx.Wrap(Unpack(yb, &ctx.output_tensor(0)));
}

Status ExecQQuantize(ExecContext& ctx) {
  const ir::Tensor& x = ctx.input_tensor(0);
  ir::Tensor& y = ctx.output_tensor(0);
  return ctx.Wrap(q::QuantizeF32(x.data<float>(), static_cast<size_t>(x.num_elements()),
                                 ctx.output_scale(0), y.mutable_data<int8_t>()));
}

Status ExecQDequantize(ExecContext& ctx) {
  const ir::Tensor& x = ctx.input_tensor(0);
  ir::Tensor& y = ctx.output_tensor(0);
  return ctx.Wrap(q::DequantizeF32(x.data<int8_t>(), static_cast<size_t>(x.num_elements()),
                                   ctx.input_scale(0), y.mutable_data<float>()));
}

// Layouts are a storage matter here (tensors stay logical), so a relayout is a copy.
Status ExecQRelayout(ExecContext& ctx) {
  const ir::Tensor& x = ctx.input_tensor(0);
  std::memcpy(ctx.output_tensor(0).mutable_bytes(), x.bytes(), x.byte_size());
  return Status::Ok();
}

struct Entry {
  const char* op;
  ExecFn fn;
};

const Entry kQuantOps[] = {
    {"q.conv2d", ExecQConv2d},         {"q.add", ExecQAdd},           {"q.max_pool", ExecQMaxPool},
    {"q.avg_pool", ExecQAvgPool},      {"q.concat", ExecQConcat},     {"q.quantize", ExecQQuantize},
    {"q.dequantize", ExecQDequantize}, {"q.relayout", ExecQRelayout},
};

}  // namespace

ExecFn FindQuantExecutor(std::string_view op) {
  for (const Entry& e : kQuantOps) {
    if (op == e.op) return e.fn;
  }
  return nullptr;
}

}  // namespace loom::interp
