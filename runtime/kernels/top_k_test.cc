// TopK: largest and smallest, ties by index, an outer axis, NaN, k beyond the axis refused.
#include <gtest/gtest.h>

#include <cmath>

#include "runtime/kernels/kernel_test_util.h"
#include "runtime/kernels/kernels_reduce.h"

namespace loom::kernels {
namespace {

using testing::Buf;

TEST(TopK, LargestSmallestAndTies) {
  Buf<float> x({1, 5}, {3, 9, 3, -1, 9});
  Buf<float> v({1, 3});
  Buf<int64_t> i({1, 3});
  ASSERT_TRUE(TopK(x.view(), 1, true, v.view(), i.view()).ok());
  EXPECT_EQ(v.data, (std::vector<float>{9, 9, 3}));
  EXPECT_EQ(i.data, (std::vector<int64_t>{1, 4, 0}));
  ASSERT_TRUE(TopK(x.view(), 1, false, v.view(), i.view()).ok());
  EXPECT_EQ(v.data, (std::vector<float>{-1, 3, 3}));
  EXPECT_EQ(i.data, (std::vector<int64_t>{3, 0, 2}));
}

TEST(TopK, OuterAxisNanAndChecks) {
  Buf<float> x({3, 2}, {1, 6, 5, std::nanf(""), 2, 4});
  Buf<float> v({2, 2});
  Buf<int64_t> i({2, 2});
  ASSERT_TRUE(TopK(x.view(), 0, true, v.view(), i.view()).ok());
  EXPECT_EQ(i.data, (std::vector<int64_t>{1, 1, 2, 0}));
  EXPECT_EQ(v.data[0], 5);
  EXPECT_TRUE(std::isnan(v.data[1]));
  Buf<float> big({4, 2});
  Buf<int64_t> bigi({4, 2});
  EXPECT_FALSE(TopK(x.view(), 0, true, big.view(), bigi.view()).ok());
}

}  // namespace
}  // namespace loom::kernels
