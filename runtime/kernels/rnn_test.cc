// RNN against the recurrence written out by hand for a 1-unit cell: forward, reverse,
// bidirectional, sequence_lens (zero Y past a row's length), layout 1, and shape refusals.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "runtime/kernels/kernel_test_util.h"
#include "runtime/kernels/kernels_seq.h"

namespace loom::kernels {
namespace {

using testing::Buf;

RecurrentParams OneUnit(int direction) {
  RecurrentParams p;
  p.hidden_size = 1;
  p.direction = direction;
  p.activations[0] = p.activations[1] = {RnnActivation::kTanh, 0, 0};
  return p;
}

TEST(Rnn, ForwardReverseAndBidirectional) {
  Buf<float> x({2, 1, 1}, {1.0f, -2.0f});  // [seq, batch, input]
  Buf<float> w({2, 1, 1}, {0.5f, 0.25f}), r({2, 1, 1}, {1.0f, -1.0f}),
      b({2, 2}, {0.1f, 0.2f, 0, 0});
  Buf<float> y({2, 2, 1, 1}), yh({2, 1, 1});
  TensorView xv = x.view(), wv = w.view(), rv = r.view(), bv = b.view(), y_v = y.view(),
             yhv = yh.view();
  RecurrentOperands o;
  o.x = &xv, o.w = &wv, o.r = &rv, o.b = &bv, o.y = &y_v, o.y_h = &yhv;
  std::vector<float> scratch(RecurrentScratchFloats(kRnnGates, 1));
  ASSERT_TRUE(Rnn(OneUnit(2), o, scratch.data()).ok());
  const float f1 = std::tanh(0.5f * 1 + 0.3f), f2 = std::tanh(0.5f * -2 + f1 + 0.3f);
  const float r2 = std::tanh(0.25f * -2), r1 = std::tanh(0.25f * 1 - r2);
  EXPECT_NEAR(y.data[0], f1, 1e-6);  // y[t=0, dir 0]
  EXPECT_NEAR(y.data[2], f2, 1e-6);  // y[t=1, dir 0]
  EXPECT_NEAR(y.data[1], r1, 1e-6);  // y[t=0, dir 1]: the reverse pass ends at t = 0
  EXPECT_NEAR(y.data[3], r2, 1e-6);
  EXPECT_NEAR(yh.data[0], f2, 1e-6);
  EXPECT_NEAR(yh.data[1], r1, 1e-6);
}

TEST(Rnn, SequenceLensAndLayout) {
  // layout 1: x [batch 2, seq 3, input 1]; row 1 stops after one step.
  Buf<float> x({2, 3, 1}, {1, 1, 1, 2, 2, 2});
  Buf<float> w({1, 1, 1}, {1.0f}), r({1, 1, 1}, {0.5f});
  Buf<int32_t> lens({2}, {3, 1});
  Buf<float> y({2, 3, 1, 1}), yh({2, 1, 1});
  TensorView xv = x.view(), wv = w.view(), rv = r.view(), lv = lens.view(), y_v = y.view(),
             yhv = yh.view();
  RecurrentOperands o;
  o.x = &xv, o.w = &wv, o.r = &rv, o.seq_lens = &lv, o.y = &y_v, o.y_h = &yhv;
  RecurrentParams p = OneUnit(0);
  p.layout = 1;
  std::vector<float> scratch(RecurrentScratchFloats(kRnnGates, 1));
  ASSERT_TRUE(Rnn(p, o, scratch.data()).ok());
  const float a1 = std::tanh(1.0f), a2 = std::tanh(1 + 0.5f * a1), a3 = std::tanh(1 + 0.5f * a2);
  EXPECT_NEAR(y.data[2], a3, 1e-6);
  EXPECT_NEAR(yh.data[0], a3, 1e-6);
  EXPECT_NEAR(y.data[3], std::tanh(2.0f), 1e-6);
  EXPECT_EQ(y.data[4], 0.0f);
  EXPECT_EQ(y.data[5], 0.0f);
  EXPECT_NEAR(yh.data[1], std::tanh(2.0f), 1e-6);
  lens.data[1] = 4;  // longer than the sequence
  EXPECT_FALSE(Rnn(p, o, scratch.data()).ok());
}

TEST(Rnn, RefusesMismatchedWeights) {
  Buf<float> x({2, 1, 3}), w({1, 2, 3}), r({1, 1, 1});
  TensorView xv = x.view(), wv = w.view(), rv = r.view();
  RecurrentOperands o;
  o.x = &xv, o.w = &wv, o.r = &rv;
  std::vector<float> scratch(RecurrentScratchFloats(kRnnGates, 1));
  const Status s = Rnn(OneUnit(0), o, scratch.data());
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("W is"), std::string::npos) << s.message();
}

}  // namespace
}  // namespace loom::kernels
