// GatherND: whole rows, single elements and batch_dims = 1.
#include <gtest/gtest.h>

#include <vector>

#include "runtime/kernels/kernel_test_util.h"
#include "runtime/kernels/kernels_index.h"

namespace loom::kernels {
namespace {

using testing::Buf;

TEST(GatherND, RowsAndElements) {
  Buf<int32_t> data({2, 2}, {0, 1, 2, 3});
  Buf<int64_t> rows({2, 1}, {1, 0});
  Buf<int32_t> y({2, 2});
  ASSERT_TRUE(GatherND(data.view(), rows.view(), 0, y.view()).ok());
  EXPECT_EQ(y.data, (std::vector<int32_t>{2, 3, 0, 1}));
  Buf<int64_t> cells({2, 2}, {0, 0, 1, -1});
  Buf<int32_t> e({2});
  ASSERT_TRUE(GatherND(data.view(), cells.view(), 0, e.view()).ok());
  EXPECT_EQ(e.data, (std::vector<int32_t>{0, 3}));
}

TEST(GatherND, BatchDims) {
  Buf<int32_t> data({2, 2, 2}, {0, 1, 2, 3, 4, 5, 6, 7});
  Buf<int64_t> idx({2, 1}, {1, 0});
  Buf<int32_t> y({2, 2});
  ASSERT_TRUE(GatherND(data.view(), idx.view(), 1, y.view()).ok());
  EXPECT_EQ(y.data, (std::vector<int32_t>{2, 3, 4, 5}));
  idx.data[0] = 2;
  EXPECT_FALSE(GatherND(data.view(), idx.view(), 1, y.view()).ok());
}

}  // namespace
}  // namespace loom::kernels
