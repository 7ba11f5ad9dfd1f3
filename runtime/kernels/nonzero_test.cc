// NonZero: coordinates in row-major order; y sized by the count.
#include <gtest/gtest.h>

#include <vector>

#include "runtime/kernels/kernel_test_util.h"
#include "runtime/kernels/kernels_index.h"

namespace loom::kernels {
namespace {

using testing::Buf;

TEST(NonZero, Coordinates) {
  Buf<float> x({2, 2}, {1, 0, -0.0f, 4});
  int64_t count = 0;
  ASSERT_TRUE(NonZeroCount(x.view(), &count).ok());
  ASSERT_EQ(count, 2);
  Buf<int64_t> y({2, 2});
  ASSERT_TRUE(NonZero(x.view(), y.view()).ok());
  EXPECT_EQ(y.data, (std::vector<int64_t>{0, 1, 0, 1}));
  Buf<int64_t> wrong({2, 3});
  EXPECT_FALSE(NonZero(x.view(), wrong.view()).ok());
}

}  // namespace
}  // namespace loom::kernels
