// Shape and Size: dims and element count from the view alone.
#include <gtest/gtest.h>

#include <vector>

#include "runtime/kernels/kernel_test_util.h"
#include "runtime/kernels/kernels_index.h"

namespace loom::kernels {
namespace {

using testing::Buf;

TEST(ShapeOf, StartAndLength) {
  TensorView x;
  const int64_t dims[] = {2, 3, 4};
  ASSERT_TRUE(MakeView(DType::kF32, nullptr, dims, 3, &x).ok());
  Buf<int64_t> y({2});
  ASSERT_TRUE(ShapeOf(x, 1, y.view()).ok());
  EXPECT_EQ(y.data, (std::vector<int64_t>{3, 4}));
  EXPECT_FALSE(ShapeOf(x, 2, y.view()).ok());
  Buf<int64_t> n(std::vector<int64_t>{});
  ASSERT_TRUE(SizeOf(x, n.view()).ok());
  EXPECT_EQ(n.data[0], 24);
}

}  // namespace
}  // namespace loom::kernels
