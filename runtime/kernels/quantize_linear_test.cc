// QuantizeLinear: the ONNX spec example (u8, ties to even, saturation), i8 per-axis, and the
// difference between x / scale and x * (1 / scale).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "runtime/kernels/kernel_test_util.h"
#include "runtime/kernels/kernels.h"

namespace loom::kernels {
namespace {

using testing::Buf;

TEST(QuantizeLinear, OnnxSpecExample) {
  Buf<float> x({6}, {0, 2, 3, 1000, -254, -1000});
  Buf<float> s({}, {2.0f});
  Buf<uint8_t> z({}, {128});
  Buf<uint8_t> y({6});
  ASSERT_TRUE(QuantizeLinear(x.view(), s.view(), z.view(), 1, y.view()).ok());
  EXPECT_EQ(y.data, (std::vector<uint8_t>{128, 129, 130, 255, 1, 0}));  // 1.5 -> 2: 130
}

TEST(QuantizeLinear, PerAxisInt8) {
  // ONNX test_quantizelinear_axis: [1, 3, 3, 2] with per-channel (axis 1) scale and zero point.
  Buf<float> x({1, 3, 3, 2}, {-162, 10, -100, 232, -20, -50, -76, 0, 0, 252, 32, -44, 245, 485,
                              -960, -270, -375, -470});
  Buf<float> s({3}, {2, 4, 5});
  Buf<int8_t> z({3}, {84, 24, 96});
  Buf<int8_t> y(x.shape);
  ASSERT_TRUE(QuantizeLinear(x.view(), s.view(), z.view(), 1, y.view()).ok());
  EXPECT_EQ(y.data, (std::vector<int8_t>{3, 89, 34, 127, 74, 59, 5, 24, 24, 87, 32, 13, 127, 127,
                                         -96, 42, 21, 2}));
}

TEST(QuantizeLinear, NanSaturatesLowAndBadShapesFail) {
  Buf<float> x({2}, {std::numeric_limits<float>::quiet_NaN(), 1e30f});
  Buf<float> s({}, {1.0f});
  Buf<int8_t> z({}, {0});
  Buf<int8_t> y({2});
  ASSERT_TRUE(QuantizeLinear(x.view(), s.view(), z.view(), 0, y.view()).ok());
  EXPECT_EQ(y.data, (std::vector<int8_t>{-128, 127}));
  Buf<float> s2({3}, {1, 1, 1});
  Buf<int8_t> z2({3}, {0, 0, 0});
  EXPECT_FALSE(QuantizeLinear(x.view(), s2.view(), z2.view(), 0, y.view()).ok());
}

}  // namespace
}  // namespace loom::kernels
