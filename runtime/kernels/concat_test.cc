// Concat: inner and outer axes, an empty input, and mismatches.
#include <gtest/gtest.h>

#include "runtime/kernels/kernel_test_util.h"
#include "runtime/kernels/kernels.h"

namespace loom::kernels {
namespace {

using testing::Buf;

TEST(Concat, Axis1And0) {
  Buf<float> a({2, 2}, {1, 2, 3, 4});
  Buf<float> b({2, 1}, {5, 6});
  Buf<float> e({2, 0});
  TensorView av = a.view(), bv = b.view(), ev = e.view();
  const TensorView* ins[3] = {&av, &ev, &bv};
  Buf<float> y({2, 3});
  ASSERT_TRUE(Concat(ins, 3, 1, y.view()).ok());
  EXPECT_EQ(y.data, (std::vector<float>{1, 2, 5, 3, 4, 6}));
  Buf<float> c({1, 2}, {7, 8});
  TensorView cv = c.view();
  const TensorView* rows[2] = {&av, &cv};
  Buf<float> y0({3, 2});
  ASSERT_TRUE(Concat(rows, 2, 0, y0.view()).ok());
  EXPECT_EQ(y0.data, (std::vector<float>{1, 2, 3, 4, 7, 8}));
  EXPECT_FALSE(Concat(rows, 2, 1, y0.view()).ok());
}

TEST(Concat, AxisSizesThatWrapAreRefused) {
  // Shapes only (no elements): the axis sizes must add up to y's without wrapping.
  TensorView a, y;
  const int64_t in[2] = {0, INT64_MAX};
  const int64_t out[2] = {0, INT64_MAX - 2};
  ASSERT_TRUE(MakeView(DType::kF32, nullptr, in, 2, &a).ok());
  ASSERT_TRUE(MakeView(DType::kF32, nullptr, out, 2, &y).ok());
  const TensorView* inputs[3] = {&a, &a, &a};  // 3 * INT64_MAX wraps to INT64_MAX - 2
  EXPECT_FALSE(Concat(inputs, 3, 1, y).ok());
}

}  // namespace
}  // namespace loom::kernels
