// LSTM against the gate equations written out for a 1-unit cell: peepholes, Y_c, clip and
// input_forget.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "runtime/kernels/kernel_test_util.h"
#include "runtime/kernels/kernels_seq.h"

namespace loom::kernels {
namespace {

using testing::Buf;

float Sigmoid(float v) { return 1.0f / (1.0f + std::exp(-v)); }

void CheckLstm(bool input_forget, float clip) {
  // Gates i, o, f, c; peepholes i, o, f.
  Buf<float> x({2, 1, 1}, {0.8f, -0.6f});
  Buf<float> w({1, 4, 1}, {0.5f, -0.3f, 0.2f, 1.5f}), r({1, 4, 1}, {0.1f, 0.4f, -0.2f, 0.7f});
  Buf<float> pp({1, 3}, {0.3f, -0.2f, 0.1f});
  Buf<float> c0({1, 1, 1}, {0.25f}), yh({1, 1, 1}), yc({1, 1, 1});
  TensorView xv = x.view(), wv = w.view(), rv = r.view(), pv = pp.view(), cv = c0.view(),
             yhv = yh.view(), ycv = yc.view();
  RecurrentOperands o;
  o.x = &xv, o.w = &wv, o.r = &rv, o.p = &pv, o.init_c = &cv, o.y_h = &yhv, o.y_c = &ycv;
  RecurrentParams p;
  p.hidden_size = 1;
  p.input_forget = input_forget;
  p.clip = clip;
  p.activations[0] = {RnnActivation::kSigmoid, 0, 0};
  p.activations[1] = p.activations[2] = {RnnActivation::kTanh, 0, 0};
  std::vector<float> scratch(RecurrentScratchFloats(kLstmGates, 1));
  ASSERT_TRUE(Lstm(p, o, scratch.data()).ok());
  auto cl = [&](float v) { return clip > 0 ? std::clamp(v, -clip, clip) : v; };
  float h = 0.0f, c = 0.25f;
  for (float xt : x.data) {
    const float i = Sigmoid(cl(0.5f * xt + 0.1f * h + 0.3f * c));
    const float f = input_forget ? 1 - i : Sigmoid(cl(0.2f * xt - 0.2f * h + 0.1f * c));
    const float g = std::tanh(cl(1.5f * xt + 0.7f * h));
    c = f * c + i * g;
    const float og = Sigmoid(cl(-0.3f * xt + 0.4f * h - 0.2f * c));
    h = og * std::tanh(c);
  }
  EXPECT_NEAR(yh.data[0], h, 1e-6);
  EXPECT_NEAR(yc.data[0], c, 1e-6);
}

TEST(Lstm, Peepholes) { CheckLstm(false, 0.0f); }
TEST(Lstm, InputForgetAndClip) { CheckLstm(true, 0.5f); }

}  // namespace
}  // namespace loom::kernels
