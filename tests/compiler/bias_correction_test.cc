// Empirical bias correction (compiler/quantize/bias_correction.h) on two chained 1x1 convolutions
// whose int8 weights all round the same way, so the quantized outputs carry a known mean error.
#include "compiler/quantize/bias_correction.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>

#include "compiler/interp/interpreter.h"
#include "compiler/ir/verifier.h"
#include "compiler/quantize/calibration.h"
#include "compiler/quantize/quantize.h"

namespace loom {
namespace {

using ir::ValueId;

// Each output channel o has one weight of magnitude m_o (which sets its int8 scale m_o / 127) and
// the others at 0.6 steps of that scale, which round up to 1 step: every small weight gains 0.4 of
// a step, all with the channel's sign (alternating over channels), so on non-negative inputs the
// channel's int8 output is off by the same sign everywhere.
ir::Tensor BiasedWeights(int64_t o, int64_t c) {
  std::vector<float> w(static_cast<size_t>(o * c));
  for (int64_t i = 0; i < o; ++i) {
    const float sign = i % 2 ? -1.0f : 1.0f;
    const float m = 0.5f + 0.1f * static_cast<float>(i);
    for (int64_t k = 0; k < c; ++k) {
      w[static_cast<size_t>(i * c + k)] = sign * (k == i % c ? m : 0.6f * m / 127.0f);
    }
  }
  return ir::Tensor::FromVector<float>(DType::kF32, {o, c, 1, 1}, w);
}

ValueId AddConv(ir::Graph& g, ValueId x, int64_t o, const char* name) {
  const int64_t c = g.value(x).shape[1];
  const ValueId w = g.AddConstant(std::string(name) + ".w", BiasedWeights(o, c));
  const ValueId b =
      g.AddConstant(std::string(name) + ".b",
                    ir::Tensor::FromVector<float>(DType::kF32, {o}, std::vector<float>(o, 0.05f)));
  const ValueId y = g.AddValue(name, DType::kF32, {1, o, 6, 6});
  g.AddNode("Conv", {x, w, b}, {y},
            {{"strides", ir::Attribute::Ints({1, 1})},
             {"pads", ir::Attribute::Ints({0, 0, 0, 0})},
             {"dilations", ir::Attribute::Ints({1, 1})},
             {"group", ir::Attribute::Int(1)}},
            name);
  return y;
}

std::vector<quantize::Sample> Uniform(int count, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(0.0f, 1.0f);
  std::vector<quantize::Sample> set;
  for (int s = 0; s < count; ++s) {
    std::vector<float> v(32 * 36);
    for (float& x : v) x = u(rng);
    set.push_back({ir::Tensor::FromVector<float>(DType::kF32, {1, 32, 6, 6}, v)});
  }
  return set;
}

// Calibrates g on `calib` and quantizes it in place; `float_graph` gets g as it was.
void Quantize(ir::Graph& g, const std::vector<quantize::Sample>& calib, ir::Graph* float_graph,
              quantize::QuantizeResult* result) {
  quantize::Ranges ranges;
  ASSERT_TRUE(quantize::CollectRanges(g, calib, {}, &ranges).ok());
  *float_graph = g.Clone();
  ASSERT_TRUE(quantize::QuantizeGraph(g, ranges, result).ok());
}

// Per output channel: mean of (float - int8 graph) over `samples`, in units of the output's scale.
std::vector<double> MeanErrorInSteps(const ir::Graph& f, const ir::Graph& q,
                                     const std::vector<quantize::Sample>& samples, double s_y) {
  std::vector<double> err(16, 0.0);
  for (const quantize::Sample& s : samples) {
    std::vector<ir::Tensor> fo, qo;
    EXPECT_TRUE(interp::Run(f, s, &fo).ok());
    EXPECT_TRUE(interp::Run(q, s, &qo).ok());
    for (int64_t i = 0; i < fo[0].num_elements(); ++i) {
      err[static_cast<size_t>(i / 36)] += fo[0].data<float>()[i] - qo[0].data<float>()[i];
    }
  }
  for (double& e : err) e /= static_cast<double>(samples.size() * 36) * s_y;
  return err;
}

TEST(BiasCorrection, RemovesTheMeanErrorOfBiasedRounding) {
  ir::Graph g;
  const ValueId x = g.AddInput("x", DType::kF32, {1, 32, 6, 6});
  const ValueId y1 = AddConv(g, x, 32, "conv1");
  g.AddOutput(AddConv(g, y1, 16, "conv2"));
  ASSERT_TRUE(ir::Verify(g).ok());

  const std::vector<quantize::Sample> calib = Uniform(8, 1), held_out = Uniform(8, 2);
  ir::Graph float_graph;
  quantize::QuantizeResult result;
  ASSERT_NO_FATAL_FAILURE(Quantize(g, calib, &float_graph, &result));
  ASSERT_EQ(result.layers.size(), 2u);
  const double s_y = result.layers[1].output_scale;
  const ir::Graph plain = g.Clone();

  quantize::BiasCorrectionStats stats;
  ASSERT_TRUE(quantize::CorrectBiases(float_graph, g, calib, {}, result, &stats).ok());
  ASSERT_TRUE(ir::Verify(g).ok());
  EXPECT_EQ(stats.layers, 2);
  EXPECT_EQ(stats.skipped, 0);
  EXPECT_EQ(stats.clamped, 0);
  EXPECT_EQ(stats.channels, 48);

  // Before: 31 small weights of 0.4 extra steps each per channel, in both layers, the first
  // layer's error carried into the second: 2.4 output steps on average. After: 0.1, and
  // within a third of a step on every channel (held-out inputs: sampling noise remains).
  const std::vector<double> before = MeanErrorInSteps(float_graph, plain, held_out, s_y);
  const std::vector<double> after = MeanErrorInSteps(float_graph, g, held_out, s_y);
  double sum_before = 0.0, sum_after = 0.0;
  for (size_t o = 0; o < before.size(); ++o) {
    sum_before += std::fabs(before[o]);
    sum_after += std::fabs(after[o]);
    EXPECT_LT(std::fabs(after[o]), 0.35)
        << "channel " << o << ": " << before[o] << " -> " << after[o];
  }
  EXPECT_GT(sum_before / 16, 1.5);
  EXPECT_LT(sum_after, sum_before / 20);
  std::printf("mean |error| in output steps: %.3f before, %.3f after\n", sum_before / 16,
              sum_after / 16);
}

// A layer without a bias gets one, and no correction lets an accumulator wrap the layer's
// requantization: (ceil(A / 2^pre) + 1) * mult < 2^31 for A = sum|w_q[o]| * 128 + |bias[o]|.
TEST(BiasCorrection, AddsABiasWithinTheRequantizationBound) {
  ir::Graph g;
  const ValueId x = g.AddInput("x", DType::kF32, {1, 32, 6, 6});
  const ValueId w = g.AddConstant("w", BiasedWeights(16, 32));
  const ValueId y = g.AddValue("y", DType::kF32, {1, 16, 6, 6});
  g.AddNode("Conv", {x, w}, {y},
            {{"strides", ir::Attribute::Ints({1, 1})},
             {"pads", ir::Attribute::Ints({0, 0, 0, 0})},
             {"dilations", ir::Attribute::Ints({1, 1})},
             {"group", ir::Attribute::Int(1)}});
  g.AddOutput(y);
  const std::vector<quantize::Sample> calib = Uniform(2, 3);
  ir::Graph float_graph;
  quantize::QuantizeResult result;
  ASSERT_NO_FATAL_FAILURE(Quantize(g, calib, &float_graph, &result));
  const ir::Node* conv = nullptr;
  for (const ir::Node* n : g.nodes()) conv = n->op == "q.conv2d" ? n : conv;
  ASSERT_NE(conv, nullptr);
  ASSERT_FALSE(conv->has_input(2));
  quantize::BiasCorrectionStats stats;
  ASSERT_TRUE(quantize::CorrectBiases(float_graph, g, calib, {}, result, &stats).ok());
  ASSERT_TRUE(ir::Verify(g).ok());
  ASSERT_TRUE(conv->has_input(2));
  const ir::Tensor& wq = *g.value(conv->input(1)).constant;
  const int32_t* b = g.value(conv->input(2)).constant->data<int32_t>();
  const int32_t* m = g.value(conv->input(3)).constant->data<int32_t>();
  const int64_t pre = conv->GetInt("pre_shift", 0);
  for (int64_t o = 0; o < 16; ++o) {
    int64_t a = std::abs(int64_t{b[o]});
    for (int64_t i = 0; i < 32; ++i) a += std::abs(int64_t{wq.data<int8_t>()[o * 32 + i]}) * 128;
    EXPECT_NE(b[o], 0) << "channel " << o;
    EXPECT_LT((((a + (int64_t{1} << pre) - 1) >> pre) + 1) * m[o], int64_t{1} << 31);
  }
}

// A sample whose tensor is not the declared input is rejected with the sample and the input
// named, before any kernel reads it: a 5x5 image for a 6x6 input, and int8 data of the right
// shape (a quarter of the bytes a float kernel would read).
TEST(BiasCorrection, RejectsASampleThatIsNotTheDeclaredInput) {
  ir::Graph g;
  const ValueId x = g.AddInput("x", DType::kF32, {1, 32, 6, 6});
  g.AddOutput(AddConv(g, x, 16, "conv"));
  const std::vector<quantize::Sample> calib = Uniform(2, 4);
  ir::Graph float_graph;
  quantize::QuantizeResult result;
  ASSERT_NO_FATAL_FAILURE(Quantize(g, calib, &float_graph, &result));
  const ir::Tensor wrong[] = {
      ir::Tensor::FromVector<float>(DType::kF32, {1, 32, 5, 5}, std::vector<float>(32 * 25, 0.5f)),
      ir::Tensor::FromVector<int8_t>(DType::kI8, {1, 32, 6, 6}, std::vector<int8_t>(32 * 36, 1))};
  for (const ir::Tensor& t : wrong) {
    std::vector<quantize::Sample> bad = calib;
    bad[1][0] = t;
    quantize::BiasCorrectionStats stats;
    const Status st = quantize::CorrectBiases(float_graph, g, bad, {}, result, &stats);
    ASSERT_FALSE(st.ok());
    EXPECT_NE(st.ToString().find("sample 1 input %x"), std::string::npos) << st.ToString();
    EXPECT_EQ(stats.layers, 0);
  }
}

}  // namespace
}  // namespace loom
