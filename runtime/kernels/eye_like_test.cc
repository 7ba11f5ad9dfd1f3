// EyeLike: shifted diagonals in float and int, non-2-D refused.
#include <gtest/gtest.h>

#include <vector>

#include "runtime/kernels/kernel_test_util.h"
#include "runtime/kernels/kernels_index.h"

namespace loom::kernels {
namespace {

using testing::Buf;

TEST(EyeLike, Diagonals) {
  Buf<float> y({3, 4});
  ASSERT_TRUE(EyeLike(1, y.view()).ok());
  EXPECT_EQ(y.data, (std::vector<float>{0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1}));
  Buf<int64_t> iy({3, 2});
  ASSERT_TRUE(EyeLike(-1, iy.view()).ok());
  EXPECT_EQ(iy.data, (std::vector<int64_t>{0, 0, 1, 0, 0, 1}));
  Buf<float> v({3});
  EXPECT_FALSE(EyeLike(0, v.view()).ok());
}

}  // namespace
}  // namespace loom::kernels
