// SoftmaxCrossEntropyLoss: equals NLL of LogSoftmax, with and without log_prob, and large scores.
#include <gtest/gtest.h>

#include <cmath>

#include "runtime/kernels/kernel_test_util.h"
#include "runtime/kernels/kernels_reduce.h"

namespace loom::kernels {
namespace {

using testing::Buf;

TEST(SoftmaxCrossEntropy, IsNllOfLogSoftmax) {
  Buf<float> s({2, 3, 2}, testing::RandomFloats(12, 3, -4, 4));
  Buf<int64_t> t({2, 2}, {0, 2, 1, -1});
  Buf<float> w({3}, {0.2f, 1, 3});
  Buf<float> lp({2, 3, 2}), ref_lp({2, 3, 2}), y({}), ref({});
  LossParams p;
  p.has_ignore_index = true;
  p.ignore_index = -1;
  TensorView wv = w.view(), lpv = lp.view();
  ASSERT_TRUE(LogSoftmax(s.view(), 1, ref_lp.view()).ok());
  ASSERT_TRUE(NllLoss(p, ref_lp.view(), t.view(), &wv, ref.view()).ok());
  ASSERT_TRUE(SoftmaxCrossEntropy(p, s.view(), t.view(), &wv, y.view(), &lpv).ok());
  EXPECT_NEAR(y.data[0], ref.data[0], 1e-5f);
  for (size_t i = 0; i < lp.data.size(); ++i) EXPECT_NEAR(lp.data[i], ref_lp.data[i], 1e-5f);
  ASSERT_TRUE(SoftmaxCrossEntropy(p, s.view(), t.view(), &wv, y.view(), nullptr).ok());
  EXPECT_NEAR(y.data[0], ref.data[0], 1e-5f);
}

TEST(SoftmaxCrossEntropy, LargeScoresAndChecks) {
  Buf<float> s({1, 2}, {5000, 5001});
  Buf<int64_t> t({1}, {1});
  Buf<float> y({});
  LossParams p;
  p.reduction = LossReduction::kSum;
  ASSERT_TRUE(SoftmaxCrossEntropy(p, s.view(), t.view(), nullptr, y.view(), nullptr).ok());
  EXPECT_NEAR(y.data[0], std::log1p(std::exp(-1.0f)), 1e-5f);
  Buf<float> bad_lp({2, 1});
  TensorView lpv = bad_lp.view();
  EXPECT_FALSE(SoftmaxCrossEntropy(p, s.view(), t.view(), nullptr, y.view(), &lpv).ok());
}

}  // namespace
}  // namespace loom::kernels
