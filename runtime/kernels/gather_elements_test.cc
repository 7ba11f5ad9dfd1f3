// GatherElements: the ONNX example along axis 1, negative indices, bounds.
#include <gtest/gtest.h>

#include <vector>

#include "runtime/kernels/kernel_test_util.h"
#include "runtime/kernels/kernels_index.h"

namespace loom::kernels {
namespace {

using testing::Buf;

TEST(GatherElements, AlongAxis) {
  Buf<float> data({2, 2}, {1, 2, 3, 4});
  Buf<int64_t> idx({2, 2}, {0, 0, 1, 0});
  Buf<float> y({2, 2});
  ASSERT_TRUE(GatherElements(data.view(), idx.view(), 1, y.view()).ok());
  EXPECT_EQ(y.data, (std::vector<float>{1, 1, 4, 3}));
  idx.data = {-1, -2, 0, 0};
  ASSERT_TRUE(GatherElements(data.view(), idx.view(), 0, y.view()).ok());
  EXPECT_EQ(y.data, (std::vector<float>{3, 2, 1, 2}));
  idx.data[3] = 2;
  EXPECT_FALSE(GatherElements(data.view(), idx.view(), 0, y.view()).ok());
}

}  // namespace
}  // namespace loom::kernels
