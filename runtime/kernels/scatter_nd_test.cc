// ScatterND: overwrite, add and multiply with duplicate indices.
#include <gtest/gtest.h>

#include <vector>

#include "runtime/kernels/kernel_test_util.h"
#include "runtime/kernels/kernels_index.h"

namespace loom::kernels {
namespace {

using testing::Buf;

TEST(ScatterND, Reductions) {
  Buf<float> data({4, 2}, {1, 1, 2, 2, 3, 3, 4, 4});
  Buf<int64_t> idx({3, 1}, {1, -1, 1});
  Buf<float> upd({3, 2}, {10, 20, 30, 40, 50, 60});
  Buf<float> y({4, 2});
  ASSERT_TRUE(
      ScatterND(data.view(), idx.view(), upd.view(), ScatterReduction::kNone, y.view()).ok());
  EXPECT_EQ(y.data, (std::vector<float>{1, 1, 50, 60, 3, 3, 30, 40}));
  ASSERT_TRUE(
      ScatterND(data.view(), idx.view(), upd.view(), ScatterReduction::kAdd, y.view()).ok());
  EXPECT_EQ(y.data, (std::vector<float>{1, 1, 62, 82, 3, 3, 34, 44}));
  ASSERT_TRUE(
      ScatterND(data.view(), idx.view(), upd.view(), ScatterReduction::kMul, y.view()).ok());
  EXPECT_EQ(y.data, (std::vector<float>{1, 1, 1000, 2400, 3, 3, 120, 160}));
  idx.data[2] = 4;
  EXPECT_FALSE(
      ScatterND(data.view(), idx.view(), upd.view(), ScatterReduction::kNone, y.view()).ok());
}

}  // namespace
}  // namespace loom::kernels
