// Copy: a reshape moves bytes unchanged; mismatched sizes or types are refused.
#include <gtest/gtest.h>

#include "runtime/kernels/kernel_test_util.h"
#include "runtime/kernels/kernels.h"

namespace loom::kernels {
namespace {

using testing::Buf;

TEST(Copy, ReshapeKeepsOrder) {
  Buf<int32_t> x({2, 3}, {1, 2, 3, 4, 5, 6});
  Buf<int32_t> y({3, 2});
  ASSERT_TRUE(Copy(x.view(), y.view()).ok());
  EXPECT_EQ(y.data, x.data);
  Buf<int32_t> small({5});
  EXPECT_FALSE(Copy(x.view(), small.view()).ok());
  Buf<float> other({6});
  EXPECT_FALSE(Copy(x.view(), other.view()).ok());
}

}  // namespace
}  // namespace loom::kernels
