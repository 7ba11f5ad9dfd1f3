// Slice: positive and negative steps, a start past the end refused.
#include <gtest/gtest.h>

#include <vector>

#include "runtime/kernels/kernel_test_util.h"
#include "runtime/kernels/kernels_index.h"

namespace loom::kernels {
namespace {

using testing::Buf;

TEST(Slice, StepsForwardAndBackward) {
  Buf<int32_t> x({3, 4}, {0, 1, 2, 3, 10, 11, 12, 13, 20, 21, 22, 23});
  Buf<int32_t> y({2, 2});
  const int64_t starts[] = {2, 1}, steps[] = {-2, 2};
  ASSERT_TRUE(Slice(x.view(), starts, steps, y.view()).ok());
  EXPECT_EQ(y.data, (std::vector<int32_t>{21, 23, 1, 3}));
}

TEST(Slice, EmptyOutputAndOutOfRange) {
  Buf<float> x({4}, {1, 2, 3, 4});
  Buf<float> empty({0});
  const int64_t past[] = {9}, one[] = {1};
  EXPECT_TRUE(Slice(x.view(), past, one, empty.view()).ok());
  Buf<float> y({2});
  const int64_t three[] = {3};
  const Status s = Slice(x.view(), three, one, y.view());
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("reads [3 .. 4]"), std::string::npos) << s.message();
  const int64_t zero[] = {0};
  EXPECT_FALSE(Slice(x.view(), zero, zero, y.view()).ok());
}

}  // namespace
}  // namespace loom::kernels
