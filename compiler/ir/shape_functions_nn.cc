// Shape functions of the compute ops: convolutions, matrix products, normalization, pooling and
// (de)quantization.
#include "compiler/ir/shape_functions.h"
#include "runtime/core/checked_math.h"

namespace loom::ir {
namespace {

// Per-spatial-dim output size of a sliding window; ceil_mode as ONNX defines it (no correction
// for windows that start in the end padding, matching onnx shape inference and onnxruntime).
// False when the padded input or the dilated kernel does not fit int64 (attributes near
// INT64_MAX); every other step is then overflow-free.
bool WindowOutput(int64_t in, int64_t pad_begin, int64_t pad_end, int64_t kernel, int64_t stride,
                  int64_t dil, bool ceil_mode, int64_t* out) {
  int64_t padded = 0, span = 0;
  if (!CheckedAdd(in, pad_begin, &padded) || !CheckedAdd(padded, pad_end, &padded) ||
      !CheckedMul(dil, kernel - 1, &span) || !CheckedAdd(span, int64_t{1}, &span)) {
    return false;
  }
  const int64_t room = padded - span;
  if (room < 0) {
    *out = 0;
  } else {
    *out = room / stride + (ceil_mode && room % stride != 0 ? 1 : 0) + 1;
  }
  return true;
}

// Checks strides/pads/dilations against `s` spatial dims and computes the output spatial dims of
// a window of `kernel` over `in_spatial`.
Status WindowShape(const InferContext& ctx, const Shape& in_spatial, const Shape& kernel,
                   bool ceil_mode, Shape* out) {
  const Node& n = ctx.node();
  const size_t s = in_spatial.size();
  const std::vector<int64_t> strides = n.GetInts("strides");
  const std::vector<int64_t> pads = n.GetInts("pads");
  std::vector<int64_t> dilations = n.GetInts("dilations");
  if (!n.FindAttr("dilations")) dilations.assign(s, 1);  // AveragePool has none
  if (strides.size() != s || dilations.size() != s || pads.size() != 2 * s || kernel.size() != s) {
    return ctx.Error("strides, dilations and kernel need " + std::to_string(s) +
                     " entries and pads " + std::to_string(2 * s));
  }
  out->clear();
  for (size_t i = 0; i < s; ++i) {
    if (strides[i] < 1 || dilations[i] < 1 || kernel[i] < 1) {
      return ctx.Error("kernel, strides and dilations must be >= 1");
    }
    if (pads[i] < 0 || pads[s + i] < 0) return ctx.Error("pads must be >= 0");
    int64_t o = 0;
    if (!WindowOutput(in_spatial[i], pads[i], pads[s + i], kernel[i], strides[i], dilations[i],
                      ceil_mode, &o)) {
      return ctx.Error("spatial dim " + std::to_string(i) + ": input " +
                       std::to_string(in_spatial[i]) + " + pads " + std::to_string(pads[i]) +
                       " + " + std::to_string(pads[s + i]) + " or dilation " +
                       std::to_string(dilations[i]) + " x (kernel " + std::to_string(kernel[i]) +
                       " - 1) overflows 64 bits");
    }
    if (o < 1) {
      return ctx.Error("window of " + std::to_string(kernel[i]) + " does not fit spatial dim " +
                       std::to_string(i) + " (" + std::to_string(in_spatial[i]) + " + pads)");
    }
    out->push_back(o);
  }
  return Status::Ok();
}

// Shared by Conv, ConvInteger and QLinearConv: x [N, C, D...], w [M, C/group, K...].
Status ConvShape(const InferContext& ctx, const Value& x, const Value& w, Shape* out) {
  if (x.shape.size() < 3) return ctx.Error("input must be [N, C, D1, ...]");
  if (w.shape.size() != x.shape.size()) return ctx.Error("weights must have the input's rank");
  const int64_t group = ctx.node().GetInt("group", 1);
  const int64_t c = x.shape[1], m = w.shape[0];
  int64_t wc = 0;
  if (group < 1 || c % group != 0 || m % group != 0 || !CheckedMul(w.shape[1], group, &wc) ||
      wc != c) {
    return ctx.Error(std::to_string(c) + " input channels and weights " + ShapeToString(w.shape) +
                     " do not fit group " + std::to_string(group));
  }
  const Shape in_spatial(x.shape.begin() + 2, x.shape.end());
  const Shape kernel(w.shape.begin() + 2, w.shape.end());
  Shape spatial;
  LOOM_RETURN_IF_ERROR(WindowShape(ctx, in_spatial, kernel, false, &spatial));
  *out = {x.shape[0], m};
  out->insert(out->end(), spatial.begin(), spatial.end());
  return Status::Ok();
}

// A zero point: dtype `t`, one value or `per_channel` values (0 = scalar only).
Status CheckZeroPoint(const InferContext& ctx, int i, DType t, int64_t per_channel) {
  if (!ctx.has_input(i)) return Status::Ok();
  LOOM_RETURN_IF_ERROR(ExpectDType(ctx, i, {t}));
  const Value& v = ctx.input(i);
  const int64_t n = NumElementsUnchecked(v.shape);
  if (IsScalarLike(v) || (per_channel > 0 && v.shape.size() == 1 && n == per_channel)) {
    return Status::Ok();
  }
  return ctx.Error("zero point %" + v.name() + " must be a scalar" +
                   (per_channel > 0 ? " or have " + std::to_string(per_channel) + " values" : ""));
}

Status CheckScale(const InferContext& ctx, int i, int64_t per_channel) {
  LOOM_RETURN_IF_ERROR(ExpectDType(ctx, i, {DType::kF32}));
  const Value& v = ctx.input(i);
  if (IsScalarLike(v)) return Status::Ok();
  if (per_channel > 0 && v.shape.size() == 1 && v.shape[0] == per_channel) return Status::Ok();
  return ctx.Error("scale %" + v.name() + " must be a scalar" +
                   (per_channel > 0 ? " or have " + std::to_string(per_channel) + " values" : ""));
}

// numpy matmul output shape.
Status MatMulShape(const InferContext& ctx, const Shape& a, const Shape& b, Shape* out) {
  if (a.empty() || b.empty()) return ctx.Error("matmul operands must have rank >= 1");
  const int64_t k = a.back();
  const int64_t kb = b.size() == 1 ? b[0] : b[b.size() - 2];
  if (k != kb) {
    return ctx.Error("inner dimensions differ: " + ShapeToString(a) + " x " + ShapeToString(b));
  }
  const Shape ab(a.begin(), a.size() > 2 ? a.end() - 2 : a.begin());
  const Shape bb(b.begin(), b.size() > 2 ? b.end() - 2 : b.begin());
  if (!BroadcastShapes(ab, bb, out)) {
    return ctx.Error("batch dims of " + ShapeToString(a) + " and " + ShapeToString(b) +
                     " do not broadcast");
  }
  if (a.size() >= 2) out->push_back(a[a.size() - 2]);
  if (b.size() >= 2) out->push_back(b.back());
  return Status::Ok();
}

// Shared by QuantizeLinear and DequantizeLinear: scale/zero point per tensor or along `axis`.
Status CheckQuantAxis(const InferContext& ctx, DType zp_dtype) {
  const Shape& x = ctx.input(0).shape;
  const Value& scale = ctx.input(1);
  LOOM_RETURN_IF_ERROR(ExpectDType(ctx, 1, {DType::kF32}));
  LOOM_RETURN_IF_ERROR(ExpectDType(ctx, 2, {zp_dtype}));
  if (ctx.input(2).shape != scale.shape) {
    return ctx.Error("scale and zero point must have the same shape");
  }
  if (IsScalarLike(scale)) {
    // Per tensor (onnxruntime reads a [1] scale that way too); an axis would be meaningless.
    if (ctx.node().FindAttr("axis")) return ctx.Error("axis is only allowed with a per-axis scale");
    return Status::Ok();
  }
  if (!ctx.node().FindAttr("axis")) return ctx.Error("a per-axis scale needs the axis attribute");
  const int64_t axis = ctx.node().GetInt("axis", -1);
  if (scale.shape.size() != 1 || axis < 0 || axis >= static_cast<int64_t>(x.size()) ||
      scale.shape[0] != x[axis]) {
    return ctx.Error("per-axis scale " + ShapeToString(scale.shape) + " does not match axis " +
                     std::to_string(axis) + " of " + ShapeToString(x));
  }
  return Status::Ok();
}

}  // namespace

namespace shape {

Status Conv(InferContext& ctx) {
  LOOM_RETURN_IF_ERROR(ExpectDType(ctx, 0, {DType::kF32}));
  LOOM_RETURN_IF_ERROR(ExpectDType(ctx, 1, {DType::kF32}));
  Shape out;
  LOOM_RETURN_IF_ERROR(ConvShape(ctx, ctx.input(0), ctx.input(1), &out));
  if (ctx.has_input(2)) {
    LOOM_RETURN_IF_ERROR(ExpectDType(ctx, 2, {DType::kF32}));
    if (ctx.input(2).shape != Shape{out[1]}) return ctx.Error("bias must be [M]");
  }
  LOOM_RETURN_IF_ERROR(CheckActivationAttrs(ctx));
  ctx.SetOutput(0, DType::kF32, std::move(out));
  return Status::Ok();
}

Status ConvInteger(InferContext& ctx) {
  LOOM_RETURN_IF_ERROR(ExpectDType(ctx, 0, {DType::kU8, DType::kI8}));
  LOOM_RETURN_IF_ERROR(ExpectDType(ctx, 1, {DType::kU8, DType::kI8}));
  Shape out;
  LOOM_RETURN_IF_ERROR(ConvShape(ctx, ctx.input(0), ctx.input(1), &out));
  LOOM_RETURN_IF_ERROR(CheckZeroPoint(ctx, 2, ctx.input(0).dtype, 0));
  LOOM_RETURN_IF_ERROR(CheckZeroPoint(ctx, 3, ctx.input(1).dtype, out[1]));
  ctx.SetOutput(0, DType::kI32, std::move(out));
  return Status::Ok();
}

// Inputs: x, x_scale, x_zp, w, w_scale, w_zp, y_scale, y_zp, [bias].
Status QLinearConv(InferContext& ctx) {
  LOOM_RETURN_IF_ERROR(ExpectDType(ctx, 0, {DType::kU8, DType::kI8}));
  LOOM_RETURN_IF_ERROR(ExpectDType(ctx, 3, {DType::kU8, DType::kI8}));
  LOOM_RETURN_IF_ERROR(ExpectDType(ctx, 7, {DType::kU8, DType::kI8}));
  Shape out;
  LOOM_RETURN_IF_ERROR(ConvShape(ctx, ctx.input(0), ctx.input(3), &out));
  const int64_t m = out[1];
  LOOM_RETURN_IF_ERROR(CheckScale(ctx, 1, 0));
  LOOM_RETURN_IF_ERROR(CheckZeroPoint(ctx, 2, ctx.input(0).dtype, 0));
  LOOM_RETURN_IF_ERROR(CheckScale(ctx, 4, m));
  LOOM_RETURN_IF_ERROR(CheckZeroPoint(ctx, 5, ctx.input(3).dtype, m));
  LOOM_RETURN_IF_ERROR(CheckScale(ctx, 6, 0));
  LOOM_RETURN_IF_ERROR(CheckZeroPoint(ctx, 7, ctx.input(7).dtype, 0));
  if (ctx.has_input(8)) {
    LOOM_RETURN_IF_ERROR(ExpectDType(ctx, 8, {DType::kI32}));
    if (ctx.input(8).shape != Shape{m}) return ctx.Error("bias must be i32 [M]");
  }
  ctx.SetOutput(0, ctx.input(7).dtype, std::move(out));
  return Status::Ok();
}

Status Gemm(InferContext& ctx) {
  LOOM_RETURN_IF_ERROR(ExpectDType(ctx, 0, {DType::kF32}));
  LOOM_RETURN_IF_ERROR(ExpectDType(ctx, 1, {DType::kF32}));
  const Shape& a = ctx.input(0).shape;
  const Shape& b = ctx.input(1).shape;
  if (a.size() != 2 || b.size() != 2) return ctx.Error("A and B must be 2-D");
  const int64_t ta = ctx.node().GetInt("transA", 0), tb = ctx.node().GetInt("transB", 0);
  if ((ta != 0 && ta != 1) || (tb != 0 && tb != 1)) return ctx.Error("transA/transB must be 0/1");
  const int64_t m = ta ? a[1] : a[0], k = ta ? a[0] : a[1];
  const int64_t kb = tb ? b[1] : b[0], n = tb ? b[0] : b[1];
  if (k != kb) {
    return ctx.Error("inner dimensions differ: op(A) is [" + std::to_string(m) + "," +
                     std::to_string(k) + "], op(B) [" + std::to_string(kb) + "," +
                     std::to_string(n) + "]");
  }
  if (ctx.has_input(2)) {
    LOOM_RETURN_IF_ERROR(ExpectDType(ctx, 2, {DType::kF32}));
    Shape bc;
    const Shape& c = ctx.input(2).shape;
    if (c.size() > 2 || !BroadcastShapes(c, {m, n}, &bc) || bc != Shape{m, n}) {
      return ctx.Error("C " + ShapeToString(c) + " does not broadcast to [" + std::to_string(m) +
                       "," + std::to_string(n) + "]");
    }
  }
  LOOM_RETURN_IF_ERROR(CheckActivationAttrs(ctx));
  ctx.SetOutput(0, DType::kF32, {m, n});
  return Status::Ok();
}

Status MatMul(InferContext& ctx) {
  LOOM_RETURN_IF_ERROR(ExpectDType(ctx, 0, {DType::kF32}));
  LOOM_RETURN_IF_ERROR(ExpectDType(ctx, 1, {DType::kF32}));
  Shape out;
  LOOM_RETURN_IF_ERROR(MatMulShape(ctx, ctx.input(0).shape, ctx.input(1).shape, &out));
  ctx.SetOutput(0, DType::kF32, std::move(out));
  return Status::Ok();
}

Status MatMulInteger(InferContext& ctx) {
  LOOM_RETURN_IF_ERROR(ExpectDType(ctx, 0, {DType::kU8, DType::kI8}));
  LOOM_RETURN_IF_ERROR(ExpectDType(ctx, 1, {DType::kU8, DType::kI8}));
  const Shape& a = ctx.input(0).shape;
  const Shape& b = ctx.input(1).shape;
  Shape out;
  LOOM_RETURN_IF_ERROR(MatMulShape(ctx, a, b, &out));
  const int64_t m = a.size() >= 2 ? a[a.size() - 2] : 1;
  const int64_t n = b.size() >= 2 ? b.back() : 1;
  LOOM_RETURN_IF_ERROR(CheckZeroPoint(ctx, 2, ctx.input(0).dtype, m));
  LOOM_RETURN_IF_ERROR(CheckZeroPoint(ctx, 3, ctx.input(1).dtype, n));
  ctx.SetOutput(0, DType::kI32, std::move(out));
  return Status::Ok();
}

// Inputs: a, a_scale, a_zp, b, b_scale, b_zp, y_scale, y_zp; per-tensor only.
Status QLinearMatMul(InferContext& ctx) {
  LOOM_RETURN_IF_ERROR(ExpectDType(ctx, 0, {DType::kU8, DType::kI8}));
  LOOM_RETURN_IF_ERROR(ExpectDType(ctx, 3, {DType::kU8, DType::kI8}));
  LOOM_RETURN_IF_ERROR(ExpectDType(ctx, 7, {DType::kU8, DType::kI8}));
  Shape out;
  LOOM_RETURN_IF_ERROR(MatMulShape(ctx, ctx.input(0).shape, ctx.input(3).shape, &out));
  for (int i : {1, 4, 6}) LOOM_RETURN_IF_ERROR(CheckScale(ctx, i, 0));
  LOOM_RETURN_IF_ERROR(CheckZeroPoint(ctx, 2, ctx.input(0).dtype, 0));
  LOOM_RETURN_IF_ERROR(CheckZeroPoint(ctx, 5, ctx.input(3).dtype, 0));
  LOOM_RETURN_IF_ERROR(CheckZeroPoint(ctx, 7, ctx.input(7).dtype, 0));
  ctx.SetOutput(0, ctx.input(7).dtype, std::move(out));
  return Status::Ok();
}

Status BatchNormalization(InferContext& ctx) {
  LOOM_RETURN_IF_ERROR(ExpectDType(ctx, 0, {DType::kF32}));
  const Shape& x = ctx.input(0).shape;
  if (x.size() < 2) return ctx.Error("input must be [N, C, ...]");
  for (int i = 1; i <= 4; ++i) {
    LOOM_RETURN_IF_ERROR(ExpectDType(ctx, i, {DType::kF32}));
    if (ctx.input(i).shape != Shape{x[1]}) {
      return ctx.Error("scale, bias, mean and var must be [" + std::to_string(x[1]) + "]");
    }
  }
  ctx.SetOutput(0, DType::kF32, x);
  return Status::Ok();
}

Status MaxPool(InferContext& ctx) {
  LOOM_RETURN_IF_ERROR(ExpectDType(ctx, 0, {DType::kF32, DType::kU8, DType::kI8}));
  const Shape& x = ctx.input(0).shape;
  if (x.size() < 3) return ctx.Error("input must be [N, C, D1, ...]");
  const int64_t ceil_mode = ctx.node().GetInt("ceil_mode", 0);
  const int64_t order = ctx.node().GetInt("storage_order", 0);
  if ((ceil_mode != 0 && ceil_mode != 1) || (order != 0 && order != 1)) {
    return ctx.Error("ceil_mode and storage_order must be 0 or 1");
  }
  Shape spatial;
  LOOM_RETURN_IF_ERROR(WindowShape(ctx, Shape(x.begin() + 2, x.end()),
                                   ctx.node().GetInts("kernel_shape"), ceil_mode != 0, &spatial));
  Shape out = {x[0], x[1]};
  out.insert(out.end(), spatial.begin(), spatial.end());
  if (ctx.num_outputs() > 1) ctx.SetOutput(1, DType::kI64, out);
  ctx.SetOutput(0, ctx.input(0).dtype, std::move(out));
  return Status::Ok();
}

Status AveragePool(InferContext& ctx) {
  LOOM_RETURN_IF_ERROR(ExpectDType(ctx, 0, {DType::kF32}));
  const Shape& x = ctx.input(0).shape;
  if (x.size() < 3) return ctx.Error("input must be [N, C, D1, ...]");
  const int64_t ceil_mode = ctx.node().GetInt("ceil_mode", 0);
  const int64_t cip = ctx.node().GetInt("count_include_pad", 0);
  if ((ceil_mode != 0 && ceil_mode != 1) || (cip != 0 && cip != 1)) {
    return ctx.Error("ceil_mode and count_include_pad must be 0 or 1");
  }
  Shape spatial;
  LOOM_RETURN_IF_ERROR(WindowShape(ctx, Shape(x.begin() + 2, x.end()),
                                   ctx.node().GetInts("kernel_shape"), ceil_mode != 0, &spatial));
  Shape out = {x[0], x[1]};
  out.insert(out.end(), spatial.begin(), spatial.end());
  ctx.SetOutput(0, DType::kF32, std::move(out));
  return Status::Ok();
}

Status GlobalAveragePool(InferContext& ctx) {
  LOOM_RETURN_IF_ERROR(ExpectDType(ctx, 0, {DType::kF32}));
  Shape out = ctx.input(0).shape;
  if (out.size() < 3) return ctx.Error("input must be [N, C, D1, ...]");
  for (size_t i = 2; i < out.size(); ++i) {
    if (out[i] == 0) return ctx.Error("empty spatial dimension");
    out[i] = 1;
  }
  ctx.SetOutput(0, DType::kF32, std::move(out));
  return Status::Ok();
}

Status QuantizeLinear(InferContext& ctx) {
  LOOM_RETURN_IF_ERROR(ExpectDType(ctx, 0, {DType::kF32, DType::kI32}));
  LOOM_RETURN_IF_ERROR(ExpectDType(ctx, 2, {DType::kU8, DType::kI8}));
  LOOM_RETURN_IF_ERROR(CheckQuantAxis(ctx, ctx.input(2).dtype));
  ctx.SetOutput(0, ctx.input(2).dtype, ctx.input(0).shape);
  return Status::Ok();
}

Status DequantizeLinear(InferContext& ctx) {
  LOOM_RETURN_IF_ERROR(ExpectDType(ctx, 0, {DType::kU8, DType::kI8, DType::kI32}));
  LOOM_RETURN_IF_ERROR(CheckQuantAxis(ctx, ctx.input(0).dtype));
  ctx.SetOutput(0, DType::kF32, ctx.input(0).shape);
  return Status::Ok();
}

}  // namespace shape
}  // namespace loom::ir
