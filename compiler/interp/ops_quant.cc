// Executors of the quantized graph's ops (q.*) on the int8 kernels (runtime/kernels/int8/qops.h).
// Interpreter tensors always hold logical row-major data, whatever layout the IR value records:
// each executor packs its operands into the kernels' blocked layout, runs the kernel and unpacks.
// The kernels' results do not depend on the blocking (their tests check every blocking against
// the same plain reference), so one fixed blocking serves every config here.
#include <cstring>
#include <vector>

#include "compiler/interp/op_table.h"
#include "runtime/core/checked_math.h"
#include "runtime/kernels/int8/qops.h"

namespace loom::interp {
namespace {

namespace q = kernels::q;

constexpr q::Blocking kBlocking{1, 16};

// The kernels take 32-bit dims and window fields; a value beyond that is an error, never a
// truncated shape that no longer matches the buffers.
Status ActShapeOf(const ir::Shape& s, q::ActShape* out) {
  if (s.size() != 4 || !CheckedCast(s[0], &out->n) || !CheckedCast(s[1], &out->c) ||
      !CheckedCast(s[2], &out->h) || !CheckedCast(s[3], &out->w)) {
    return InvalidArgument("activation " + ir::ShapeToString(s) +
                           " is not 4-D with dims below 2^32");
  }
  return Status::Ok();
}

// Scratch for a blocked copy, allocated as a tensor so it gets the same size limit and the same
// out-of-memory handling as every other allocation the interpreter makes.
Status Scratch(size_t bytes, ir::Tensor* out) {
  int64_t n = 0;
  if (!CheckedCast(bytes, &n)) return InvalidArgument("blocked copy too large");
  return ir::Tensor::Create(DType::kI8, {n}, out).WithContext("blocked copy");
}

Status Pack(const ir::Tensor& t, ir::Tensor* out) {
  q::ActShape s;
  LOOM_RETURN_IF_ERROR(ActShapeOf(t.shape(), &s));
  LOOM_RETURN_IF_ERROR(Scratch(q::BlockedBytes(kBlocking, s), out));
  return q::PackActivation(kBlocking, s, t.data<int8_t>(), out->mutable_data<int8_t>());
}

Status Unpack(const ir::Tensor& blocked, ir::Tensor* t) {
  q::ActShape s;
  LOOM_RETURN_IF_ERROR(ActShapeOf(t->shape(), &s));
  return q::UnpackActivation(kBlocking, s, blocked.data<int8_t>(), t->mutable_data<int8_t>());
}

Status WindowOf(const ir::Node& n, q::PoolParams* p) {
  const auto k = n.GetInts("kernel"), s = n.GetInts("strides"), pads = n.GetInts("pads");
  if (k.size() != 2 || s.size() != 2 || pads.size() != 4 || !CheckedCast(k[0], &p->kh) ||
      !CheckedCast(k[1], &p->kw) || !CheckedCast(s[0], &p->stride_h) ||
      !CheckedCast(s[1], &p->stride_w) || !CheckedCast(pads[0], &p->pad_top) ||
      !CheckedCast(pads[1], &p->pad_left) || !CheckedCast(pads[2], &p->pad_bottom) ||
      !CheckedCast(pads[3], &p->pad_right)) {
    return InvalidArgument("kernel, strides and pads must be 2, 2 and 4 values below 2^32");
  }
  return Status::Ok();
}

q::Requant RequantOf(const ir::Node& n) {
  q::Requant rq;
  rq.pre_shift = static_cast<int32_t>(n.GetInt("pre_shift", 0));
  rq.post_shift = static_cast<int32_t>(n.GetInt("post_shift", 0));
  rq.clip_lo = static_cast<int32_t>(n.GetInt("clip_lo", -128));
  rq.clip_hi = static_cast<int32_t>(n.GetInt("clip_hi", 127));
  return rq;
}

// The output shape the kernel will write, checked against the IR's: the kernels compute it in
// 32 bits, and a mismatch would make Unpack read past the blocked buffer.
Status CheckOut(ExecContext& ctx, const q::ActShape& kernel_out, ir::Tensor* yb) {
  q::ActShape y;
  LOOM_RETURN_IF_ERROR(ActShapeOf(ctx.output_tensor(0).shape(), &y));
  if (!(kernel_out == y)) return InvalidArgument("window geometry overflows 32 bits");
  return Scratch(q::BlockedBytes(kBlocking, y), yb);
}

Status ExecQConv2d(ExecContext& ctx) {
  const ir::Node& n = ctx.node();
  const ir::Tensor& x = ctx.input_tensor(0);
  const ir::Tensor& w = ctx.input_tensor(1);
  q::PoolParams win;
  LOOM_RETURN_IF_ERROR(ctx.Wrap(WindowOf(n, &win)));
  q::Conv2dParams p;
  LOOM_RETURN_IF_ERROR(ctx.Wrap(ActShapeOf(x.shape(), &p.in)));
  if (!CheckedCast(ctx.output_tensor(0).shape()[1], &p.out_c)) {
    return ctx.Wrap(InvalidArgument("output channels do not fit 32 bits"));
  }
  p.kh = win.kh;
  p.kw = win.kw;
  p.stride_h = win.stride_h;
  p.stride_w = win.stride_w;
  p.pad_top = win.pad_top;
  p.pad_left = win.pad_left;
  p.pad_bottom = win.pad_bottom;
  p.pad_right = win.pad_right;
  p.depthwise = n.GetInt("depthwise", 0) != 0;
  p.groups = static_cast<uint32_t>(n.GetInt("group", 1));
  if (!p.depthwise) p.group_c = static_cast<uint32_t>(w.shape()[1]);
  p.pad_value = static_cast<int32_t>(n.GetInt("pad_value", 0));
  p.rq = RequantOf(n);
  ir::Tensor xb, wb, yb;
  LOOM_RETURN_IF_ERROR(ctx.Wrap(CheckOut(ctx, p.out(), &yb)));
  LOOM_RETURN_IF_ERROR(ctx.Wrap(Pack(x, &xb)));
  if (p.depthwise) {
    LOOM_RETURN_IF_ERROR(
        ctx.Wrap(Scratch(q::DepthwiseWeightBytes(kBlocking, p.in.c, p.kh, p.kw), &wb)));
    LOOM_RETURN_IF_ERROR(ctx.Wrap(q::PackDepthwiseWeights(
        kBlocking, p.in.c, p.kh, p.kw, w.data<int8_t>(), wb.mutable_data<int8_t>())));
  } else {
    LOOM_RETURN_IF_ERROR(
        ctx.Wrap(Scratch(q::ConvWeightBytes(kBlocking, p.out_c, p.group_c, p.kh, p.kw), &wb)));
    LOOM_RETURN_IF_ERROR(ctx.Wrap(q::PackConvWeights(kBlocking, p.out_c, p.group_c, p.kh, p.kw,
                                                     w.data<int8_t>(), wb.mutable_data<int8_t>())));
  }
  const int32_t* bias = ctx.has_input(2) ? ctx.input_tensor(2).data<int32_t>() : nullptr;
  LOOM_RETURN_IF_ERROR(
      ctx.Wrap(q::Conv2d(kBlocking, p, xb.data<int8_t>(), wb.data<int8_t>(), bias,
                         ctx.input_tensor(3).data<int32_t>(), yb.mutable_data<int8_t>())));
  return ctx.Wrap(Unpack(yb, &ctx.output_tensor(0)));
}

Status ExecQAdd(ExecContext& ctx) {
  const ir::Node& n = ctx.node();
  q::AddParams p;
  LOOM_RETURN_IF_ERROR(ctx.Wrap(ActShapeOf(ctx.input_tensor(0).shape(), &p.shape)));
  p.mult_a = static_cast<int32_t>(n.GetInt("mult_a", 1));
  p.mult_b = static_cast<int32_t>(n.GetInt("mult_b", 1));
  p.shift = static_cast<int32_t>(n.GetInt("shift", 0));
  p.clip_lo = static_cast<int32_t>(n.GetInt("clip_lo", -128));
  p.clip_hi = static_cast<int32_t>(n.GetInt("clip_hi", 127));
  ir::Tensor ab, bb, yb;
  LOOM_RETURN_IF_ERROR(ctx.Wrap(CheckOut(ctx, p.shape, &yb)));
  LOOM_RETURN_IF_ERROR(ctx.Wrap(Pack(ctx.input_tensor(0), &ab)));
  LOOM_RETURN_IF_ERROR(ctx.Wrap(Pack(ctx.input_tensor(1), &bb)));
  LOOM_RETURN_IF_ERROR(ctx.Wrap(
      q::Add(kBlocking, p, ab.data<int8_t>(), bb.data<int8_t>(), yb.mutable_data<int8_t>())));
  return ctx.Wrap(Unpack(yb, &ctx.output_tensor(0)));
}

Status ExecQMul(ExecContext& ctx) {
  const ir::Node& n = ctx.node();
  q::MulParams p;
  LOOM_RETURN_IF_ERROR(ctx.Wrap(ActShapeOf(ctx.input_tensor(0).shape(), &p.shape)));
  p.b_per_channel = ctx.input_tensor(1).shape() != ctx.input_tensor(0).shape();
  p.b_mult = static_cast<int32_t>(n.GetInt("b_mult", 1));
  p.b_offset = static_cast<int32_t>(n.GetInt("b_offset", 0));
  p.b_lo = static_cast<int32_t>(n.GetInt("b_lo", -128));
  p.b_hi = static_cast<int32_t>(n.GetInt("b_hi", 127));
  p.mult = static_cast<int32_t>(n.GetInt("mult", 1));
  p.a_offset = static_cast<int32_t>(n.GetInt("a_offset", 0));
  p.out_offset = static_cast<int32_t>(n.GetInt("out_offset", 0));
  p.rq = RequantOf(n);
  ir::Tensor ab, bb, yb;
  LOOM_RETURN_IF_ERROR(ctx.Wrap(CheckOut(ctx, p.shape, &yb)));
  LOOM_RETURN_IF_ERROR(ctx.Wrap(Pack(ctx.input_tensor(0), &ab)));
  LOOM_RETURN_IF_ERROR(ctx.Wrap(Pack(ctx.input_tensor(1), &bb)));
  LOOM_RETURN_IF_ERROR(ctx.Wrap(
      q::Mul(kBlocking, p, ab.data<int8_t>(), bb.data<int8_t>(), yb.mutable_data<int8_t>())));
  return ctx.Wrap(Unpack(yb, &ctx.output_tensor(0)));
}

Status ExecQMaxPool(ExecContext& ctx) {
  q::PoolParams p;
  LOOM_RETURN_IF_ERROR(ctx.Wrap(WindowOf(ctx.node(), &p)));
  LOOM_RETURN_IF_ERROR(ctx.Wrap(ActShapeOf(ctx.input_tensor(0).shape(), &p.in)));
  ir::Tensor xb, yb;
  LOOM_RETURN_IF_ERROR(ctx.Wrap(CheckOut(ctx, p.out(), &yb)));
  LOOM_RETURN_IF_ERROR(ctx.Wrap(Pack(ctx.input_tensor(0), &xb)));
  LOOM_RETURN_IF_ERROR(
      ctx.Wrap(q::MaxPool(kBlocking, p, xb.data<int8_t>(), yb.mutable_data<int8_t>())));
  return ctx.Wrap(Unpack(yb, &ctx.output_tensor(0)));
}

Status ExecQAvgPool(ExecContext& ctx) {
  q::AvgPoolParams p;
  LOOM_RETURN_IF_ERROR(ctx.Wrap(WindowOf(ctx.node(), &p.pool)));
  LOOM_RETURN_IF_ERROR(ctx.Wrap(ActShapeOf(ctx.input_tensor(0).shape(), &p.pool.in)));
  p.count_include_pad = ctx.node().GetInt("count_include_pad", 0) != 0;
  p.x_offset = static_cast<int32_t>(ctx.node().GetInt("x_offset", 0));
  p.out_offset = static_cast<int32_t>(ctx.node().GetInt("out_offset", 0));
  p.rq = RequantOf(ctx.node());
  ir::Tensor xb, yb;
  LOOM_RETURN_IF_ERROR(ctx.Wrap(CheckOut(ctx, p.pool.out(), &yb)));
  LOOM_RETURN_IF_ERROR(ctx.Wrap(Pack(ctx.input_tensor(0), &xb)));
  LOOM_RETURN_IF_ERROR(ctx.Wrap(q::AvgPool(kBlocking, p, ctx.input_tensor(1).data<int32_t>(),
                                           xb.data<int8_t>(), yb.mutable_data<int8_t>())));
  return ctx.Wrap(Unpack(yb, &ctx.output_tensor(0)));
}

Status ExecQConcat(ExecContext& ctx) {
  const auto mults = ctx.node().GetInts("mults"), shifts = ctx.node().GetInts("shifts");
  const int k = ctx.num_inputs();
  std::vector<ir::Tensor> packed(static_cast<size_t>(k));
  std::vector<q::ConcatInput> ins(static_cast<size_t>(k));
  for (int i = 0; i < k; ++i) {
    const size_t u = static_cast<size_t>(i);
    LOOM_RETURN_IF_ERROR(ctx.Wrap(Pack(ctx.input_tensor(i), &packed[u])));
    LOOM_RETURN_IF_ERROR(ctx.Wrap(ActShapeOf(ctx.input_tensor(i).shape(), &ins[u].shape)));
    ins[u].data = packed[u].data<int8_t>();
    ins[u].mult = static_cast<int32_t>(mults[u]);
    ins[u].shift = static_cast<int32_t>(shifts[u]);
  }
  ir::Tensor yb;
  q::ActShape y;
  LOOM_RETURN_IF_ERROR(ctx.Wrap(ActShapeOf(ctx.output_tensor(0).shape(), &y)));
  LOOM_RETURN_IF_ERROR(ctx.Wrap(CheckOut(ctx, y, &yb)));
  LOOM_RETURN_IF_ERROR(
      ctx.Wrap(q::Concat(kBlocking, ins.data(), ins.size(), yb.mutable_data<int8_t>())));
  return ctx.Wrap(Unpack(yb, &ctx.output_tensor(0)));
}

// q.resize and q.zero_insert: one activation in, a larger one out, through
// kernel(input shape, packed input, packed output).
template <typename Kernel>
Status ExecScaledPlane(ExecContext& ctx, Kernel kernel) {
  q::ActShape x, y;
  ir::Tensor xb, yb;
  LOOM_RETURN_IF_ERROR(ctx.Wrap(ActShapeOf(ctx.input_tensor(0).shape(), &x)));
  LOOM_RETURN_IF_ERROR(ctx.Wrap(ActShapeOf(ctx.output_tensor(0).shape(), &y)));
  LOOM_RETURN_IF_ERROR(ctx.Wrap(CheckOut(ctx, y, &yb)));
  LOOM_RETURN_IF_ERROR(ctx.Wrap(Pack(ctx.input_tensor(0), &xb)));
  LOOM_RETURN_IF_ERROR(ctx.Wrap(kernel(x, xb.data<int8_t>(), yb.mutable_data<int8_t>())));
  return ctx.Wrap(Unpack(yb, &ctx.output_tensor(0)));
}

Status ExecQResize(ExecContext& ctx) {
  return ExecScaledPlane(ctx, [&](const q::ActShape& x, const int8_t* in, int8_t* out) {
    q::ResizeParams p;
    p.shape = x;
    p.factor_h = static_cast<uint32_t>(ctx.node().GetInt("factor_h", 1));
    p.factor_w = static_cast<uint32_t>(ctx.node().GetInt("factor_w", 1));
    return q::ResizeNearest(kBlocking, p, in, out);
  });
}

Status ExecQZeroInsert(ExecContext& ctx) {
  return ExecScaledPlane(ctx, [&](const q::ActShape& x, const int8_t* in, int8_t* out) {
    q::ZeroInsertParams p;
    p.shape = x;
    p.stride_h = static_cast<uint32_t>(ctx.node().GetInt("stride_h", 1));
    p.stride_w = static_cast<uint32_t>(ctx.node().GetInt("stride_w", 1));
    return q::ZeroInsert(kBlocking, p, in, out);
  });
}

Status ExecQQuantize(ExecContext& ctx) {
  const ir::Tensor& x = ctx.input_tensor(0);
  ir::Tensor& y = ctx.output_tensor(0);
  return ctx.Wrap(q::QuantizeF32(x.data<float>(), static_cast<size_t>(x.num_elements()),
                                 ctx.output_scale(0), ctx.output_zero_point(0),
                                 y.mutable_data<int8_t>()));
}

Status ExecQDequantize(ExecContext& ctx) {
  const ir::Tensor& x = ctx.input_tensor(0);
  ir::Tensor& y = ctx.output_tensor(0);
  return ctx.Wrap(q::DequantizeF32(x.data<int8_t>(), static_cast<size_t>(x.num_elements()),
                                   ctx.input_scale(0), ctx.input_zero_point(0),
                                   y.mutable_data<float>()));
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
    {"q.conv2d", ExecQConv2d},
    {"q.add", ExecQAdd},
    {"q.mul", ExecQMul},
    {"q.max_pool", ExecQMaxPool},
    {"q.avg_pool", ExecQAvgPool},
    {"q.concat", ExecQConcat},
    {"q.resize", ExecQResize},
    {"q.quantize", ExecQQuantize},
    {"q.dequantize", ExecQDequantize},
    {"q.relayout", ExecQRelayout},
    {"q.zero_insert", ExecQZeroInsert},
};

}  // namespace

ExecFn FindQuantExecutor(std::string_view op) {
  for (const Entry& e : kQuantOps) {
    if (op == e.op) return e.fn;
  }
  return nullptr;
}

}  // namespace loom::interp
