// LogSoftmax: agrees with log(softmax), stays finite for large inputs, inner axes.
#include <gtest/gtest.h>

#include <cmath>

#include "runtime/kernels/kernel_test_util.h"
#include "runtime/kernels/kernels.h"
#include "runtime/kernels/kernels_reduce.h"

namespace loom::kernels {
namespace {

using testing::Buf;

TEST(LogSoftmax, MatchesLogOfSoftmax) {
  Buf<float> x({2, 3, 2}, testing::RandomFloats(12, 7, -3, 3));
  Buf<float> sm({2, 3, 2}), y({2, 3, 2});
  for (int axis = 0; axis < 3; ++axis) {
    ASSERT_TRUE(Softmax(x.view(), axis, sm.view()).ok());
    ASSERT_TRUE(LogSoftmax(x.view(), axis, y.view()).ok());
    for (size_t i = 0; i < y.data.size(); ++i) EXPECT_NEAR(y.data[i], std::log(sm.data[i]), 1e-5f);
  }
}

TEST(LogSoftmax, LargeNumbersStayFinite) {
  Buf<float> x({1, 2}, {10000, 10001});
  Buf<float> y({1, 2});
  ASSERT_TRUE(LogSoftmax(x.view(), 1, y.view()).ok());
  EXPECT_NEAR(y.data[1], -std::log1p(std::exp(-1.0f)), 1e-5f);
  EXPECT_FALSE(LogSoftmax(x.view(), 2, y.view()).ok());
}

}  // namespace
}  // namespace loom::kernels
