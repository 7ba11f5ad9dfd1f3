// CumSum: inclusive/exclusive, forward/reverse, an outer axis, f64 and i32.
#include <gtest/gtest.h>

#include "runtime/kernels/kernel_test_util.h"
#include "runtime/kernels/kernels_reduce.h"

namespace loom::kernels {
namespace {

using testing::Buf;

TEST(CumSum, FourModes) {
  Buf<double> x({4}, {1, 2, 3, 4});
  Buf<double> y({4});
  ASSERT_TRUE(CumSum(x.view(), 0, false, false, y.view()).ok());
  EXPECT_EQ(y.data, (std::vector<double>{1, 3, 6, 10}));
  ASSERT_TRUE(CumSum(x.view(), 0, true, false, y.view()).ok());
  EXPECT_EQ(y.data, (std::vector<double>{0, 1, 3, 6}));
  ASSERT_TRUE(CumSum(x.view(), 0, false, true, y.view()).ok());
  EXPECT_EQ(y.data, (std::vector<double>{10, 9, 7, 4}));
  ASSERT_TRUE(CumSum(x.view(), 0, true, true, y.view()).ok());
  EXPECT_EQ(y.data, (std::vector<double>{9, 7, 4, 0}));
}

TEST(CumSum, OuterAxisAndIntegers) {
  Buf<int32_t> x({2, 3}, {1, 2, 3, 4, 5, 6});
  Buf<int32_t> y({2, 3});
  ASSERT_TRUE(CumSum(x.view(), 0, false, false, y.view()).ok());
  EXPECT_EQ(y.data, (std::vector<int32_t>{1, 2, 3, 5, 7, 9}));
  Buf<float> wrong({2, 3});
  EXPECT_FALSE(CumSum(x.view(), 0, false, false, wrong.view()).ok());
  EXPECT_FALSE(CumSum(x.view(), 2, false, false, y.view()).ok());
}

}  // namespace
}  // namespace loom::kernels
