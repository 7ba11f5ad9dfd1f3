// The quantizer's rules for products (rewriter.h): Conv, ConvTranspose, Gemm and MatMul become
// q.conv2d (ConvTranspose after a q.zero_insert).
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
// --- Conv, Gemm, MatMul -> q.conv2d ---

Status Rewriter::EmitConv(Node& src, const DenseLike& d, bool* done) {
  const ValueId f_out = src.outputs[0];
  const ValueId xq = Int8Of(d.x, &src);
  const float s_x = QScale(xq);
  const int32_t z_x = QZero(xq);
  bool given = false;
  const float s_y = ScaleOf(f_out, &given);
  const int32_t z_y = ZeroPointOf(f_out);
  const int64_t per_o = d.c * d.kh * d.kw;
  // Zero points go into the bias: the input's as -z_x * sum(w[o]) (exact: padding reads z_x
  // too), the output's as z_y / M[o] in accumulator units (below, once M[o] is an integer mult).
  const bool with_bias = !d.bias.empty() || z_x != 0 || z_y != 0;

  std::vector<float> s_w(static_cast<size_t>(d.o));
  const bool hinted = d.w_hint && d.w_hint->per_axis() && d.w_hint->axis == 0 &&
                      static_cast<int64_t>(d.w_hint->scales.size()) == d.o;
  ir::Tensor wq = ir::Tensor::FromVector<int8_t>(DType::kI8, {d.o, d.c, d.kh, d.kw},
                                                 std::vector<int8_t>(d.w.size()));
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
    int64_t abs_sum = 0, sum = 0;
    for (int64_t i = 0; i < per_o; ++i) {
      const double q = std::clamp(
          std::nearbyint(double{d.w[static_cast<size_t>(o * per_o + i)]} / s), -127.0, 127.0);
      wp[o * per_o + i] = static_cast<int8_t>(q);
      abs_sum += static_cast<int64_t>(std::fabs(q));
      sum += static_cast<int64_t>(q);
    }
    const size_t oi = static_cast<size_t>(o);
    double b = d.bias.empty() ? 0.0 : static_cast<double>(d.bias[oi]) / (double{s_x} * s);
    b -= static_cast<double>(z_x) * static_cast<double>(sum);
    bool sat = false;
    bias[oi] = SaturatingRound32(b, &sat);
    saturated += sat;
    real[oi] = double{s_x} * s / s_y;
    // The output's zero point adds about |z_y| / M[o] to the bias; bound it a little above.
    const double out_shift =
        z_y == 0 || !(real[oi] > 0.0)
            ? 0.0
            : std::min(2e9, std::fabs(static_cast<double>(z_y)) / real[oi] * 1.001 + 2.0);
    acc_bound = std::max<int64_t>(
        acc_bound, abs_sum * 128 + std::abs(int64_t{bias[oi]}) + static_cast<int64_t>(out_shift));
  }
  ChannelRequant rq;
  LOOM_RETURN_IF_ERROR(
      ChooseChannelRequant(real, acc_bound, &rq).WithContext(ir::NodeLabel(g_, src)));
  if (z_y != 0) {
    // ShrRnd(ShrRnd(acc + B, pre) * mult, post) ~ acc * M + z_y for B = z_y * 2^(pre+post) / mult:
    // within half a step of B, i.e. M / 2 of an output step (M << 1 for any real convolution).
    const double total = std::ldexp(1.0, rq.pre_shift + rq.post_shift);
    for (size_t o = 0; o < bias.size(); ++o) {
      if (rq.mult[o] == 0) continue;
      bool sat = false;
      bias[o] = SaturatingRound32(static_cast<double>(bias[o]) + z_y * total / rq.mult[o], &sat);
      saturated += sat;
    }
  }
  int64_t lo = 0, hi = 0;
  Clip(src, s_y, z_y, &lo, &hi);

  const std::string base = Base(src);
  const ValueId w_id = Constant(base + ".wq", std::move(wq));
  const ValueId b_id =
      !with_bias
          ? ir::kNoValue
          : Constant(base + ".bias_q", ir::Tensor::FromVector<int32_t>(DType::kI32, {d.o}, bias));
  const ValueId m_id =
      Constant(base + ".mult", ir::Tensor::FromVector<int32_t>(DType::kI32, {d.o}, rq.mult));
  const ir::Value& xv = g_.value(xq);
  const Shape out{xv.shape[0], d.o, (xv.shape[2] + d.pads[0] + d.pads[2] - d.kh) / d.strides[0] + 1,
                  (xv.shape[3] + d.pads[1] + d.pads[3] - d.kw) / d.strides[1] + 1};
  const ValueId y = NewOutput(f_out, out, s_y);
  ir::AttributeMap attrs = {{"kernel", Attribute::Ints({d.kh, d.kw})},
                            {"strides", Attribute::Ints(d.strides)},
                            {"pads", Attribute::Ints(d.pads)},
                            {"depthwise", Attribute::Int(d.depthwise ? 1 : 0)},
                            {"pre_shift", Attribute::Int(rq.pre_shift)},
                            {"post_shift", Attribute::Int(rq.post_shift)},
                            {"clip_lo", Attribute::Int(lo)},
                            {"clip_hi", Attribute::Int(hi)}};
  if (z_x != 0) attrs["pad_value"] = Attribute::Int(z_x);
  if (d.group != 1) attrs["group"] = Attribute::Int(d.group);
  if (const Attribute* macs = src.FindAttr("source_macs")) attrs["source_macs"] = *macs;
  g_.AddNode("q.conv2d", {xq, w_id, b_id, m_id}, {y}, std::move(attrs), src.name, &src);
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

