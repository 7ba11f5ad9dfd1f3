// Shape functions of the quantized graph's ops (q.*). Besides shapes they enforce the quantized
// graph's invariants (docs/quantization.md): every i8 activation carries a per-tensor symmetric
// scale (zero point 0); weights, biases and multipliers are constants; shifts and clips are in the
// ranges runtime/kernels/int8/qops.h accepts, so a verified graph never fails in a kernel.
#include <cmath>
#include <cstdint>

#include "compiler/ir/shape_functions.h"
#include "runtime/core/checked_math.h"

namespace loom::ir {
namespace {

// `symmetric`: the op takes no zero point there (q.add, q.concat, q.zero_insert).
Status CheckQuant(const InferContext& ctx, const Value& v, const std::string& what,
                  bool symmetric) {
  if (!v.quant) return ctx.Error(what + " %" + v.name() + " has no quantization scale");
  const QuantParams& q = *v.quant;
  if (q.per_axis() || q.scales.size() != 1 || q.zero_points.size() != 1) {
    return ctx.Error(what + " %" + v.name() + " must be quantized per tensor");
  }
  if (symmetric && q.zero_points[0] != 0) {
    return ctx.Error(what + " %" + v.name() + " must have zero point 0 (symmetric): " +
                     ctx.node().op + " takes no zero point");
  }
  if (q.zero_points[0] < -128 || q.zero_points[0] > 127) {
    return ctx.Error(what + " %" + v.name() + " has zero point " +
                     std::to_string(q.zero_points[0]) + " outside [-128, 127]");
  }
  if (!(q.scales[0] > 0.0f) || !std::isfinite(q.scales[0])) {
    return ctx.Error(what + " %" + v.name() + " needs a finite scale > 0");
  }
  return Status::Ok();
}

// Input i: an i8 activation with a per-tensor scale, of rank `rank` (-1: any).
Status Int8Input(const InferContext& ctx, int i, int rank, bool symmetric = false) {
  LOOM_RETURN_IF_ERROR(ExpectDType(ctx, i, {DType::kI8}));
  const Value& v = ctx.input(i);
  if (rank >= 0 && static_cast<int>(v.shape.size()) != rank) {
    return ctx.Error("input " + std::to_string(i) + " must have rank " + std::to_string(rank) +
                     ", is " + ShapeToString(v.shape));
  }
  return CheckQuant(ctx, v, "input", symmetric);
}

Status Int8Output(const InferContext& ctx, int i, bool symmetric = false) {
  return CheckQuant(ctx, ctx.graph().value(ctx.node().outputs[static_cast<size_t>(i)]), "output",
                    symmetric);
}

int32_t ZeroPoint(const Value& v) { return v.quant->zero_points[0]; }

// An integer attribute that must equal `want` (the zero point the quantizer put there).
Status ExpectAttr(const InferContext& ctx, const char* name, int64_t want, const char* what) {
  const int64_t v = ctx.node().GetInt(name, 0);
  if (v == want) return Status::Ok();
  return ctx.Error(std::string(name) + " " + std::to_string(v) + " must be " + what + " (" +
                   std::to_string(want) + ")");
}

// Ops that copy values keep the input's scale and zero point.
Status SameQuant(const InferContext& ctx, const char* op) {
  const Value& x = ctx.input(0);
  const Value& y = ctx.graph().value(ctx.node().outputs[0]);
  if (y.quant->scales[0] != x.quant->scales[0] || ZeroPoint(y) != ZeroPoint(x)) {
    return ctx.Error(std::string(op) +
                     " keeps the scale and zero point: the output's must equal the input's");
  }
  return Status::Ok();
}

// A constant input of dtype `t` and exactly `shape`.
Status ConstInput(const InferContext& ctx, int i, DType t, const Shape& shape, const char* what) {
  const Value& v = ctx.input(i);
  if (!v.is_constant() || v.dtype != t || v.shape != shape) {
    return ctx.Error(std::string(what) + " must be a " + TypeToString(t, shape) + " constant, is " +
                     (v.is_constant() ? "" : "non-constant ") + TypeToString(v.dtype, v.shape));
  }
  return Status::Ok();
}

Status CheckShiftAttr(const InferContext& ctx, const char* name) {
  const int64_t s = ctx.node().GetInt(name, 0);
  if (s < -31 || s > 31) return ctx.Error(std::string(name) + " must be in [-31, 31]");
  return Status::Ok();
}

Status CheckClipAttrs(const InferContext& ctx) {
  const int64_t lo = ctx.node().GetInt("clip_lo", -128), hi = ctx.node().GetInt("clip_hi", 127);
  if (lo < -128 || hi > 127 || lo > hi) {
    return ctx.Error("clip_lo/clip_hi must satisfy -128 <= clip_lo <= clip_hi <= 127");
  }
  return Status::Ok();
}

// kernel [kh, kw], strides [sh, sw], pads [top, left, bottom, right] over a [N, C, H, W] input;
// each pad < its kernel size (every window holds a real element). Output [N, C, OH, OW].
Status Window2D(const InferContext& ctx, const Shape& in, Shape* out) {
  const Node& n = ctx.node();
  const auto k = n.GetInts("kernel"), s = n.GetInts("strides"), p = n.GetInts("pads");
  if (k.size() != 2 || s.size() != 2 || p.size() != 4) {
    return ctx.Error("kernel and strides need 2 entries, pads 4 (top, left, bottom, right)");
  }
  for (int i = 0; i < 2; ++i) {
    if (k[i] < 1 || s[i] < 1) return ctx.Error("kernel and strides must be >= 1");
    if (p[i] < 0 || p[i + 2] < 0 || p[i] >= k[i] || p[i + 2] >= k[i]) {
      return ctx.Error("each pad must be >= 0 and smaller than its kernel size");
    }
  }
  *out = {in[0], in[1], 0, 0};
  for (int i = 0; i < 2; ++i) {
    int64_t padded = 0;
    if (!CheckedAdd(in[2 + i], p[i], &padded) || !CheckedAdd(padded, p[i + 2], &padded)) {
      return ctx.Error("input " + ShapeToString(in) + " plus pads overflows 64 bits");
    }
    const int64_t room = padded - k[i];
    if (room < 0) return ctx.Error("kernel does not fit the padded input " + ShapeToString(in));
    (*out)[2 + i] = room / s[i] + 1;
  }
  return Status::Ok();
}

}  // namespace

namespace shape {

Status QConv2d(InferContext& ctx) {
  LOOM_RETURN_IF_ERROR(Int8Input(ctx, 0, 4));
  if (ctx.num_inputs() != 4 || !ctx.has_input(3)) {
    return ctx.Error("needs inputs (x, w, bias or _, mult)");
  }
  const Shape& x = ctx.input(0).shape;
  const Value& w = ctx.input(1);
  const bool dw = ctx.node().GetInt("depthwise", 0) != 0;
  if (ctx.node().GetInt("depthwise", 0) > 1 || ctx.node().GetInt("depthwise", 0) < 0) {
    return ctx.Error("depthwise must be 0 or 1");
  }
  if (w.shape.size() != 4) return ctx.Error("weights must be [O, C/group, KH, KW]");
  // Groups of gc input and go = gc * O / C output channels, the last one possibly short
  // (runtime/kernels/int8/qops.h Conv2dParams).
  const int64_t o = w.shape[0], group = ctx.node().GetInt("group", 1), c = x[1];
  const int64_t gc = group == 1 ? c : w.shape[1];
  const int64_t go = c > 0 && gc * o % c == 0 ? gc * o / c : 0;
  if (group < 1 || (dw && group != 1) ||
      (group > 1 && !(go > 0 && (group - 1) * gc < c && c <= group * gc && (group - 1) * go < o &&
                      o <= group * go))) {
    return ctx.Error("group " + std::to_string(group) + " of " + std::to_string(gc) +
                     " input channels does not cover the input's " + std::to_string(c) +
                     " and the weights' " + std::to_string(o) +
                     " channels with at most a short last group (and is 1 with depthwise)");
  }
  const Shape wshape =
      dw ? Shape{c, 1, w.shape[2], w.shape[3]} : Shape{o, gc, w.shape[2], w.shape[3]};
  LOOM_RETURN_IF_ERROR(ConstInput(ctx, 1, DType::kI8, wshape, "weights"));
  if (ctx.node().GetInts("kernel") != Shape{w.shape[2], w.shape[3]}) {
    return ctx.Error("kernel must equal the weights' KH, KW");
  }
  if (ctx.has_input(2)) LOOM_RETURN_IF_ERROR(ConstInput(ctx, 2, DType::kI32, {o}, "bias"));
  LOOM_RETURN_IF_ERROR(ConstInput(ctx, 3, DType::kI32, {o}, "mult"));
  LOOM_RETURN_IF_ERROR(CheckShiftAttr(ctx, "pre_shift"));
  LOOM_RETURN_IF_ERROR(CheckShiftAttr(ctx, "post_shift"));
  LOOM_RETURN_IF_ERROR(CheckClipAttrs(ctx));
  Shape out;
  LOOM_RETURN_IF_ERROR(Window2D(ctx, x, &out));
  out[1] = o;
  LOOM_RETURN_IF_ERROR(Int8Output(ctx, 0));
  LOOM_RETURN_IF_ERROR(
      ExpectAttr(ctx, "pad_value", ZeroPoint(ctx.input(0)), "the input's zero point"));
  ctx.SetOutput(0, DType::kI8, std::move(out));
  return Status::Ok();
}

Status QAdd(InferContext& ctx) {
  LOOM_RETURN_IF_ERROR(Int8Input(ctx, 0, 4, true));
  LOOM_RETURN_IF_ERROR(Int8Input(ctx, 1, 4, true));
  if (ctx.input(0).shape != ctx.input(1).shape) {
    return ctx.Error("operands must have the same shape (no broadcasting), got " +
                     ShapeToString(ctx.input(0).shape) + " and " +
                     ShapeToString(ctx.input(1).shape));
  }
  for (const char* m : {"mult_a", "mult_b"}) {
    const int64_t v = ctx.node().GetInt(m, 0);
    if (v < -32768 || v > 32767) return ctx.Error(std::string(m) + " must be in [-32768, 32767]");
  }
  LOOM_RETURN_IF_ERROR(CheckShiftAttr(ctx, "shift"));
  LOOM_RETURN_IF_ERROR(CheckClipAttrs(ctx));
  LOOM_RETURN_IF_ERROR(Int8Output(ctx, 0, true));
  ctx.SetOutput(0, DType::kI8, ctx.input(0).shape);
  return Status::Ok();
}

Status QMul(InferContext& ctx) {
  LOOM_RETURN_IF_ERROR(Int8Input(ctx, 0, 4));
  LOOM_RETURN_IF_ERROR(Int8Input(ctx, 1, 4));
  const Shape& a = ctx.input(0).shape;
  const Shape& b = ctx.input(1).shape;
  if (b != a && b != Shape{a[0], a[1], 1, 1}) {
    return ctx.Error("b must have a's shape " + ShapeToString(a) + " or one value per channel " +
                     ShapeToString({a[0], a[1], 1, 1}) + ", got " + ShapeToString(b));
  }
  for (const char* m : {"mult", "b_mult", "b_offset", "b_lo", "b_hi"}) {
    const int64_t v = ctx.node().GetInt(m, 0);
    if (v < -32768 || v > 32767) return ctx.Error(std::string(m) + " must be in [-32768, 32767]");
  }
  if (ctx.node().GetInt("b_lo", -128) > ctx.node().GetInt("b_hi", 127)) {
    return ctx.Error("b_lo must not exceed b_hi");
  }
  LOOM_RETURN_IF_ERROR(CheckShiftAttr(ctx, "pre_shift"));
  LOOM_RETURN_IF_ERROR(CheckShiftAttr(ctx, "post_shift"));
  LOOM_RETURN_IF_ERROR(CheckClipAttrs(ctx));
  LOOM_RETURN_IF_ERROR(Int8Output(ctx, 0));
  LOOM_RETURN_IF_ERROR(
      ExpectAttr(ctx, "a_offset", -ZeroPoint(ctx.input(0)), "minus a's zero point"));
  LOOM_RETURN_IF_ERROR(ExpectAttr(ctx, "out_offset",
                                  ZeroPoint(ctx.graph().value(ctx.node().outputs[0])),
                                  "the output's zero point"));
  ctx.SetOutput(0, DType::kI8, a);
  return Status::Ok();
}

Status QMaxPool(InferContext& ctx) {
  LOOM_RETURN_IF_ERROR(Int8Input(ctx, 0, 4));
  Shape out;
  LOOM_RETURN_IF_ERROR(Window2D(ctx, ctx.input(0).shape, &out));
  LOOM_RETURN_IF_ERROR(Int8Output(ctx, 0));
  LOOM_RETURN_IF_ERROR(SameQuant(ctx, "max pooling"));
  ctx.SetOutput(0, DType::kI8, std::move(out));
  return Status::Ok();
}

Status QAvgPool(InferContext& ctx) {
  LOOM_RETURN_IF_ERROR(Int8Input(ctx, 0, 4));
  Shape out;
  LOOM_RETURN_IF_ERROR(Window2D(ctx, ctx.input(0).shape, &out));
  const auto k = ctx.node().GetInts("kernel");
  int64_t window = 0;
  if (!CheckedMul(k[0], k[1], &window)) return ctx.Error("kernel size overflows 64 bits");
  LOOM_RETURN_IF_ERROR(ConstInput(ctx, 1, DType::kI32, {window}, "mult_by_count"));
  LOOM_RETURN_IF_ERROR(CheckShiftAttr(ctx, "pre_shift"));
  LOOM_RETURN_IF_ERROR(CheckShiftAttr(ctx, "post_shift"));
  LOOM_RETURN_IF_ERROR(CheckClipAttrs(ctx));
  LOOM_RETURN_IF_ERROR(Int8Output(ctx, 0));
  LOOM_RETURN_IF_ERROR(
      ExpectAttr(ctx, "x_offset", -ZeroPoint(ctx.input(0)), "minus the input's zero point"));
  LOOM_RETURN_IF_ERROR(ExpectAttr(ctx, "out_offset",
                                  ZeroPoint(ctx.graph().value(ctx.node().outputs[0])),
                                  "the output's zero point"));
  ctx.SetOutput(0, DType::kI8, std::move(out));
  return Status::Ok();
}

Status QConcat(InferContext& ctx) {
  const auto mults = ctx.node().GetInts("mults"), shifts = ctx.node().GetInts("shifts");
  if (mults.size() != static_cast<size_t>(ctx.num_inputs()) || shifts.size() != mults.size()) {
    return ctx.Error("mults and shifts need one entry per input");
  }
  Shape out;
  for (int i = 0; i < ctx.num_inputs(); ++i) {
    LOOM_RETURN_IF_ERROR(Int8Input(ctx, i, 4, true));
    const Shape& s = ctx.input(i).shape;
    if (i == 0) {
      out = s;
      continue;
    }
    if (s[0] != out[0] || s[2] != out[2] || s[3] != out[3]) {
      return ctx.Error("input " + std::to_string(i) + " " + ShapeToString(s) +
                       " differs from input 0 outside the channel axis");
    }
    if (!CheckedAdd(out[1], s[1], &out[1])) return ctx.Error("channels add up past 64 bits");
  }
  for (size_t i = 0; i < shifts.size(); ++i) {
    if (shifts[i] < -31 || shifts[i] > 31) return ctx.Error("shifts must be in [-31, 31]");
    if (mults[i] < INT32_MIN || mults[i] > INT32_MAX) return ctx.Error("mults must fit int32");
  }
  LOOM_RETURN_IF_ERROR(Int8Output(ctx, 0, true));
  ctx.SetOutput(0, DType::kI8, std::move(out));
  return Status::Ok();
}

namespace {

// q.resize and q.zero_insert: the plane scaled by the integer factors named `fh` and `fw`. The
// zero insertion writes 0, the real 0 only at zero point 0 (`symmetric`).
Status ScaledPlane(InferContext& ctx, const char* fh_name, const char* fw_name, bool symmetric) {
  LOOM_RETURN_IF_ERROR(Int8Input(ctx, 0, 4, symmetric));
  Shape out = ctx.input(0).shape;
  const int64_t fh = ctx.node().GetInt(fh_name, 0), fw = ctx.node().GetInt(fw_name, 0);
  if (fh < 1 || fw < 1 || fh > INT32_MAX || fw > INT32_MAX) {
    return ctx.Error(std::string(fh_name) + " " + std::to_string(fh) + " and " + fw_name + " " +
                     std::to_string(fw) + " must be in [1, 2^31)");
  }
  if (!CheckedMul(out[2], fh, &out[2]) || !CheckedMul(out[3], fw, &out[3]) || out[2] > UINT32_MAX ||
      out[3] > UINT32_MAX) {
    return ctx.Error("scaled height or width beyond 32 bits");
  }
  LOOM_RETURN_IF_ERROR(Int8Output(ctx, 0, symmetric));
  LOOM_RETURN_IF_ERROR(SameQuant(ctx, ctx.node().op.c_str()));
  ctx.SetOutput(0, DType::kI8, std::move(out));
  return Status::Ok();
}

}  // namespace

Status QResize(InferContext& ctx) { return ScaledPlane(ctx, "factor_h", "factor_w", false); }

Status QZeroInsert(InferContext& ctx) { return ScaledPlane(ctx, "stride_h", "stride_w", true); }

Status QQuantize(InferContext& ctx) {
  LOOM_RETURN_IF_ERROR(ExpectDType(ctx, 0, {DType::kF32}));
  LOOM_RETURN_IF_ERROR(Int8Output(ctx, 0));
  ctx.SetOutput(0, DType::kI8, ctx.input(0).shape);
  return Status::Ok();
}

Status QDequantize(InferContext& ctx) {
  LOOM_RETURN_IF_ERROR(Int8Input(ctx, 0, -1));
  ctx.SetOutput(0, DType::kF32, ctx.input(0).shape);
  return Status::Ok();
}

Status QRelayout(InferContext& ctx) {
  LOOM_RETURN_IF_ERROR(Int8Input(ctx, 0, -1));
  LOOM_RETURN_IF_ERROR(Int8Output(ctx, 0));
  const Value& x = ctx.input(0);
  LOOM_RETURN_IF_ERROR(SameQuant(ctx, "a relayout"));
  Shape out = x.shape;
  if (ctx.node().FindAttr("shape")) {
    out = ctx.node().GetInts("shape");
    int64_t a = 0, b = 0;
    if (!NumElements(out, &a).ok() || !NumElements(x.shape, &b).ok() || a != b) {
      return ctx.Error("shape " + ShapeToString(out) + " does not hold the " +
                       ShapeToString(x.shape) + " input's elements");
    }
    if (x.layout != Layout::kPlain) return ctx.Error("a reshape needs plain input data");
  }
  ctx.SetOutput(0, DType::kI8, std::move(out));
  return Status::Ok();
}

}  // namespace shape
}  // namespace loom::ir
