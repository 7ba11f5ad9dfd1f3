// InstanceNormalization: per-plane statistics with per-channel affine, and shape checks.
#include <gtest/gtest.h>

#include "runtime/kernels/kernel_test_util.h"
#include "runtime/kernels/kernels_vision.h"

namespace loom::kernels {
namespace {

using testing::Buf;

TEST(InstanceNorm, PerPlane) {
  Buf<float> x({1, 2, 2}, {1, 3, 5, 5});
  Buf<float> scale({2}, {2, 1});
  Buf<float> bias({2}, {0, 7});
  Buf<float> y({1, 2, 2});
  ASSERT_TRUE(InstanceNorm(x.view(), scale.view(), bias.view(), 0.0f, y.view()).ok());
  EXPECT_EQ(y.data[0], -2.0f);
  EXPECT_EQ(y.data[1], 2.0f);
  // The second plane has no variance; with epsilon 0 that would be 0/0, so use a tiny one.
  ASSERT_TRUE(InstanceNorm(x.view(), scale.view(), bias.view(), 1e-5f, y.view()).ok());
  EXPECT_EQ(y.data[2], 7.0f);
  EXPECT_EQ(y.data[3], 7.0f);
}

TEST(InstanceNorm, RefusesBadShapes) {
  Buf<float> x({1, 2, 2}, {1, 3, 5, 5});
  Buf<float> scale({3}, {1, 1, 1});
  Buf<float> bias({2}, {0, 0});
  Buf<float> y({1, 2, 2});
  EXPECT_FALSE(InstanceNorm(x.view(), scale.view(), bias.view(), 1e-5f, y.view()).ok());
  Buf<float> x2({2, 2}, {1, 2, 3, 4});
  EXPECT_FALSE(InstanceNorm(x2.view(), bias.view(), bias.view(), 1e-5f, x2.view()).ok());
}

}  // namespace
}  // namespace loom::kernels
