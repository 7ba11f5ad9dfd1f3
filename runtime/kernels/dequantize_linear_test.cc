// DequantizeLinear: the ONNX spec examples (u8 per-tensor, per-axis) and i32 input.
#include <gtest/gtest.h>

#include "runtime/kernels/kernel_test_util.h"
#include "runtime/kernels/kernels.h"

namespace loom::kernels {
namespace {

using testing::Buf;

TEST(DequantizeLinear, OnnxSpecExample) {
  Buf<uint8_t> x({4}, {0, 3, 128, 255});
  Buf<float> s({}, {2.0f});
  Buf<uint8_t> z({}, {128});
  Buf<float> y({4});
  ASSERT_TRUE(DequantizeLinear(x.view(), s.view(), z.view(), 1, y.view()).ok());
  EXPECT_EQ(y.data, (std::vector<float>{-256, -250, 0, 254}));
}

TEST(DequantizeLinear, PerAxisAndInt32) {
  Buf<uint8_t> x({1, 3, 2}, {3, 89, 34, 200, 74, 59});
  Buf<float> s({3}, {2, 4, 5});
  Buf<uint8_t> z({3}, {84, 24, 196});
  Buf<float> y({1, 3, 2});
  ASSERT_TRUE(DequantizeLinear(x.view(), s.view(), z.view(), 1, y.view()).ok());
  EXPECT_EQ(y.data, (std::vector<float>{-162, 10, 40, 704, -610, -685}));
  Buf<int32_t> xi({2}, {1000000, -7});
  Buf<float> si({}, {0.5f});
  Buf<int32_t> zi({}, {0});
  Buf<float> yi({2});
  ASSERT_TRUE(DequantizeLinear(xi.view(), si.view(), zi.view(), 0, yi.view()).ok());
  EXPECT_EQ(yi.data, (std::vector<float>{500000, -3.5f}));
}

}  // namespace
}  // namespace loom::kernels
