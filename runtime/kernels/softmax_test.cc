// Softmax: rows sum to one along any axis, large inputs do not overflow, and the values match
// exp(x) / sum(exp(x)).
#include <gtest/gtest.h>

#include <cmath>

#include "runtime/kernels/kernel_test_util.h"
#include "runtime/kernels/kernels.h"

namespace loom::kernels {
namespace {

using testing::Buf;
using testing::RandomFloats;

TEST(Softmax, MiddleAxis) {
  Buf<float> x({2, 3, 4}, RandomFloats(24, 1, -2, 2));
  Buf<float> y(x.shape);
  ASSERT_TRUE(Softmax(x.view(), 1, y.view()).ok());
  for (int a = 0; a < 2; ++a)
    for (int c = 0; c < 4; ++c) {
      float denom = 0;
      for (int b = 0; b < 3; ++b) denom += std::exp(x.data[(a * 3 + b) * 4 + c]);
      for (int b = 0; b < 3; ++b) {
        const int i = (a * 3 + b) * 4 + c;
        EXPECT_NEAR(y.data[i], std::exp(x.data[i]) / denom, 1e-6f);
      }
    }
}

TEST(Softmax, LargeNumbersStayFinite) {
  Buf<float> x({1, 4}, {10000, 10001, 10002, 10003});
  Buf<float> y({1, 4});
  ASSERT_TRUE(Softmax(x.view(), 1, y.view()).ok());
  EXPECT_NEAR(y.data[0], 0.032058604f, 1e-6f);
  EXPECT_NEAR(y.data[3], 0.6439142f, 1e-6f);
  EXPECT_FALSE(Softmax(x.view(), 2, y.view()).ok());
}

}  // namespace
}  // namespace loom::kernels
