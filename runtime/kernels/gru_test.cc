// GRU against the gate equations written out for a 1-unit cell, both linear_before_reset forms.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "runtime/kernels/kernel_test_util.h"
#include "runtime/kernels/kernels_seq.h"

namespace loom::kernels {
namespace {

using testing::Buf;

float Sigmoid(float v) { return 1.0f / (1.0f + std::exp(-v)); }

void CheckGru(bool linear_before_reset) {
  // Gates z, r, h; one input, one unit, two steps from initial_h = 0.5.
  Buf<float> x({2, 1, 1}, {0.7f, -0.3f});
  Buf<float> w({1, 3, 1}, {0.2f, -0.4f, 0.9f}), r({1, 3, 1}, {0.3f, 0.6f, -0.8f});
  Buf<float> b({1, 6}, {0.01f, 0.02f, 0.03f, 0.04f, 0.05f, 0.06f});
  Buf<float> h0({1, 1, 1}, {0.5f}), yh({1, 1, 1});
  TensorView xv = x.view(), wv = w.view(), rv = r.view(), bv = b.view(), hv = h0.view(),
             yhv = yh.view();
  RecurrentOperands o;
  o.x = &xv, o.w = &wv, o.r = &rv, o.b = &bv, o.init_h = &hv, o.y_h = &yhv;
  RecurrentParams p;
  p.hidden_size = 1;
  p.linear_before_reset = linear_before_reset;
  p.activations[0] = {RnnActivation::kSigmoid, 0, 0};
  p.activations[1] = {RnnActivation::kTanh, 0, 0};
  std::vector<float> scratch(RecurrentScratchFloats(kGruGates, 1));
  ASSERT_TRUE(Gru(p, o, scratch.data()).ok());
  float h = 0.5f;
  for (float xt : x.data) {
    const float z = Sigmoid(0.2f * xt + 0.3f * h + 0.01f + 0.04f);
    const float rg = Sigmoid(-0.4f * xt + 0.6f * h + 0.02f + 0.05f);
    const float cand = linear_before_reset
                           ? std::tanh(0.9f * xt + rg * (-0.8f * h + 0.06f) + 0.03f)
                           : std::tanh(0.9f * xt + -0.8f * (rg * h) + 0.06f + 0.03f);
    h = (1 - z) * cand + z * h;
  }
  EXPECT_NEAR(yh.data[0], h, 1e-6);
}

TEST(Gru, ResetAfterTheMatmul) { CheckGru(false); }
TEST(Gru, LinearBeforeReset) { CheckGru(true); }

}  // namespace
}  // namespace loom::kernels
