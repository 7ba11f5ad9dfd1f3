// Expand: a column broadcast to a matrix with an added leading dim.
#include <gtest/gtest.h>

#include <vector>

#include "runtime/kernels/kernel_test_util.h"
#include "runtime/kernels/kernels_index.h"

namespace loom::kernels {
namespace {

using testing::Buf;

TEST(Expand, Broadcasts) {
  Buf<int64_t> x({3, 1}, {1, 2, 3});
  Buf<int64_t> y({2, 3, 2});
  ASSERT_TRUE(Expand(x.view(), y.view()).ok());
  EXPECT_EQ(y.data, (std::vector<int64_t>{1, 1, 2, 2, 3, 3, 1, 1, 2, 2, 3, 3}));
  Buf<int64_t> bad({2, 2});
  EXPECT_FALSE(Expand(x.view(), bad.view()).ok());
}

}  // namespace
}  // namespace loom::kernels
