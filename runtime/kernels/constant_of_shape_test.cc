// ConstantOfShape: fills every element; the value's type must match.
#include <gtest/gtest.h>

#include <vector>

#include "runtime/kernels/kernel_test_util.h"
#include "runtime/kernels/kernels_index.h"

namespace loom::kernels {
namespace {

using testing::Buf;

TEST(ConstantOfShape, Fills) {
  Buf<int64_t> v({1}, {7});
  Buf<int64_t> y({2, 3});
  ASSERT_TRUE(ConstantOfShape(v.view(), y.view()).ok());
  EXPECT_EQ(y.data, (std::vector<int64_t>(6, 7)));
  Buf<float> f({2});
  EXPECT_FALSE(ConstantOfShape(v.view(), f.view()).ok());
}

}  // namespace
}  // namespace loom::kernels
