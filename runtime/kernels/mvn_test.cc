// MeanVarianceNormalization: zero mean and unit variance per group, a constant group, checks.
#include <gtest/gtest.h>

#include <cmath>

#include "runtime/kernels/kernel_test_util.h"
#include "runtime/kernels/kernels_reduce.h"

namespace loom::kernels {
namespace {

using testing::Buf;

TEST(MeanVarianceNorm, NormalizesEachGroup) {
  Buf<float> x({2, 2, 3}, testing::RandomFloats(12, 11, -5, 5));
  Buf<float> y({2, 2, 3});
  ASSERT_TRUE(MeanVarianceNorm(x.view(), 0b101u, y.view()).ok());  // over dims 0 and 2
  for (int c = 0; c < 2; ++c) {
    double sum = 0, sq = 0;
    for (int n = 0; n < 2; ++n) {
      for (int w = 0; w < 3; ++w) {
        const double v = y.data[static_cast<size_t>(n * 6 + c * 3 + w)];
        sum += v;
        sq += v * v;
      }
    }
    EXPECT_NEAR(sum / 6, 0.0, 1e-5);
    EXPECT_NEAR(sq / 6, 1.0, 1e-4);
  }
}

TEST(MeanVarianceNorm, ConstantGroupAndChecks) {
  Buf<float> x({1, 3}, {2, 2, 2});
  Buf<float> y({1, 3});
  ASSERT_TRUE(MeanVarianceNorm(x.view(), 0b10u, y.view()).ok());
  EXPECT_EQ(y.data, (std::vector<float>{0, 0, 0}));
  EXPECT_FALSE(MeanVarianceNorm(x.view(), 0b100u, y.view()).ok());
  Buf<float> other({3});
  EXPECT_FALSE(MeanVarianceNorm(x.view(), 0b10u, other.view()).ok());
}

}  // namespace
}  // namespace loom::kernels
