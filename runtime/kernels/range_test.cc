// Range: float and integer steps, negative delta.
#include <gtest/gtest.h>

#include <vector>

#include "runtime/kernels/kernel_test_util.h"
#include "runtime/kernels/kernels_index.h"

namespace loom::kernels {
namespace {

using testing::Buf;

TEST(Range, Types) {
  Buf<float> s({}, {1}), d({}, {0.5f});
  Buf<float> y({3});
  ASSERT_TRUE(Range(s.view(), d.view(), y.view()).ok());
  EXPECT_EQ(y.data, (std::vector<float>{1, 1.5f, 2}));
  Buf<int32_t> is({}, {10}), id({}, {-3});
  Buf<int32_t> iy({4});
  ASSERT_TRUE(Range(is.view(), id.view(), iy.view()).ok());
  EXPECT_EQ(iy.data, (std::vector<int32_t>{10, 7, 4, 1}));
  EXPECT_FALSE(Range(s.view(), d.view(), iy.view()).ok());
}

}  // namespace
}  // namespace loom::kernels
