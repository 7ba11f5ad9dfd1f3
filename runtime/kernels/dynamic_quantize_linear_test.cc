// DynamicQuantizeLinear on ONNX's documented example, an all-positive input (zero point 0) and
// an all-zero one (scale 1/255).
#include <gtest/gtest.h>

#include <vector>

#include "runtime/kernels/kernel_test_util.h"
#include "runtime/kernels/kernels_seq.h"

namespace loom::kernels {
namespace {

using testing::Buf;

TEST(DynamicQuantizeLinear, OnnxExample) {
  Buf<float> x({6}, {0.0f, 2.0f, -3.0f, -2.5f, 1.34f, 0.5f});
  Buf<uint8_t> y({6}), zp({});
  Buf<float> scale({});
  ASSERT_TRUE(DynamicQuantizeLinear(x.view(), y.view(), scale.view(), zp.view()).ok());
  EXPECT_NEAR(scale.data[0], 5.0f / 255.0f, 1e-7);
  EXPECT_EQ(zp.data[0], 153);
  EXPECT_EQ(y.data, (std::vector<uint8_t>{153, 255, 0, 26, 221, 179}));
}

TEST(DynamicQuantizeLinear, PositiveAndZeroRanges) {
  Buf<float> x({3}, {1.0f, 2.0f, 2.55f});
  Buf<uint8_t> y({3}), zp({});
  Buf<float> scale({});
  ASSERT_TRUE(DynamicQuantizeLinear(x.view(), y.view(), scale.view(), zp.view()).ok());
  EXPECT_EQ(zp.data[0], 0);
  EXPECT_EQ(y.data[2], 255);
  Buf<float> zeros({2});
  Buf<uint8_t> yz({2});
  ASSERT_TRUE(DynamicQuantizeLinear(zeros.view(), yz.view(), scale.view(), zp.view()).ok());
  EXPECT_NEAR(scale.data[0], 1.0f / 255.0f, 1e-9);
  EXPECT_EQ(yz.data, (std::vector<uint8_t>{0, 0}));
  Buf<uint8_t> wrong({3});
  EXPECT_FALSE(DynamicQuantizeLinear(zeros.view(), wrong.view(), scale.view(), zp.view()).ok());
}

}  // namespace
}  // namespace loom::kernels