namespace {
std::vector<float> FloatData(const ir::Tensor& t) {
  const float* p = t.data<float>();
  return std::vector<float>(p, p + t.num_elements());
}

// Merging more groups than this into one plain convolution would multiply its MACs too much.
constexpr int64_t kMaxGroupsMergedIntoOne = 4;

// A grouped convolution's groups merged k at a time into groups of whole channel blocks, in and
// out, for the fast kernels (which run such a group as a groups == 1 convolution on its blocks):
// the smallest k with k * C' and k * O' multiples of `block` whose ceil(group / k) merged groups
// end within the last channel block, in and out (a short last group then reads and writes only
// padding lanes past the channels: RegNetY-400MF's 13 groups of 8 channels become 7 of 16, the
// last one half full); else all of them (a groups == 1 convolution, `group` times the MACs, which
// the accelerator takes) where there are at most kMaxGroupsMergedIntoOne; else 0 (the convolution
// stays float). The merged filters are zero outside their own group's input channels, so every
// output is the same integer sum. block 0: no merging.
int64_t GroupsMerged(int64_t group, int64_t c_per, int64_t o_per, int64_t block) {
  if (block <= 0) return 1;
  const auto whole_blocks = [block](int64_t n) { return (n + block - 1) / block * block; };
  for (int64_t k = 1; k < group; ++k) {
    const int64_t merged = (group + k - 1) / k;
    if ((k * c_per) % block == 0 && (k * o_per) % block == 0 &&
        merged * k * c_per <= whole_blocks(group * c_per) &&
        merged * k * o_per <= whole_blocks(group * o_per)) {
      return k;
    }
  }
  return group <= kMaxGroupsMergedIntoOne ? group : 0;
}

// w [O, C', KH, KW] of `group` groups as [O, k * C', KH, KW] of ceil(group / k) groups.
std::vector<float> MergeGroups(const std::vector<float>& w, int64_t o, int64_t c_per, int64_t taps,
                               int64_t group, int64_t k) {
  const int64_t o_per = o / group, merged_c = k * c_per;
  std::vector<float> m(static_cast<size_t>(o * merged_c * taps), 0.0f);
  for (int64_t oc = 0; oc < o; ++oc) {
    const int64_t lane = (oc / o_per) % k;  // its group's place among the merged ones
    std::copy_n(w.begin() + oc * c_per * taps, c_per * taps,
                m.begin() + (oc * merged_c + lane * c_per) * taps);
  }
  return m;
}
}  // namespace

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
  d.depthwise = group != 1 && group == c && ws[0] == c && ws[1] == 1;
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
  if (group != 1 && !d.depthwise) {
    const int64_t k = GroupsMerged(group, d.c, d.o / group, options_.block);
    if (k == 0) return Status::Ok();
    if (k != 1) d.w = MergeGroups(d.w, d.o, d.c, d.kh * d.kw, group, k);
    d.c *= k;
    d.group = (group + k - 1) / k;
  }
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

namespace {
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
}  // namespace

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

}  // namespace loom::quantize::internal
