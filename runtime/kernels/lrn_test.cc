// LRN: the channel window (asymmetric for even sizes) against a direct evaluation.
#include <gtest/gtest.h>

#include <cmath>

#include "runtime/kernels/kernel_test_util.h"
#include "runtime/kernels/kernels_vision.h"

namespace loom::kernels {
namespace {

using testing::Buf;

TEST(Lrn, ChannelWindow) {
  Buf<float> x({1, 4, 1}, {1, 2, 3, 4});
  Buf<float> y({1, 4, 1});
  LrnParams p;
  p.size = 2;  // window [c, c + 1]
  p.alpha = 2;
  p.beta = 1;
  p.bias = 1;
  ASSERT_TRUE(Lrn(p, x.view(), y.view()).ok());
  EXPECT_FLOAT_EQ(y.data[0], 1.0f / (1 + 1.0f * (1 + 4)));
  EXPECT_FLOAT_EQ(y.data[3], 4.0f / (1 + 1.0f * 16));
  p.size = 3;  // window [c - 1, c + 1]
  p.beta = 0.5f;
  ASSERT_TRUE(Lrn(p, x.view(), y.view()).ok());
  EXPECT_NEAR(y.data[1], 2.0 / std::sqrt(1 + 2.0 / 3 * (1 + 4 + 9)), 1e-6);
  p.size = 0;
  EXPECT_FALSE(Lrn(p, x.view(), y.view()).ok());
}

}  // namespace
}  // namespace loom::kernels
