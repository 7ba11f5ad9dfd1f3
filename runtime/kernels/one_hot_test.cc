// OneHot: inner and outer axes, negative and out-of-range indices.
#include <gtest/gtest.h>

#include <vector>

#include "runtime/kernels/kernel_test_util.h"
#include "runtime/kernels/kernels_index.h"

namespace loom::kernels {
namespace {

using testing::Buf;

TEST(OneHot, Axes) {
  Buf<int64_t> idx({3}, {0, -1, 5});
  Buf<float> values({2}, {0, 3});
  Buf<float> last({3, 3});
  ASSERT_TRUE(OneHot(idx.view(), values.view(), 1, last.view()).ok());
  EXPECT_EQ(last.data, (std::vector<float>{3, 0, 0, 0, 0, 3, 0, 0, 0}));
  Buf<float> first({3, 3});
  ASSERT_TRUE(OneHot(idx.view(), values.view(), 0, first.view()).ok());
  EXPECT_EQ(first.data, (std::vector<float>{3, 0, 0, 0, 0, 0, 0, 3, 0}));
  Buf<float> fidx({2}, {1.9f, -3});
  Buf<float> y({2, 3});
  ASSERT_TRUE(OneHot(fidx.view(), values.view(), 1, y.view()).ok());
  EXPECT_EQ(y.data, (std::vector<float>{0, 3, 0, 3, 0, 0}));
}

}  // namespace
}  // namespace loom::kernels
