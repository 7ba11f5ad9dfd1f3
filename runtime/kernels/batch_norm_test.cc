// BatchNorm: the ONNX spec formula on a [N, C, H, W] tensor and on the 2-D [N, C] form that
// follows a Gemm.
#include <gtest/gtest.h>

#include <cmath>

#include "runtime/kernels/kernel_test_util.h"
#include "runtime/kernels/kernels.h"

namespace loom::kernels {
namespace {

using testing::Buf;
using testing::RandomFloats;

TEST(BatchNorm, MatchesFormula) {
  Buf<float> x({2, 3, 2, 2}, RandomFloats(24, 1, -3, 3));
  Buf<float> s({3}, {1.0f, 1.5f, -2.0f}), b({3}, {0.0f, 1.0f, -1.0f});
  Buf<float> mean({3}, {0.1f, -0.2f, 0.3f}), var({3}, {1.0f, 0.25f, 4.0f});
  Buf<float> y(x.shape);
  ASSERT_TRUE(
      BatchNorm(x.view(), s.view(), b.view(), mean.view(), var.view(), 1e-5f, y.view()).ok());
  for (size_t i = 0; i < x.data.size(); ++i) {
    const size_t c = (i / 4) % 3;
    const float want =
        (x.data[i] - mean.data[c]) / std::sqrt(var.data[c] + 1e-5f) * s.data[c] + b.data[c];
    EXPECT_NEAR(y.data[i], want, 1e-5f) << i;
  }
}

TEST(BatchNorm, TwoDimensionalInput) {
  Buf<float> x({1, 2}, {3.0f, 4.0f});
  Buf<float> s({2}, {2.0f, 1.0f}), b({2}, {1.0f, 0.0f}), mean({2}, {1.0f, 4.0f}),
      var({2}, {4.0f, 1.0f});
  Buf<float> y({1, 2});
  ASSERT_TRUE(
      BatchNorm(x.view(), s.view(), b.view(), mean.view(), var.view(), 0.0f, y.view()).ok());
  EXPECT_EQ(y.data, (std::vector<float>{3.0f, 0.0f}));  // (3-1)/2*2+1, (4-4)/1*1+0
  Buf<float> short_mean({1}, {0.0f});
  EXPECT_FALSE(
      BatchNorm(x.view(), s.view(), b.view(), short_mean.view(), var.view(), 0.0f, y.view()).ok());
}

}  // namespace
}  // namespace loom::kernels
