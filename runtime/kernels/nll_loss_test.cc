// NegativeLogLikelihoodLoss: the three reductions, weights, ignore_index, spatial dims and a
// target outside the classes.
#include <gtest/gtest.h>

#include "runtime/kernels/kernel_test_util.h"
#include "runtime/kernels/kernels_reduce.h"

namespace loom::kernels {
namespace {

using testing::Buf;

TEST(NllLoss, ReductionsWeightsIgnoreIndex) {
  Buf<float> x({2, 3}, {-1, -2, -3, -4, -5, -6});
  Buf<int64_t> t({2}, {2, 0});
  Buf<float> w({3}, {1, 0.5f, 2});
  Buf<float> none({2}), scalar({});
  LossParams p;
  p.reduction = LossReduction::kNone;
  ASSERT_TRUE(NllLoss(p, x.view(), t.view(), nullptr, none.view()).ok());
  EXPECT_EQ(none.data, (std::vector<float>{3, 4}));
  p.reduction = LossReduction::kMean;
  TensorView wv = w.view();
  ASSERT_TRUE(NllLoss(p, x.view(), t.view(), &wv, scalar.view()).ok());
  EXPECT_FLOAT_EQ(scalar.data[0], (3 * 2 + 4 * 1) / 3.0f);
  p.has_ignore_index = true;
  p.ignore_index = 0;
  ASSERT_TRUE(NllLoss(p, x.view(), t.view(), &wv, scalar.view()).ok());
  EXPECT_FLOAT_EQ(scalar.data[0], 3);
  p.reduction = LossReduction::kSum;
  p.has_ignore_index = false;
  ASSERT_TRUE(NllLoss(p, x.view(), t.view(), nullptr, scalar.view()).ok());
  EXPECT_FLOAT_EQ(scalar.data[0], 7);
}

TEST(NllLoss, SpatialDimsAndBadTarget) {
  Buf<float> x({1, 2, 2}, {-1, -2, -3, -4});  // [N, C, D]: class c at d is x[c * 2 + d]
  Buf<int32_t> t({1, 2}, {1, 0});
  Buf<float> y({1, 2});
  LossParams p;
  p.reduction = LossReduction::kNone;
  ASSERT_TRUE(NllLoss(p, x.view(), t.view(), nullptr, y.view()).ok());
  EXPECT_EQ(y.data, (std::vector<float>{3, 2}));
  t.data[1] = 2;
  const Status s = NllLoss(p, x.view(), t.view(), nullptr, y.view());
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.ToString().find("target 2"), std::string::npos) << s.ToString();
}

}  // namespace
}  // namespace loom::kernels
