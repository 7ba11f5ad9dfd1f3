// The rewrite of quantize.h: one function per source op (the table at the bottom), each either
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
#include "runtime/core/checked_math.h"

namespace loom::quantize {
namespace {

using ir::Attribute;
using ir::Node;
using ir::Shape;
using ir::ValueId;

class Rewriter {
 public:
  Rewriter(ir::Graph& g, const Ranges& ranges, QuantizeResult* res)
      : g_(g), ranges_(ranges), res_(res) {}

  Status Run();

 private:
  using RewriteFn = Status (Rewriter::*)(Node& n, bool* done);
  Status RewriteConv(Node& n, bool* done);
  Status RewriteConvTranspose(Node& n, bool* done);
  Status RewriteGemm(Node& n, bool* done);
  Status RewriteMatMul(Node& n, bool* done);
  Status MatMulOverRows(Node& n, const std::vector<float>& w, int64_t o, int64_t k,
                        const std::vector<float>& bias, bool* done);
  Status RewriteAdd(Node& n, bool* done);
  Status RewriteMul(Node& n, bool* done);
  Status RewriteHardSwish(Node& n, bool* done);
  // q.mul of x by the gate g (x's shape or [N, C, 1, 1]); a HardSigmoid gate (alpha > 0) is read
  // through its input as the clamp of q.mul's b.
  Status EmitMul(Node& n, ValueId x, ValueId g, bool hard, double alpha, double beta, bool* done);
  Status RewriteMaxPool(Node& n, bool* done);
  Status RewriteAveragePool(Node& n, bool* done);
  Status RewriteGlobalAveragePool(Node& n, bool* done);
  Status RewriteConcat(Node& n, bool* done);
  Status RewriteResize(Node& n, bool* done);

  struct DenseLike {  // what q.conv2d needs, from Conv, Gemm or MatMul
    ValueId x = ir::kNoValue;  // f32 input (rank 4 or 2)
    std::vector<float> w;      // logical [O, C', KH, KW]
    int64_t o = 0, c = 0, kh = 1, kw = 1;
    std::vector<float> bias;   // empty: none
    const ir::QuantParams* w_hint = nullptr;
    bool depthwise = false;
    std::vector<int64_t> strides{1, 1}, pads{0, 0, 0, 0};
  };
  Status EmitConv(Node& src, const DenseLike& d, bool* done);

  // An activation that q.* ops can read: f32, rank 4 (or 2 when allow_2d), not a constant.
  bool IsActivation(ValueId v, bool allow_2d = false) const;
  float ScaleOf(ValueId f, bool* given) const;
  // The int8 twin of f32 `f`, inserting q.quantize before `before` when f is still float.
  ValueId Int8Of(ValueId f, const Node* before);
  // A new int8 output for the rewritten `src` that replaces f32 `f`.
  ValueId NewOutput(ValueId f, const Shape& shape, float scale);
  ValueId Constant(const std::string& hint, ir::Tensor t) { return g_.AddConstant(hint, std::move(t)); }
  ValueId Dequantized(ValueId f, const Node* before);
  void Clip(const Node& src, float s_y, int64_t* lo, int64_t* hi) const;
  LayerInfo& NewLayer(const Node& src, const char* op, ValueId f_out, float s_y, bool given);
  std::string Base(const Node& n) const {
    return n.name.empty() ? g_.value(n.outputs[0]).name() : n.name;
  }
  // Erases nodes none of whose outputs is read (only float ones when float_only), repeatedly.
  void SweepDeadNodes(bool float_only);
  // Splits a fused activation off a node that stays float.
  void UnfuseActivation(Node& n);

