// LayerNormalization: the statistics outputs, scale/bias broadcast, axis 0 and shape checks.
#include <gtest/gtest.h>

#include <cmath>

#include "runtime/kernels/kernel_test_util.h"
#include "runtime/kernels/kernels_vision.h"

namespace loom::kernels {
namespace {

using testing::Buf;

TEST(LayerNorm, NormalizesTrailingDims) {
  Buf<float> x({2, 2}, {1, 3, 10, 10});
  Buf<float> scale({2}, {1, 2});
  Buf<float> bias({1}, {0.5f});
  Buf<float> y({2, 2}), mean({2, 1}), inv({2, 1});
  TensorView bv = bias.view(), mv = mean.view(), iv = inv.view();
  ASSERT_TRUE(LayerNorm(x.view(), scale.view(), &bv, 1, 0.0f, y.view(), &mv, &iv).ok());
  EXPECT_EQ(mean.data, (std::vector<float>{2, 10}));
  EXPECT_FLOAT_EQ(inv.data[0], 1.0f);
  EXPECT_FLOAT_EQ(y.data[0], -1 * 1 + 0.5f);
  EXPECT_FLOAT_EQ(y.data[1], 1 * 2 + 0.5f);
  // Zero variance: epsilon keeps it finite.
  Buf<float> y2({2, 2});
  ASSERT_TRUE(
      LayerNorm(x.view(), scale.view(), nullptr, 1, 1e-5f, y2.view(), nullptr, nullptr).ok());
  EXPECT_EQ(y2.data[2], 0.0f);
  EXPECT_NEAR(y2.data[0], -1.0f / std::sqrt(1.0f + 1e-5f), 1e-6);
}

TEST(LayerNorm, AxisZeroNormalizesEverything) {
  Buf<float> x({2, 2}, {0, 0, 4, 4});
  Buf<float> scale({2, 2}, {1, 1, 1, 1});
  Buf<float> y({2, 2});
  ASSERT_TRUE(LayerNorm(x.view(), scale.view(), nullptr, 0, 0.0f, y.view(), nullptr, nullptr).ok());
  EXPECT_EQ(y.data, (std::vector<float>{-1, -1, 1, 1}));
}

TEST(LayerNorm, RefusesBadShapes) {
  Buf<float> x({2, 3}, testing::RandomFloats(6, 1));
  Buf<float> scale({2}, {1, 1});  // does not broadcast to [3]
  Buf<float> y({2, 3});
  EXPECT_FALSE(
      LayerNorm(x.view(), scale.view(), nullptr, 1, 1e-5f, y.view(), nullptr, nullptr).ok());
  Buf<float> s3({3}, {1, 1, 1});
  Buf<float> mean({2, 3});  // must be [2, 1]
  TensorView mv = mean.view();
  EXPECT_FALSE(LayerNorm(x.view(), s3.view(), nullptr, 1, 1e-5f, y.view(), &mv, nullptr).ok());
  EXPECT_FALSE(LayerNorm(x.view(), s3.view(), nullptr, 2, 1e-5f, y.view(), nullptr, nullptr).ok());
}

}  // namespace
}  // namespace loom::kernels
