// Trilu: upper and lower with positive and negative k over a batch of matrices.
#include <gtest/gtest.h>

#include <vector>

#include "runtime/kernels/kernel_test_util.h"
#include "runtime/kernels/kernels_index.h"

namespace loom::kernels {
namespace {

using testing::Buf;

TEST(Trilu, UpperLower) {
  Buf<int32_t> x({2, 2, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12});
  Buf<int32_t> y({2, 2, 3});
  ASSERT_TRUE(Trilu(x.view(), 0, true, y.view()).ok());
  EXPECT_EQ(y.data, (std::vector<int32_t>{1, 2, 3, 0, 5, 6, 7, 8, 9, 0, 11, 12}));
  ASSERT_TRUE(Trilu(x.view(), -1, false, y.view()).ok());
  EXPECT_EQ(y.data, (std::vector<int32_t>{0, 0, 0, 4, 0, 0, 0, 0, 0, 10, 0, 0}));
  ASSERT_TRUE(Trilu(x.view(), 1, true, y.view()).ok());
  EXPECT_EQ(y.data, (std::vector<int32_t>{0, 2, 3, 0, 0, 6, 0, 8, 9, 0, 0, 12}));
  Buf<int32_t> v({3});
  EXPECT_FALSE(Trilu(v.view(), 0, true, v.view()).ok());
}

}  // namespace
}  // namespace loom::kernels
