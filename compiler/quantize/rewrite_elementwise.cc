// The quantizer's rules for element-wise and window ops (rewriter.h): Add -> q.add, Mul and
// HardSwish -> q.mul, MaxPool/AveragePool/GlobalAveragePool -> q.max_pool/q.avg_pool, Concat ->
// q.concat, nearest Resize -> q.resize.
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
// --- Add -> q.add ---

Status Rewriter::RewriteAdd(Node& n, bool* done) {
  const ValueId a = n.input(0), b = n.input(1);
  if (!IsActivation(a) || !IsActivation(b) || g_.value(a).shape != g_.value(b).shape) {
    return Status::Ok();
  }
  const ValueId aq = Int8Of(a, &n), bq = Int8Of(b, &n);
  const float s_a = QScale(aq), s_b = QScale(bq);
  // q.add has no offsets: ChooseZeroPoints keeps its operands and output symmetric.
  if (QZero(aq) != 0 || QZero(bq) != 0 || ZeroPointOf(n.outputs[0]) != 0) {
    return Internal(ir::NodeLabel(g_, n) + ": q.add operand with a zero point");
  }
  bool given = false;
  const float s_y = ScaleOf(n.outputs[0], &given);
  Rescale r;
  LOOM_RETURN_IF_ERROR(ChooseRescale({double{s_a} / s_y, double{s_b} / s_y}, 32767, &r)
                           .WithContext(ir::NodeLabel(g_, n)));
  int64_t lo = 0, hi = 0;
  Clip(n, s_y, 0, &lo, &hi);
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

namespace {
// b's shape for q.mul: a's, or one value per channel.
bool MulOperands(const Shape& a, const Shape& b) {
  return Rank4(a) && (b == a || b == Shape{a[0], a[1], 1, 1});
}
}  // namespace

Status Rewriter::EmitMul(Node& n, ValueId x, ValueId g, bool hard, double alpha, double beta,
                         bool* done) {
  const ValueId xq = Int8Of(x, &n), gq = Int8Of(g, &n);
  const double s_x = QScale(xq), s_g = QScale(gq);
  const int32_t z_x = QZero(xq), z_g = QZero(gq);
  bool given = false;
  const float s_y = ScaleOf(n.outputs[0], &given);
  const int32_t z_y = ZeroPointOf(n.outputs[0]);
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
  // g's zero point: k·(g_q - z_g) + offset, exact in the offset.
  offset -= k * z_g;
  if (!hard) {  // a plain product: t = g_q - z_g over its whole range
    lo = -128 - z_g;
    hi = 127 - z_g;
  }
  if (k > 32767 || hi < 1 || hi > 32767 || offset < -32768 || offset > 32767) {
    return Status::Ok();  // beyond the ALU's 16-bit immediates: stays float
  }
  // |(x - z_x)·t| <= 256·max(|lo|, |hi|) (128 when z_x = 0); the smallest pre-shift that keeps
  // ShrRnd(x·t, pre)·mult below 2^31 with a 16-bit mult.
  const int64_t bound = (z_x == 0 ? 128 : 256) * std::max<int64_t>(std::abs(lo), std::abs(hi));
  int32_t pre = 0;
  while (((bound + (int64_t{1} << pre) - 1) >> pre) + 1 > (int64_t{1} << 16)) ++pre;
  const double real = s_x * s_t / s_y * std::ldexp(1.0, pre);
  if (!(real < 32767.0)) return Status::Ok();  // a product that large stays float
  Rescale r;
  LOOM_RETURN_IF_ERROR(ChooseRescale({real}, 32767, &r).WithContext(ir::NodeLabel(g_, n)));
  int64_t clip_lo = 0, clip_hi = 0;
  Clip(n, s_y, z_y, &clip_lo, &clip_hi);
  const ValueId f_out = n.outputs[0];
  const ValueId y = NewOutput(f_out, g_.value(x).shape, s_y);
  ir::AttributeMap attrs = {{"mult", Attribute::Int(r.mult[0])},
                            {"b_mult", Attribute::Int(k)},
                            {"b_offset", Attribute::Int(offset)},
                            {"b_lo", Attribute::Int(lo)},
                            {"b_hi", Attribute::Int(hi)},
                            {"pre_shift", Attribute::Int(pre)},
                            {"post_shift", Attribute::Int(r.shift)},
                            {"clip_lo", Attribute::Int(clip_lo)},
                            {"clip_hi", Attribute::Int(clip_hi)}};
  if (z_x != 0) attrs["a_offset"] = Attribute::Int(-z_x);
  if (z_y != 0) attrs["out_offset"] = Attribute::Int(z_y);
  g_.AddNode("q.mul", {xq, gq}, {y}, std::move(attrs), n.name, &n);
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

namespace {
bool WindowFits(const std::vector<int64_t>& k, const std::vector<int64_t>& pads) {
  int64_t window = 0;
  return k.size() == 2 && pads.size() == 4 && pads[0] < k[0] && pads[2] < k[0] && pads[1] < k[1] &&
         pads[3] < k[1] && CheckedMul(k[0], k[1], &window) && window <= kMaxPoolWindow;
}
}  // namespace

namespace {
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
}  // namespace

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
  const float s = QScale(xq);
  const ValueId f_out = n.outputs[0];
  const ValueId y = NewOutput(f_out, g_.value(f_out).shape, s, QZero(xq));
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

namespace {
Status EmitAvgPool(ir::Graph& g, Node& n, ValueId xq, float s_y, bool given,
                   const std::vector<int64_t>& k, const std::vector<int64_t>& strides,
                   const std::vector<int64_t>& pads, bool include_pad, ValueId y,
                   QuantizeResult* res, LayerInfo* l) {
  const float s_x = g.value(xq).quant->scales[0];
  const int32_t z_x = g.value(xq).quant->zero_points[0];
  const int32_t z_y = g.value(y).quant->zero_points[0];
  const int64_t count = k[0] * k[1];
  std::vector<double> real;
  for (int64_t c = 1; c <= count; ++c) real.push_back(double{s_x} / s_y / static_cast<double>(c));
  ChannelRequant rq;
  LOOM_RETURN_IF_ERROR(ChooseChannelRequant(real, (z_x == 0 ? 128 : 256) * count, &rq)
                           .WithContext(ir::NodeLabel(g, n)));
  const std::string base = n.name.empty() ? g.value(n.outputs[0]).name() : n.name;
  const ValueId m = g.AddConstant(base + ".mult_by_count",
                                  ir::Tensor::FromVector<int32_t>(DType::kI32, {count}, rq.mult));
  ir::AttributeMap attrs = {{"kernel", Attribute::Ints(k)},
                            {"strides", Attribute::Ints(strides)},
                            {"pads", Attribute::Ints(pads)},
                            {"count_include_pad", Attribute::Int(include_pad ? 1 : 0)},
                            {"pre_shift", Attribute::Int(rq.pre_shift)},
                            {"post_shift", Attribute::Int(rq.post_shift)},
                            {"clip_lo", Attribute::Int(-128)},
                            {"clip_hi", Attribute::Int(127)}};
  if (z_x != 0) attrs["x_offset"] = Attribute::Int(-z_x);
  if (z_y != 0) attrs["out_offset"] = Attribute::Int(z_y);
  g.AddNode("q.avg_pool", {xq, m}, {y}, std::move(attrs), n.name, &n);
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
}  // namespace

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
  LOOM_RETURN_IF_ERROR(
      EmitAvgPool(g_, n, xq, s_y, given, {xs[2], xs[3]}, {1, 1}, {0, 0, 0, 0}, false, y, res_, &l));
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
    const float s = QScale(q);
    if (QZero(q) != 0) return Internal(ir::NodeLabel(g_, n) + ": q.concat input with a zero point");
    Rescale r;
    LOOM_RETURN_IF_ERROR(
        ChooseRescale({double{s} / s_y}, 32767, &r).WithContext(ir::NodeLabel(g_, n)));
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

namespace {
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
}  // namespace

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
  const float s = QScale(xq);
  const ValueId f_out = n.outputs[0];
  const ValueId y = NewOutput(f_out, g_.value(f_out).shape, s, QZero(xq));
  g_.AddNode("q.resize", {xq}, {y},
             {{"factor_h", Attribute::Int(fh)}, {"factor_w", Attribute::Int(fw)}}, n.name, &n);
  LayerInfo& l = NewLayer(n, "q.resize", f_out, s, false);
  l.q_output = y;
  l.input_scales = {s};
  g_.EraseNode(&n);
  *done = true;
  return Status::Ok();
}

}  // namespace loom::quantize::internal
