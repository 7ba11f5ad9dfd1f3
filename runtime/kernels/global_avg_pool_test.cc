// GlobalAveragePool: per-plane means over 2-D and 1-D spatial extents, and shape checks.
#include <gtest/gtest.h>

#include "runtime/kernels/kernel_test_util.h"
#include "runtime/kernels/kernels.h"

namespace loom::kernels {
namespace {

using testing::Buf;

TEST(GlobalAvgPool, PlaneMeans) {
  Buf<float> x({1, 2, 2, 3}, {1, 2, 3, 4, 5, 6, -1, -1, -1, 1, 1, 7});
  Buf<float> y({1, 2, 1, 1});
  ASSERT_TRUE(GlobalAvgPool(x.view(), y.view()).ok());
  EXPECT_EQ(y.data, (std::vector<float>{3.5f, 1.0f}));
  Buf<float> x1({2, 1, 4}, {1, 1, 1, 5, 0, 0, 0, 4});
  Buf<float> y1({2, 1, 1});
  ASSERT_TRUE(GlobalAvgPool(x1.view(), y1.view()).ok());
  EXPECT_EQ(y1.data, (std::vector<float>{2, 1}));
  Buf<float> bad({1, 2, 2, 1});
  EXPECT_FALSE(GlobalAvgPool(x.view(), bad.view()).ok());
}

}  // namespace
}  // namespace loom::kernels
