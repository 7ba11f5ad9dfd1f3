// Hardmax: one-hot at the first maximum of each line, on the last and an inner axis.
#include <gtest/gtest.h>

#include "runtime/kernels/kernel_test_util.h"
#include "runtime/kernels/kernels_reduce.h"

namespace loom::kernels {
namespace {

using testing::Buf;

TEST(Hardmax, FirstMaximumWins) {
  Buf<float> x({2, 3}, {3, 1, 3, -1, 0, -2});
  Buf<float> y({2, 3});
  ASSERT_TRUE(Hardmax(x.view(), 1, y.view()).ok());
  EXPECT_EQ(y.data, (std::vector<float>{1, 0, 0, 0, 1, 0}));
  ASSERT_TRUE(Hardmax(x.view(), 0, y.view()).ok());
  EXPECT_EQ(y.data, (std::vector<float>{1, 1, 1, 0, 0, 0}));
  Buf<float> other({3, 2});
  EXPECT_FALSE(Hardmax(x.view(), 1, other.view()).ok());
}

}  // namespace
}  // namespace loom::kernels
