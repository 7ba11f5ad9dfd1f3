// AveragePool: count_include_pad on and off, ceil-mode windows that reach past the padding, and
// 1-D / 3-D inputs.
#include <gtest/gtest.h>

#include "runtime/kernels/kernel_test_util.h"
#include "runtime/kernels/kernels.h"

namespace loom::kernels {
namespace {

using testing::Buf;

TEST(AvgPool, CountIncludePad) {
  Buf<float> x({1, 1, 2, 2}, {1, 2, 3, 4});
  PoolParams p;
  p.kernel[0] = p.kernel[1] = 2;
  p.pads_begin[0] = p.pads_begin[1] = p.pads_end[0] = p.pads_end[1] = 1;
  Buf<float> y({1, 1, 3, 3});
  ASSERT_TRUE(AvgPool(p, x.view(), y.view()).ok());
  EXPECT_EQ(y.data, (std::vector<float>{1, 1.5f, 2, 2, 2.5f, 3, 3, 3.5f, 4}));
  p.count_include_pad = true;
  ASSERT_TRUE(AvgPool(p, x.view(), y.view()).ok());
  EXPECT_EQ(y.data, (std::vector<float>{0.25f, 0.75f, 0.5f, 1, 2.5f, 1.5f, 0.75f, 1.75f, 1}));
}

TEST(AvgPool, CeilModeDoesNotCountBeyondPadding) {
  // 1-D: [1, 2, 3, 4, 5], kernel 2, stride 2, ceil mode -> 3 outputs; the last window holds only
  // the 5 (it reaches one cell past the unpadded end), so it averages to 5 even when counting pads.
  Buf<float> x({1, 1, 5}, {1, 2, 3, 4, 5});
  PoolParams p;
  p.spatial = 1;
  p.kernel[0] = 2;
  p.strides[0] = 2;
  p.count_include_pad = true;
  Buf<float> y({1, 1, 3});
  ASSERT_TRUE(AvgPool(p, x.view(), y.view()).ok());
  EXPECT_EQ(y.data, (std::vector<float>{1.5f, 3.5f, 5}));
}

TEST(AvgPool, ThreeD) {
  Buf<float> x({1, 2, 2, 2, 2});
  for (int i = 0; i < 16; ++i) x.data[i] = static_cast<float>(i);
  PoolParams p;
  p.spatial = 3;
  p.kernel[0] = p.kernel[1] = p.kernel[2] = 2;
  Buf<float> y({1, 2, 1, 1, 1});
  ASSERT_TRUE(AvgPool(p, x.view(), y.view()).ok());
  EXPECT_EQ(y.data, (std::vector<float>{3.5f, 11.5f}));
  p.dilations[0] = 2;
  EXPECT_FALSE(AvgPool(p, x.view(), y.view()).ok());
}

TEST(AvgPool, HugeKernelCountsWithoutWalking) {
  // 2^31 x 2^31 window, 4 cells inside; with padding counted every cell within the pads is a
  // divisor cell: 2^31 x 2^31 = 2^62 of them.
  Buf<float> x({1, 1, 2, 2}, {1, 4, 2, 3});
  PoolParams p;
  p.kernel[0] = p.kernel[1] = int64_t{1} << 31;
  p.strides[0] = p.strides[1] = 4;
  p.pads_begin[0] = p.pads_begin[1] = 1;
  p.pads_end[0] = p.pads_end[1] = int64_t{1} << 31;
  Buf<float> y({1, 1, 1, 1});
  ASSERT_TRUE(AvgPool(p, x.view(), y.view()).ok());
  EXPECT_EQ(y.data[0], 2.5f);
  p.count_include_pad = true;
  ASSERT_TRUE(AvgPool(p, x.view(), y.view()).ok());
  EXPECT_EQ(y.data[0], 10.0f / 4611686018427387904.0f);
}

}  // namespace
}  // namespace loom::kernels