  ir::Graph& g_;
  const Ranges& ranges_;
  QuantizeResult* res_;
  std::map<ValueId, ValueId> twin_;
  std::map<ValueId, ValueId> dequantized_;
  std::set<ValueId> replaced_;
  // Values the rewrite adds (a reshaped copy) take the calibrated range of their source.
  std::map<ValueId, ValueId> range_of_;
};

bool Rank4(const Shape& s) { return s.size() == 4; }

bool IsActivationValue(const ir::Graph& g, ValueId v, bool allow_2d) {
  if (v == ir::kNoValue) return false;
  const ir::Value& val = g.value(v);
  return val.dtype == DType::kF32 && !val.is_constant() &&
         (Rank4(val.shape) || (allow_2d && val.shape.size() == 2));
}

bool Rewriter::IsActivation(ValueId v, bool allow_2d) const {
  return IsActivationValue(g_, v, allow_2d);
}

const ir::QuantParams* SymmetricHint(const ir::Value& v) {
  if (!v.quant || v.quant->per_axis() || v.quant->scales.size() != 1) return nullptr;
  if (v.quant->zero_points[0] != 0 || !(v.quant->scales[0] > 0.0f)) return nullptr;
  return &*v.quant;
}

float Rewriter::ScaleOf(ValueId f, bool* given) const {
  if (const ir::QuantParams* h = SymmetricHint(g_.value(f))) {
    *given = true;
    return h->scales[0];
  }
  *given = false;
  auto alias = range_of_.find(f);
  auto it = ranges_.find(alias == range_of_.end() ? f : alias->second);
  const float range = it == ranges_.end() ? 0.0f : it->second;
  // A value that is always 0 (or never observed) gets the scale of range 1: any scale represents 0.
  return range > 0.0f && std::isfinite(range) ? range / 127.0f : 1.0f / 127.0f;
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
  g_.value(q).quant = ir::QuantParams{{s}, {0}, -1};
  g_.AddNode("q.quantize", {src}, {q}, {}, "", before);
  twin_[f] = q;
  return q;
}

ValueId Rewriter::NewOutput(ValueId f, const Shape& shape, float scale) {
  const ValueId q = g_.AddValue(g_.value(f).name() + ".q", DType::kI8, shape);
  g_.value(q).quant = ir::QuantParams{{scale}, {0}, -1};
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

void Rewriter::Clip(const Node& src, float s_y, int64_t* lo, int64_t* hi) const {
  *lo = -128;
  *hi = 127;
  const std::string act = src.GetString("activation");
  if (act == "relu") {
    *lo = 0;
  } else if (act == "clip") {
    const double l = std::nearbyint(src.GetFloat("clip_min", 0.0f) / s_y);
    const double h = std::nearbyint(src.GetFloat("clip_max", 0.0f) / s_y);
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

// --- Conv, Gemm, MatMul -> q.conv2d ---

Status Rewriter::EmitConv(Node& src, const DenseLike& d, bool* done) {
  const ValueId f_out = src.outputs[0];
  const ValueId xq = Int8Of(d.x, &src);
  const float s_x = g_.value(xq).quant->scales[0];
  bool given = false;
  const float s_y = ScaleOf(f_out, &given);
  const int64_t per_o = d.c * d.kh * d.kw;

  std::vector<float> s_w(static_cast<size_t>(d.o));
  const bool hinted = d.w_hint && d.w_hint->per_axis() && d.w_hint->axis == 0 &&
                      static_cast<int64_t>(d.w_hint->scales.size()) == d.o;
  ir::Tensor wq = ir::Tensor::FromVector<int8_t>(
      DType::kI8, {d.o, d.c, d.kh, d.kw}, std::vector<int8_t>(d.w.size()));
  int8_t* wp = wq.mutable_data<int8_t>();
  std::vector<int32_t> bias(static_cast<size_t>(d.o), 0);
  std::vector<double> real(static_cast<size_t>(d.o));
  int64_t acc_bound = 0, saturated = 0;
  float wmin = 0.0f, wmax = 0.0f;
  for (int64_t o = 0; o < d.o; ++o) {
    float m = 0.0f;
    for (int64_t i = 0; i < per_o; ++i) {
      const float v = d.w[static_cast<size_t>(o * per_o + i)];
      m = std::max(m, std::fabs(v));
      wmin = std::min(wmin, v);
      wmax = std::max(wmax, v);
    }
    float s = hinted ? d.w_hint->scales[static_cast<size_t>(o)] : m / 127.0f;
    if (!(s > 0.0f)) s = 1.0f;  // an all-zero filter
    s_w[static_cast<size_t>(o)] = s;
    int64_t abs_sum = 0;
    for (int64_t i = 0; i < per_o; ++i) {
      const double q = std::clamp(std::nearbyint(double{d.w[static_cast<size_t>(o * per_o + i)]} / s),
                                  -127.0, 127.0);
      wp[o * per_o + i] = static_cast<int8_t>(q);
      abs_sum += static_cast<int64_t>(std::fabs(q));
    }
    if (!d.bias.empty()) {
      bool sat = false;
      bias[static_cast<size_t>(o)] = SaturatingRound32(
          static_cast<double>(d.bias[static_cast<size_t>(o)]) / (double{s_x} * s), &sat);
      saturated += sat;
    }
    acc_bound = std::max<int64_t>(acc_bound, abs_sum * 128 + std::abs(int64_t{bias[static_cast<size_t>(o)]}));
    real[static_cast<size_t>(o)] = double{s_x} * s / s_y;
  }
  ChannelRequant rq;
  LOOM_RETURN_IF_ERROR(ChooseChannelRequant(real, acc_bound, &rq).WithContext(ir::NodeLabel(g_, src)));
  int64_t lo = 0, hi = 0;
  Clip(src, s_y, &lo, &hi);

  const std::string base = Base(src);
  const ValueId w_id = Constant(base + ".wq", std::move(wq));
  const ValueId b_id = d.bias.empty() ? ir::kNoValue
                                      : Constant(base + ".bias_q", ir::Tensor::FromVector<int32_t>(
                                                                       DType::kI32, {d.o}, bias));
  const ValueId m_id =
      Constant(base + ".mult", ir::Tensor::FromVector<int32_t>(DType::kI32, {d.o}, rq.mult));
  const ir::Value& xv = g_.value(xq);
  const Shape out{xv.shape[0], d.o, (xv.shape[2] + d.pads[0] + d.pads[2] - d.kh) / d.strides[0] + 1,
                  (xv.shape[3] + d.pads[1] + d.pads[3] - d.kw) / d.strides[1] + 1};
  const ValueId y = NewOutput(f_out, out, s_y);
  g_.AddNode("q.conv2d", {xq, w_id, b_id, m_id}, {y},
             {{"kernel", Attribute::Ints({d.kh, d.kw})},
              {"strides", Attribute::Ints(d.strides)},
              {"pads", Attribute::Ints(d.pads)},
              {"depthwise", Attribute::Int(d.depthwise ? 1 : 0)},
              {"pre_shift", Attribute::Int(rq.pre_shift)},
              {"post_shift", Attribute::Int(rq.post_shift)},
              {"clip_lo", Attribute::Int(lo)},
              {"clip_hi", Attribute::Int(hi)}},
             src.name, &src);
  LayerInfo& l = NewLayer(src, "q.conv2d", f_out, s_y, given);
  l.q_output = y;
  l.input_scales = {s_x};
  l.weight_min = wmin;
  l.weight_max = wmax;
  l.pre_shift = rq.pre_shift;
  l.post_shift = rq.post_shift;
  l.clip_lo = lo;
  l.clip_hi = hi;
  l.mults.assign(rq.mult.begin(), rq.mult.end());
  l.bias_saturated = saturated;
  if (saturated) {
    res_->warnings.push_back(l.name + ": " + std::to_string(saturated) +
                             " int32 bias values saturated");
  }
  g_.EraseNode(&src);
  *done = true;
  return Status::Ok();
}

std::vector<float> FloatData(const ir::Tensor& t) {
  const float* p = t.data<float>();
  return std::vector<float>(p, p + t.num_elements());
}

Status Rewriter::RewriteConv(Node& n, bool* done) {
  const ValueId x = n.input(0), w = n.input(1), b = n.input(2);
  if (!IsActivation(x) || !g_.value(w).is_constant() || g_.value(w).dtype != DType::kF32 ||
      !Rank4(g_.value(w).shape)) {
    return Status::Ok();
  }
  if (b != ir::kNoValue && !g_.value(b).is_constant()) return Status::Ok();
  for (int64_t dl : n.GetInts("dilations")) {
    if (dl != 1) return Status::Ok();
  }
  const Shape& ws = g_.value(w).shape;
  const int64_t c = g_.value(x).shape[1], group = n.GetInt("group", 1);
  DenseLike d;
  d.depthwise = group != 1;
  if (d.depthwise && !(group == c && ws[0] == c && ws[1] == 1)) return Status::Ok();
  d.pads = n.GetInts("pads");
  d.strides = n.GetInts("strides");
  if (d.pads.size() != 4 || d.pads[0] >= ws[2] || d.pads[2] >= ws[2] || d.pads[1] >= ws[3] ||
      d.pads[3] >= ws[3]) {
    return Status::Ok();
  }
  d.x = x;
  d.w = FloatData(*g_.value(w).constant);
  d.w_hint = g_.value(w).quant ? &*g_.value(w).quant : nullptr;
  d.o = ws[0];
  d.c = ws[1];
  d.kh = ws[2];
  d.kw = ws[3];
  if (b != ir::kNoValue) d.bias = FloatData(*g_.value(b).constant);
  return EmitConv(n, d, done);
}

// ConvTranspose -> q.zero_insert (x's scale; skipped at stride 1) + a stride-1 q.conv2d with the
// flipped, channel-swapped weights and the ConvTranspose's output scale
// (passes/conv_transpose_as_conv.h derives the pads).
Status Rewriter::RewriteConvTranspose(Node& n, bool* done) {
  passes::ZeroInsertConv zc;
  if (!IsActivation(n.input(0)) || !passes::ConvTransposeAsConv(g_, n, &zc).empty()) {
    return Status::Ok();
  }
  DenseLike d;
  d.x = n.input(0);
  if (zc.stride_h * zc.stride_w > 1) {
    const ValueId xq = Int8Of(d.x, &n);
    const ir::Value xv = g_.value(xq);
    const Shape zs{xv.shape[0], xv.shape[1], xv.shape[2] * zc.stride_h, xv.shape[3] * zc.stride_w};
    // The float stand-in is never computed: the convolution finds its int8 twin and reads that.
    d.x = g_.AddValue(Base(n) + ".zeros", DType::kF32, zs);
    const ValueId zq = g_.AddValue(Base(n) + ".zeros.q", DType::kI8, zs);
    g_.value(zq).quant = xv.quant;
    g_.AddNode(
        "q.zero_insert", {xq}, {zq},
        {{"stride_h", Attribute::Int(zc.stride_h)}, {"stride_w", Attribute::Int(zc.stride_w)}},
        Base(n) + ".zero_insert", &n);
    twin_[d.x] = zq;
  }
  // A QDQ model's per-channel weight scales run along the ConvTranspose's output axis, 1.
  std::optional<ir::QuantParams> hint;
  if (const auto& q = g_.value(n.input(1)).quant; q && q->per_axis() && q->axis == 1) {
    hint = *q;
    hint->axis = 0;
    d.w_hint = &*hint;
  }
  d.w = std::move(zc.weights);
  d.o = zc.o;
  d.c = zc.c;
  d.kh = zc.kh;
  d.kw = zc.kw;
  d.pads = zc.pads;
  if (const ir::Tensor* b = passes::ConstantInput(g_, n, 2)) d.bias = FloatData(*b);
  return EmitConv(n, d, done);
}

// Dense: A [N, K] times W [O, K]; after a Flatten of [N, C, H, W], a conv with an HxW kernel.
void DenseWeights(const ir::Tensor& b, bool trans_b, std::vector<float>* w, int64_t* o,
                  int64_t* k) {
  const Shape& bs = b.shape();
  *k = trans_b ? bs[1] : bs[0];
  *o = trans_b ? bs[0] : bs[1];
  const float* p = b.data<float>();
  w->assign(static_cast<size_t>(*o * *k), 0.0f);
  for (int64_t oo = 0; oo < *o; ++oo)
    for (int64_t kk = 0; kk < *k; ++kk)
      (*w)[static_cast<size_t>(oo * *k + kk)] = trans_b ? p[oo * *k + kk] : p[kk * *o + oo];
}

Status Rewriter::RewriteGemm(Node& n, bool* done) {
  const ValueId a = n.input(0), b = n.input(1), c = n.input(2);
  if (!IsActivation(a, true) || g_.value(a).shape.size() != 2) return Status::Ok();
  if (!g_.value(b).is_constant() || g_.value(b).dtype != DType::kF32) return Status::Ok();
  if (n.GetInt("transA", 0) != 0 || n.GetFloat("alpha", 1.0f) != 1.0f) return Status::Ok();
  DenseLike d;
  int64_t k = 0;
  DenseWeights(*g_.value(b).constant, n.GetInt("transB", 0) != 0, &d.w, &d.o, &k);
  if (c != ir::kNoValue) {
    const ir::Value& cv = g_.value(c);
    const bool per_channel = cv.shape == Shape{d.o} || cv.shape == Shape{1, d.o};
    if (!cv.is_constant() || cv.dtype != DType::kF32 || !per_channel ||
        n.GetFloat("beta", 1.0f) != 1.0f) {
      return Status::Ok();
    }
    d.bias = FloatData(*cv.constant);
  }
  if (g_.value(a).shape[0] > 1) return MatMulOverRows(n, d.w, d.o, k, d.bias, done);
  d.x = a;
  d.c = k;
  // Flatten [N, C, H, W] -> [N, C*H*W]: the same bytes as a conv over the whole HxW image.
  if (const Node* p = g_.Producer(a); p && p->op == "Reshape" && IsActivation(p->input(0))) {
    const Shape& xs = g_.value(p->input(0)).shape;
    if (xs[0] == g_.value(a).shape[0] && xs[1] * xs[2] * xs[3] == k) {
      d.x = p->input(0);
      d.c = xs[1];
      d.kh = xs[2];
      d.kw = xs[3];
    }
  }
  return EmitConv(n, d, done);
}

Status Rewriter::RewriteMatMul(Node& n, bool* done) {
  const ValueId a = n.input(0), b = n.input(1);
  const ir::Value& bv = g_.value(b);
  if (!bv.is_constant() || bv.dtype != DType::kF32 || bv.shape.size() != 2) return Status::Ok();
  const ir::Value& av = g_.value(a);
  const bool batched = av.dtype == DType::kF32 && !av.is_constant() && av.shape.size() >= 3;
  if (!batched && (!IsActivation(a, true) || av.shape.size() != 2)) return Status::Ok();
  DenseLike d;
  int64_t k = 0;
  DenseWeights(*bv.constant, false, &d.w, &d.o, &k);
  if (batched || av.shape[0] > 1) return MatMulOverRows(n, d.w, d.o, k, {}, done);
  d.x = a;
  d.c = k;
  return EmitConv(n, d, done);
}

// A dense layer over several rows -- [..., T, K] x [K, O], a transformer's projections and MLP
// -- is a 1x1 convolution over a [1, K, rows, 1] image: the rows become pixels, which the
// accelerator streams through one weight tile, where a [rows, K] input would run as `rows`
// batch-1 products (0.2 % GEMM utilization on a ViT block's 49 tokens, 50-74 % this way). Float
// Reshape/Transpose on the CPU move the rows in and out. `w` is [O, K]; `bias` [O] or empty.
Status Rewriter::MatMulOverRows(Node& n, const std::vector<float>& w, int64_t o, int64_t k,
                                const std::vector<float>& bias, bool* done) {
  const ValueId a = n.input(0), f = n.outputs[0];
  const Shape a_shape = g_.value(a).shape, f_shape = g_.value(f).shape;
  const std::string base = Base(n);
  int64_t rows = 1;
  for (size_t i = 0; i + 1 < a_shape.size(); ++i) rows *= a_shape[i];
  auto step = [&](const char* op, ValueId x, const std::string& name, Shape shape,
                  ir::AttributeMap attrs) {
    const ValueId y = g_.AddValue(name, DType::kF32, std::move(shape));
    g_.AddNode(op, {x}, {y}, std::move(attrs), "", &n);
    return y;
  };
  const ValueId x2 =
      step("Reshape", a, base + ".rows", {rows, k}, {{"shape", Attribute::Ints({rows, k})}});
  const ValueId xt =
      step("Transpose", x2, base + ".cols", {k, rows}, {{"perm", Attribute::Ints({1, 0})}});
  const ValueId x4 = step("Reshape", xt, base + ".image", {1, k, rows, 1},
                          {{"shape", Attribute::Ints({1, k, rows, 1})}});
  const ValueId w4 =
      Constant(base + ".w", ir::Tensor::FromVector<float>(DType::kF32, {o, k, 1, 1}, w));
  const ValueId b4 =
      bias.empty() ? ir::kNoValue
                   : Constant(base + ".b", ir::Tensor::FromVector<float>(DType::kF32, {o}, bias));
  const ValueId y4 = g_.AddValue(base + ".conv", DType::kF32, {1, o, rows, 1});
  ir::AttributeMap attrs = {{"strides", Attribute::Ints({1, 1})},
                            {"pads", Attribute::Ints({0, 0, 0, 0})},
                            {"dilations", Attribute::Ints({1, 1})},
                            {"group", Attribute::Int(1)}};
  for (const char* key : {"activation", "clip_min", "clip_max"}) {  // a Gemm's fused Relu/Clip
    if (const Attribute* act = n.FindAttr(key)) attrs[key] = *act;
  }
  Node* conv = g_.AddNode("Conv", {x4, w4, b4}, {y4}, std::move(attrs), n.name, &n);
  const ValueId y2 =
      step("Reshape", y4, base + ".out_cols", {o, rows}, {{"shape", Attribute::Ints({o, rows})}});
  const ValueId yt =
      step("Transpose", y2, base + ".out_rows", {rows, o}, {{"perm", Attribute::Ints({1, 0})}});
  g_.EraseNode(&n);
  g_.AddNode("Reshape", {yt}, {f}, {{"shape", Attribute::Ints(f_shape)}});
  range_of_[x4] = a;  // the same values, moved
  range_of_[y4] = f;
  return RewriteConv(*conv, done);
}

// --- Add -> q.add ---

Status Rewriter::RewriteAdd(Node& n, bool* done) {
  const ValueId a = n.input(0), b = n.input(1);
  if (!IsActivation(a) || !IsActivation(b) || g_.value(a).shape != g_.value(b).shape) {
    return Status::Ok();
  }
  const ValueId aq = Int8Of(a, &n), bq = Int8Of(b, &n);
  const float s_a = g_.value(aq).quant->scales[0], s_b = g_.value(bq).quant->scales[0];
  bool given = false;
  const float s_y = ScaleOf(n.outputs[0], &given);
  Rescale r;
  LOOM_RETURN_IF_ERROR(
      ChooseRescale({double{s_a} / s_y, double{s_b} / s_y}, 32767, &r).WithContext(ir::NodeLabel(g_, n)));
  int64_t lo = 0, hi = 0;
  Clip(n, s_y, &lo, &hi);
  const ValueId f_out = n.outputs[0];
  const ValueId y = NewOutput(f_out, g_.value(a).shape, s_y);
  g_.AddNode("q.add", {aq, bq}, {y},
             {{"mult_a", Attribute::Int(r.mult[0])},
              {"mult_b", Attribute::Int(r.mult[1])},
              {"shift", Attribute::Int(r.shift)},
              {"clip_lo", Attribute::Int(lo)},
              {"clip_hi", Attribute::Int(hi)}},
             n.name, &n);
  LayerInfo& l = NewLayer(n, "q.add", f_out, s_y, given);
  l.q_output = y;
  l.input_scales = {s_a, s_b};
  l.mults = {r.mult[0], r.mult[1]};
  l.shift = r.shift;
  l.clip_lo = lo;
  l.clip_hi = hi;
  g_.EraseNode(&n);
  *done = true;
  return Status::Ok();
}

// --- Mul, HardSwish -> q.mul ---

// b's shape for q.mul: a's, or one value per channel.
bool MulOperands(const Shape& a, const Shape& b) {
  return Rank4(a) && (b == a || b == Shape{a[0], a[1], 1, 1});
}

Status Rewriter::EmitMul(Node& n, ValueId x, ValueId g, bool hard, double alpha, double beta,
                         bool* done) {
  const ValueId xq = Int8Of(x, &n), gq = Int8Of(g, &n);
  const double s_x = g_.value(xq).quant->scales[0], s_g = g_.value(gq).quant->scales[0];
  bool given = false;
  const float s_y = ScaleOf(n.outputs[0], &given);
  // t = clamp(k·g + offset, lo, hi) in units of s_t. A hard sigmoid clamp(alpha·g + beta, 0, 1)
  // is clamp(k·g_q + beta/u, 0, 1/u)·u with u = alpha·s_g/k: k as large as keeps 1/u near
  // kGateUnits, so the slope is exact and the offset and the top of the clamp round to 1/16384
  // (with k = 1 they would round to a step of g, a bias of up to 1/12 of the gate at coarse
  // scales). s_t = 1/hi makes a saturated gate exactly 1 (hard-swish passes x unchanged above 3).
  constexpr double kGateUnits = 16384.0;
  int64_t k = 1, offset = 0, lo = -128, hi = 127;
  double s_t = s_g;
  if (hard) {
    k = std::max<int64_t>(1, static_cast<int64_t>(std::floor(kGateUnits * alpha * s_g)));
    const double u = alpha * s_g / static_cast<double>(k);
    hi = static_cast<int64_t>(std::nearbyint(1.0 / u));
    offset = static_cast<int64_t>(std::nearbyint(beta / u));
    lo = 0;
    s_t = 1.0 / static_cast<double>(hi);
  }
  if (k > 32767 || hi < 1 || hi > 32767 || offset < -32768 || offset > 32767) {
    return Status::Ok();  // beyond the ALU's 16-bit immediates: stays float
  }
  // |x·t| <= 128·max(|lo|, |hi|); the smallest pre-shift that keeps ShrRnd(x·t, pre)·mult below
  // 2^31 with a 16-bit mult.
  const int64_t bound = 128 * std::max<int64_t>(std::abs(lo), std::abs(hi));
  int32_t pre = 0;
  while (((bound + (int64_t{1} << pre) - 1) >> pre) + 1 > (int64_t{1} << 16)) ++pre;
  const double real = s_x * s_t / s_y * std::ldexp(1.0, pre);
  if (!(real < 32767.0)) return Status::Ok();  // a product that large stays float
  Rescale r;
  LOOM_RETURN_IF_ERROR(ChooseRescale({real}, 32767, &r).WithContext(ir::NodeLabel(g_, n)));
  int64_t clip_lo = 0, clip_hi = 0;
  Clip(n, s_y, &clip_lo, &clip_hi);
  const ValueId f_out = n.outputs[0];
  const ValueId y = NewOutput(f_out, g_.value(x).shape, s_y);
  g_.AddNode("q.mul", {xq, gq}, {y},
             {{"mult", Attribute::Int(r.mult[0])},
              {"b_mult", Attribute::Int(k)},
              {"b_offset", Attribute::Int(offset)},
              {"b_lo", Attribute::Int(lo)},
              {"b_hi", Attribute::Int(hi)},
              {"pre_shift", Attribute::Int(pre)},
              {"post_shift", Attribute::Int(r.shift)},
              {"clip_lo", Attribute::Int(clip_lo)},
              {"clip_hi", Attribute::Int(clip_hi)}},
             n.name, &n);
  LayerInfo& l = NewLayer(n, "q.mul", f_out, s_y, given);
  l.q_output = y;
  l.input_scales = {static_cast<float>(s_x), static_cast<float>(s_g)};
  l.mults = {r.mult[0]};
  l.pre_shift = pre;
  l.post_shift = r.shift;
  l.clip_lo = clip_lo;
  l.clip_hi = clip_hi;
  g_.EraseNode(&n);
  *done = true;
  return Status::Ok();
}

Status Rewriter::RewriteMul(Node& n, bool* done) {
  for (int first = 0; first < 2; ++first) {
    const ValueId x = n.input(first), g = n.input(1 - first);
    if (!IsActivation(x)) continue;
    const Node* p = g_.Producer(g);
    if (p && p->op == "HardSigmoid" && IsActivation(p->input(0)) &&
        MulOperands(g_.value(x).shape, g_.value(g).shape) && p->GetFloat("alpha", 0.2f) > 0.0f) {
      return EmitMul(n, x, p->input(0), true, p->GetFloat("alpha", 0.2f), p->GetFloat("beta", 0.5f),
                     done);
    }
  }
  // A factor made by a float op (SiLU's x · Sigmoid(x), EfficientNet's and LR-ASPP's Sigmoid
  // gates) stays a float product: the op runs on the CPU either way, and q.mul would add a 7-bit
  // quantization of a multiplicative gate on every channel. Measured on EfficientNet-B0 (zoo,
  // 5 inputs): cosine 0.9809 float, 0.9778 with int8 Sigmoid gates, 0.9771 with SiLU as well.
  auto float_made = [&](ValueId v) {
    const Node* prod = g_.Producer(v);
    return prod != nullptr && prod->op.rfind("q.", 0) != 0;
  };
  if (float_made(n.input(0)) || float_made(n.input(1))) return Status::Ok();
  for (int first = 0; first < 2; ++first) {
    const ValueId x = n.input(first), g = n.input(1 - first);
    if (!IsActivation(x) || !IsActivation(g) ||
        !MulOperands(g_.value(x).shape, g_.value(g).shape)) {
      continue;
    }
    return EmitMul(n, x, g, false, 0.0, 0.0, done);
  }
  return Status::Ok();
}

// HardSwish(x) = x · hard_sigmoid(x) with alpha 1/6, beta 1/2.
Status Rewriter::RewriteHardSwish(Node& n, bool* done) {
  const ValueId x = n.input(0);
  if (!IsActivation(x)) return Status::Ok();
  return EmitMul(n, x, x, true, 1.0 / 6.0, 0.5, done);
}

// --- pooling ---

// The most window elements an int8 pooling layer takes: q.avg_pool carries one multiplier per
// possible divisor (kh * kw of them), and its int32 sums hold 128 * kh * kw. A larger window stays
// a float op on the CPU.
constexpr int64_t kMaxPoolWindow = int64_t{1} << 20;

bool WindowFits(const std::vector<int64_t>& k, const std::vector<int64_t>& pads) {
  int64_t window = 0;
  return k.size() == 2 && pads.size() == 4 && pads[0] < k[0] && pads[2] < k[0] && pads[1] < k[1] &&
         pads[3] < k[1] && CheckedMul(k[0], k[1], &window) && window <= kMaxPoolWindow;
}

// ceil_mode as extra bottom/right padding: the output size (from shape inference) needs the last
// window to end at (out - 1) * stride + kernel. Padded positions never take part in a max, so
// this is exact; a window still always starts inside the input or its begin padding. False when
// that end does not fit 64 bits (the pool then stays a float op).
bool CeilModePads(const ir::Shape& x, const ir::Shape& y, const std::vector<int64_t>& k,
                  const std::vector<int64_t>& strides, std::vector<int64_t>* pads) {
  auto& p = *pads;
  for (size_t i = 0; i < 2 && x.size() == 4 && y.size() == 4 && strides.size() == 2; ++i) {
    int64_t end = 0, have = 0;
    if (!CheckedMul(y[2 + i] - 1, strides[i], &end) || !CheckedAdd(end, k[i], &end) ||
        !CheckedAdd(x[2 + i], p[i], &have) || !CheckedAdd(have, p[i + 2], &have)) {
      return false;
    }
    if (end > have) p[i + 2] += end - have;
  }
  return true;
}

Status Rewriter::RewriteMaxPool(Node& n, bool* done) {
  const ValueId x = n.input(0);
  const auto k = n.GetInts("kernel_shape");
  auto pads = n.GetInts("pads");
  if (k.size() == 2 && pads.size() == 4 && n.GetInt("ceil_mode", 0) != 0 && !n.outputs.empty() &&
      !CeilModePads(g_.value(x).shape, g_.value(n.outputs[0]).shape, k, n.GetInts("strides"),
                    &pads)) {
    return Status::Ok();
  }
  if (!IsActivation(x) || n.outputs.size() != 1 || !WindowFits(k, pads)) {
    return Status::Ok();
  }
  for (int64_t dl : n.GetInts("dilations")) {
    if (dl != 1) return Status::Ok();
  }
  const ValueId xq = Int8Of(x, &n);
  const float s = g_.value(xq).quant->scales[0];
  const ValueId f_out = n.outputs[0];
  const ValueId y = NewOutput(f_out, g_.value(f_out).shape, s);
  g_.AddNode("q.max_pool", {xq}, {y},
             {{"kernel", Attribute::Ints(k)},
              {"strides", Attribute::Ints(n.GetInts("strides"))},
              {"pads", Attribute::Ints(pads)}},
             n.name, &n);
  LayerInfo& l = NewLayer(n, "q.max_pool", f_out, s, false);
  l.q_output = y;
  l.input_scales = {s};
  g_.EraseNode(&n);
  *done = true;
  return Status::Ok();
}

Status EmitAvgPool(ir::Graph& g, Node& n, ValueId xq, float s_y, bool given,
                   const std::vector<int64_t>& k, const std::vector<int64_t>& strides,
                   const std::vector<int64_t>& pads, bool include_pad, ValueId y,
                   QuantizeResult* res, LayerInfo* l) {
  const float s_x = g.value(xq).quant->scales[0];
  const int64_t count = k[0] * k[1];
  std::vector<double> real;
  for (int64_t c = 1; c <= count; ++c) real.push_back(double{s_x} / s_y / static_cast<double>(c));
  ChannelRequant rq;
  LOOM_RETURN_IF_ERROR(ChooseChannelRequant(real, 128 * count, &rq).WithContext(ir::NodeLabel(g, n)));
  const std::string base = n.name.empty() ? g.value(n.outputs[0]).name() : n.name;
  const ValueId m = g.AddConstant(base + ".mult_by_count",
                                  ir::Tensor::FromVector<int32_t>(DType::kI32, {count}, rq.mult));
  g.AddNode("q.avg_pool", {xq, m}, {y},
            {{"kernel", Attribute::Ints(k)},
             {"strides", Attribute::Ints(strides)},
             {"pads", Attribute::Ints(pads)},
             {"count_include_pad", Attribute::Int(include_pad ? 1 : 0)},
             {"pre_shift", Attribute::Int(rq.pre_shift)},
             {"post_shift", Attribute::Int(rq.post_shift)},
             {"clip_lo", Attribute::Int(-128)},
             {"clip_hi", Attribute::Int(127)}},
            n.name, &n);
  l->q_output = y;
  l->input_scales = {s_x};
  l->pre_shift = rq.pre_shift;
  l->post_shift = rq.post_shift;
  l->mults.assign(rq.mult.begin(), rq.mult.end());
  l->given_scale = given;
  (void)res;
  g.EraseNode(&n);
  return Status::Ok();
}

Status Rewriter::RewriteAveragePool(Node& n, bool* done) {
  const ValueId x = n.input(0);
  const auto k = n.GetInts("kernel_shape"), pads = n.GetInts("pads");
  if (!IsActivation(x) || n.GetInt("ceil_mode", 0) != 0 || !WindowFits(k, pads)) {
    return Status::Ok();
  }
  const ValueId xq = Int8Of(x, &n);
  bool given = false;
  const ValueId f_out = n.outputs[0];
  const float s_y = ScaleOf(f_out, &given);
  const ValueId y = NewOutput(f_out, g_.value(f_out).shape, s_y);
  LayerInfo& l = NewLayer(n, "q.avg_pool", f_out, s_y, given);
  LOOM_RETURN_IF_ERROR(EmitAvgPool(g_, n, xq, s_y, given, k, n.GetInts("strides"), pads,
                                   n.GetInt("count_include_pad", 0) != 0, y, res_, &l));
  *done = true;
  return Status::Ok();
}

Status Rewriter::RewriteGlobalAveragePool(Node& n, bool* done) {
  const ValueId x = n.input(0);
  if (!IsActivation(x)) return Status::Ok();
  const Shape xs = g_.value(x).shape;  // a copy: the values below grow the graph's value list
  if (xs.size() != 4 || !WindowFits({xs[2], xs[3]}, {0, 0, 0, 0})) return Status::Ok();
  const ValueId xq = Int8Of(x, &n);
  bool given = false;
  const ValueId f_out = n.outputs[0];
  const float s_y = ScaleOf(f_out, &given);
  const ValueId y = NewOutput(f_out, g_.value(f_out).shape, s_y);
  LayerInfo& l = NewLayer(n, "q.avg_pool", f_out, s_y, given);
  LOOM_RETURN_IF_ERROR(EmitAvgPool(g_, n, xq, s_y, given, {xs[2], xs[3]}, {1, 1}, {0, 0, 0, 0},
                                   false, y, res_, &l));
  *done = true;
  return Status::Ok();
}

Status Rewriter::RewriteConcat(Node& n, bool* done) {
  if (n.GetInt("axis", 0) != 1) return Status::Ok();
  for (ValueId in : n.inputs) {
    if (!IsActivation(in)) return Status::Ok();
  }
  bool given = false;
  const ValueId f_out = n.outputs[0];
  const float s_y = ScaleOf(f_out, &given);
  std::vector<ValueId> qs;
  std::vector<int64_t> mults, shifts;
  std::vector<float> scales;
  for (ValueId in : n.inputs) {
    const ValueId q = Int8Of(in, &n);
    const float s = g_.value(q).quant->scales[0];
    Rescale r;
    LOOM_RETURN_IF_ERROR(ChooseRescale({double{s} / s_y}, 32767, &r).WithContext(ir::NodeLabel(g_, n)));
    qs.push_back(q);
    scales.push_back(s);
    mults.push_back(r.mult[0]);
    shifts.push_back(r.shift);
  }
  const ValueId y = NewOutput(f_out, g_.value(f_out).shape, s_y);
  g_.AddNode("q.concat", qs, {y},
             {{"mults", Attribute::Ints(mults)}, {"shifts", Attribute::Ints(shifts)}}, n.name, &n);
  LayerInfo& l = NewLayer(n, "q.concat", f_out, s_y, given);
  l.q_output = y;
  l.input_scales = scales;
  l.mults = mults;
  g_.EraseNode(&n);
  *done = true;
  return Status::Ok();
}

// Nearest Resize by integer factors fh x fw whose taps are exactly in[y / fh][x / fw] under the
// float kernel's transforms (runtime/kernels/resize.cc). With output o = f * i + r, r < f:
// asymmetric gives o / f, whose floor is i; the half-pixel family gives i + (r + 0.5) / f - 0.5,
// strictly within half a pixel of i, so either rounding mode lands on i without a tie;
// tf_half_pixel_for_nn gives i + (r + 0.5) / f, whose floor is i. Other pairs pick neighbours.
bool NearestIsReplication(const Node& n) {
  const int64_t coord = n.GetInt("coordinate_transformation_mode", 0);
  const int64_t nearest = n.GetInt("nearest_mode", 0);
  const bool rounds = nearest == 0 || nearest == 1, floors = nearest == 2;
  switch (coord) {
    case 1:  // asymmetric
    case 3:  // tf_half_pixel_for_nn
      return floors;
    case 0:  // half_pixel
    case 2:  // pytorch_half_pixel
    case 6:  // half_pixel_symmetric (offset 0 at an integer scale)
      return rounds;
    default:
      return false;
  }
}

Status Rewriter::RewriteResize(Node& n, bool* done) {
  const ValueId x = n.input(0);
  if (!IsActivation(x) || n.outputs.size() != 1 || n.GetInt("mode", 0) != 0 ||
      !NearestIsReplication(n)) {
    return Status::Ok();
  }
  const Shape xs = g_.value(x).shape;
  const std::vector<int64_t> sizes = n.GetInts("sizes");
  if (xs.size() != 4 || sizes.size() != 4 || sizes[0] != xs[0] || sizes[1] != xs[1] || xs[2] <= 0 ||
      xs[3] <= 0 || sizes[2] % xs[2] != 0 || sizes[3] % xs[3] != 0) {
    return Status::Ok();
  }
  const int64_t fh = sizes[2] / xs[2], fw = sizes[3] / xs[3];
  if (fh < 1 || fw < 1) return Status::Ok();
  // Explicit scales drive the transforms instead of the sizes' ratio; they must be the factors.
  if (const ir::Attribute* sc = n.FindAttr("scales")) {
    const std::vector<float>& f = sc->floats();
    if (f.size() != 4 || f[0] != 1.0f || f[1] != 1.0f || f[2] != static_cast<float>(fh) ||
        f[3] != static_cast<float>(fw)) {
      return Status::Ok();
    }
  }
  const ValueId xq = Int8Of(x, &n);
  const float s = g_.value(xq).quant->scales[0];
  const ValueId f_out = n.outputs[0];
  const ValueId y = NewOutput(f_out, g_.value(f_out).shape, s);
  g_.AddNode("q.resize", {xq}, {y},
             {{"factor_h", Attribute::Int(fh)}, {"factor_w", Attribute::Int(fw)}}, n.name, &n);
  LayerInfo& l = NewLayer(n, "q.resize", f_out, s, false);
  l.q_output = y;
  l.input_scales = {s};
  g_.EraseNode(&n);
  *done = true;
  return Status::Ok();
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
// node that stays float (a grouped convolution, a broadcasting Add) gets its Relu or Clip back.
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

}  // namespace

Status QuantizeGraph(ir::Graph& g, const Ranges& ranges, QuantizeResult* result) {
  *result = QuantizeResult();
  Rewriter r(g, ranges, result);
  return r.Run();
}

}  // namespace loom::quantize
