// Asymmetric activations (quantize.h QuantizeOptions): which values get a zero point, how the ops
// carry it (the conv's bias and pad value, q.mul's and q.avg_pool's offsets, the copies' shared
// quant), that the int8 graph then tracks the float one more closely than the symmetric one, and
// the calibration extents behind it.
#include <gtest/gtest.h>

#include <cmath>
#include <iostream>
#include <random>
#include <string>
#include <vector>

#include "compiler/interp/interpreter.h"
#include "compiler/ir/parser.h"
#include "compiler/ir/verifier.h"
#include "compiler/quantize/calibration.h"
#include "compiler/quantize/quantize.h"
#include "runtime/core/status.h"

namespace loom {
namespace {

// conv + ReLU (a non-negative value), a padded max pool of it, a padded conv reading the pool, a
// hard-swish, a global average pool, and a residual Add of two convolutions (symmetric). Weights
// are random, so every channel sees another mix.
std::string GraphText() {
  std::mt19937 rng(11);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  auto weights = [&](int o, int c, int k, float scale) {
    std::string t = "[";
    for (int i = 0; i < o * c * k * k; ++i) {
      t += (i ? ", " : "") + std::to_string(normal(rng) * scale);
    }
    return t + "]";
  };
  return "graph @g(%x: f32[1,16,8,8]) {\n"
         "  %w1: f32[16,16,3,3] = const " +
         weights(16, 16, 3, 0.08f) +
         "\n"
         "  %c1: f32[1,16,8,8] = Conv(%x, %w1) {activation = \"relu\", group = 1, kernel_shape = "
         "[3, 3], pads = [1, 1, 1, 1], strides = [1, 1]}\n"
         "  %p: f32[1,16,8,8] = MaxPool(%c1) {kernel_shape = [3, 3], pads = [1, 1, 1, 1], strides "
         "= "
         "[1, 1]}\n"
         "  %w2: f32[16,16,3,3] = const " +
         weights(16, 16, 3, 0.08f) +
         "\n"
         "  %c2: f32[1,16,8,8] = Conv(%p, %w2) {group = 1, kernel_shape = [3, 3], pads = [1, 1, 1, "
         "1], strides = [1, 1]}\n"
         "  %w4: f32[16,16,1,1] = const " +
         weights(16, 16, 1, 0.25f) +
         "\n"
         "  %c4: f32[1,16,8,8] = Conv(%c2, %w4) {group = 1, kernel_shape = [1, 1], pads = [0, 0, "
         "0, "
         "0], strides = [1, 1]}\n"
         "  %h: f32[1,16,8,8] = HardSwish(%c4)\n"
         "  %g: f32[1,16,1,1] = GlobalAveragePool(%h)\n"
         "  %w3: f32[16,16,1,1] = const " +
         weights(16, 16, 1, 0.25f) +
         "\n"
         "  %c3: f32[1,16,8,8] = Conv(%h, %w3) {group = 1, kernel_shape = [1, 1], pads = [0, 0, 0, "
         "0], strides = [1, 1]}\n"
         "  %s: f32[1,16,8,8] = Add(%c3, %c2)\n"
         "  return %g, %s\n"
         "}";
}

struct Quantized {
  ir::Graph float_graph, graph;
  std::vector<quantize::Sample> samples;
};

void Quantize(bool asymmetric, Quantized* q) {
  const Status parsed = ir::ParseGraph(GraphText(), &q->float_graph);
  ASSERT_TRUE(parsed.ok()) << parsed.ToString();
  q->graph = q->float_graph.Clone();
  std::mt19937 rng(3);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  for (int i = 0; i < 4; ++i) {
    std::vector<float> v(16 * 8 * 8);
    for (float& x : v) x = normal(rng);
    q->samples.push_back({ir::Tensor::FromVector<float>(DType::kF32, {1, 16, 8, 8}, v)});
  }
  quantize::CalibrationOptions cal;
  cal.method = quantize::CalibrationMethod::kMse;
  quantize::Ranges ranges;
  quantize::Extents extents;
  ASSERT_TRUE(quantize::CollectRanges(q->graph, q->samples, cal, &ranges, &extents).ok());
  quantize::QuantizeOptions o;
  if (asymmetric) o.extents = &extents;
  quantize::QuantizeResult r;
  const Status s = quantize::QuantizeGraph(q->graph, ranges, &r, o);
  ASSERT_TRUE(s.ok()) << s.ToString();
  ASSERT_TRUE(ir::Verify(q->graph).ok()) << ir::Verify(q->graph).ToString();
}

const ir::Node* Find(const ir::Graph& g, const std::string& op, int nth = 0) {
  for (const ir::Node* n : g.nodes()) {
    if (n->op == op && nth-- == 0) return n;
  }
  return nullptr;
}

int32_t Zero(const ir::Graph& g, ir::ValueId v) { return g.value(v).quant->zero_points[0]; }

TEST(ZeroPoints, WhereEachOpTakesThem) {
  Quantized q;
  Quantize(true, &q);
  const ir::Graph& g = q.graph;
  const ir::Node* c1 = Find(g, "q.conv2d", 0);
  const ir::Node* pool = Find(g, "q.max_pool");
  const ir::Node* c2 = Find(g, "q.conv2d", 1);
  const ir::Node* c4 = Find(g, "q.conv2d", 2);
  const ir::Node* hs = Find(g, "q.mul");
  const ir::Node* gap = Find(g, "q.avg_pool");
  const ir::Node* c3 = Find(g, "q.conv2d", 3);
  const ir::Node* add = Find(g, "q.add");
  ASSERT_TRUE(c1 && pool && c2 && c4 && hs && gap && c3 && add);
  // The graph input stays symmetric; the ReLU output takes all 256 levels from -128 (real 0).
  EXPECT_EQ(Zero(g, c1->inputs[0]), 0);
  EXPECT_EQ(Zero(g, c1->outputs[0]), -128);
  EXPECT_EQ(c1->GetInt("clip_lo", 0), -128);
  EXPECT_EQ(c1->FindAttr("pad_value"), nullptr);
  // The max pool copies: same scale and zero point; the conv after it pads with that zero point.
  EXPECT_EQ(Zero(g, pool->outputs[0]), -128);
  EXPECT_EQ(c2->GetInt("pad_value", 0), -128);
  // c2's output feeds the Add: q.add takes no zero point, so it stays symmetric (for c4 as well);
  // c4's output only feeds the hard-swish, which takes one.
  EXPECT_EQ(Zero(g, c2->outputs[0]), 0);
  EXPECT_EQ(c4->FindAttr("pad_value"), nullptr);
  EXPECT_NE(Zero(g, c4->outputs[0]), 0);
  EXPECT_EQ(hs->GetInt("a_offset", 0), -Zero(g, c4->outputs[0]));
  EXPECT_EQ(Zero(g, add->inputs[0]), 0);
  EXPECT_EQ(Zero(g, add->outputs[0]), 0);
  // The hard-swish output (>= -0.375) is asymmetric; the average pool reads and writes offsets.
  const int32_t z_h = Zero(g, hs->outputs[0]);
  EXPECT_LT(z_h, -100);
  EXPECT_EQ(hs->GetInt("out_offset", 0), z_h);
  EXPECT_EQ(gap->GetInt("x_offset", 0), -z_h);
  EXPECT_EQ(gap->GetInt("out_offset", 0), Zero(g, gap->outputs[0]));
  // The 1x1 conv reading the hard-swish has its zero point in the bias (no padding to fill).
  EXPECT_EQ(c3->GetInt("pad_value", 0), z_h);
}

// Both quantizations against the float graph on the pooled hard-swish output, whose path holds the
// asymmetric values: that one is closer (a ReLU and a hard-swish output gain their eighth bit).
TEST(ZeroPoints, AsymmetricTracksFloatCloser) {
  Quantized sym, asym;
  Quantize(false, &sym);
  Quantize(true, &asym);
  std::vector<double> err(2, 0.0);
  double signal = 0.0;
  for (const quantize::Sample& s : asym.samples) {
    std::vector<ir::Tensor> f, a, b;
    ASSERT_TRUE(interp::Run(asym.float_graph, s, &f).ok());
    ASSERT_TRUE(interp::Run(sym.graph, s, &a).ok());
    ASSERT_TRUE(interp::Run(asym.graph, s, &b).ok());
    const float* fp = f[0].data<float>();
    for (int64_t i = 0; i < f[0].num_elements(); ++i) {
      signal += double{fp[i]} * fp[i];
      err[0] += std::pow(double{fp[i]} - a[0].data<float>()[i], 2);
      err[1] += std::pow(double{fp[i]} - b[0].data<float>()[i], 2);
    }
  }
  const double sqnr_sym = 10.0 * std::log10(signal / err[0]);
  const double sqnr_asym = 10.0 * std::log10(signal / err[1]);
  EXPECT_GT(sqnr_asym, sqnr_sym + 1.0) << sqnr_sym << " dB symmetric, " << sqnr_asym << " dB";
  std::cout << "pooled hard-swish SQNR: " << sqnr_sym << " dB symmetric, " << sqnr_asym
            << " dB asymmetric\n";
  EXPECT_GT(sqnr_asym, 30.0);
}

// Extents are the signed min and max seen (finite values only), always containing 0.
TEST(ZeroPoints, ExtentsHoldZeroAndSkipNonFinite) {
  ir::Graph g;
  ASSERT_TRUE(
      ir::ParseGraph("graph @g(%x: f32[1,4]) {\n  %y: f32[1,4] = Relu(%x)\n  return %y\n}", &g)
          .ok());
  const std::vector<quantize::Sample> set = {
      {ir::Tensor::FromVector<float>(DType::kF32, {1, 4}, {1.5f, 2.0f, NAN, INFINITY})},
      {ir::Tensor::FromVector<float>(DType::kF32, {1, 4}, {3.0f, -0.5f, 0.25f, -INFINITY})}};
  quantize::Ranges r;
  quantize::Extents e;
  ASSERT_TRUE(quantize::CollectRanges(g, set, {}, &r, &e).ok());
  const quantize::Extent& x = e.at(g.inputs()[0]);
  EXPECT_FLOAT_EQ(x.lo, -0.5f);
  EXPECT_FLOAT_EQ(x.hi, 3.0f);
  const quantize::Extent& y = e.at(g.outputs()[0]);
  EXPECT_FLOAT_EQ(y.lo, 0.0f);  // a ReLU output: 0 is the bottom
  EXPECT_FLOAT_EQ(y.hi, 3.0f);
}

}  // namespace
}  // namespace loom
