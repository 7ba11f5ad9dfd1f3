// ReverseSequence: time-major and batch-major, lengths checked.
#include <gtest/gtest.h>

#include <vector>

#include "runtime/kernels/kernel_test_util.h"
#include "runtime/kernels/kernels_index.h"

namespace loom::kernels {
namespace {

using testing::Buf;

TEST(ReverseSequence, BatchAndTimeAxes) {
  // [time 3, batch 2]
  Buf<int32_t> x({3, 2}, {1, 10, 2, 20, 3, 30});
  Buf<int64_t> lens({2}, {3, 2});
  Buf<int32_t> y({3, 2});
  ASSERT_TRUE(ReverseSequence(x.view(), lens.view(), 1, 0, y.view()).ok());
  EXPECT_EQ(y.data, (std::vector<int32_t>{3, 20, 2, 10, 1, 30}));
  // [batch 2, time 3]
  Buf<int32_t> xb({2, 3}, {1, 2, 3, 4, 5, 6});
  Buf<int32_t> yb({2, 3});
  ASSERT_TRUE(ReverseSequence(xb.view(), lens.view(), 0, 1, yb.view()).ok());
  EXPECT_EQ(yb.data, (std::vector<int32_t>{3, 2, 1, 5, 4, 6}));
  lens.data[1] = 4;
  EXPECT_FALSE(ReverseSequence(xb.view(), lens.view(), 0, 1, yb.view()).ok());
}

}  // namespace
}  // namespace loom::kernels
