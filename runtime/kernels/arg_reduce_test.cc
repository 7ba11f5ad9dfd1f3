// ArgMax / ArgMin: first and last ties, an inner axis, NaN, integer inputs, shape checks.
#include <gtest/gtest.h>

#include <cmath>

#include "runtime/kernels/kernel_test_util.h"
#include "runtime/kernels/kernels_reduce.h"

namespace loom::kernels {
namespace {

using testing::Buf;

TEST(ArgReduce, TiesFirstOrLast) {
  Buf<float> x({2, 3}, {2, 7, 7, -1, -5, -5});
  Buf<int64_t> y({2, 1});
  ASSERT_TRUE(ArgReduce(true, x.view(), 1, false, y.view()).ok());
  EXPECT_EQ(y.data, (std::vector<int64_t>{1, 0}));
  ASSERT_TRUE(ArgReduce(true, x.view(), 1, true, y.view()).ok());
  EXPECT_EQ(y.data, (std::vector<int64_t>{2, 0}));
  ASSERT_TRUE(ArgReduce(false, x.view(), 1, true, y.view()).ok());
  EXPECT_EQ(y.data, (std::vector<int64_t>{0, 2}));
}

TEST(ArgReduce, OuterAxisNanAndIntegers) {
  Buf<float> x({2, 2}, {1, 9, 3, 4});
  Buf<int64_t> y({2});
  ASSERT_TRUE(ArgReduce(true, x.view(), 0, false, y.view()).ok());
  EXPECT_EQ(y.data, (std::vector<int64_t>{1, 0}));
  x.data[0] = std::nanf("");
  ASSERT_TRUE(ArgReduce(false, x.view(), 0, false, y.view()).ok());
  EXPECT_EQ(y.data, (std::vector<int64_t>{0, 1}));
  Buf<int32_t> xi({3}, {4, -2, 8});
  Buf<int64_t> yi({1});
  ASSERT_TRUE(ArgReduce(false, xi.view(), 0, false, yi.view()).ok());
  EXPECT_EQ(yi.data[0], 1);
  Buf<float> wrong({3});
  EXPECT_FALSE(ArgReduce(true, x.view(), 0, false, wrong.view()).ok());
  EXPECT_FALSE(ArgReduce(true, x.view(), 2, false, y.view()).ok());
}

}  // namespace
}  // namespace loom::kernels
