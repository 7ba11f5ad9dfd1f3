// GlobalMaxPool: per-plane maxima, NaN propagation and shape checks.
#include <gtest/gtest.h>

#include <cmath>

#include "runtime/kernels/kernel_test_util.h"
#include "runtime/kernels/kernels_vision.h"

namespace loom::kernels {
namespace {

using testing::Buf;

TEST(GlobalMaxPool, PlaneMaxima) {
  Buf<float> x({1, 2, 2, 2}, {1, 5, -3, 2, -1, -2, -8, -0.5f});
  Buf<float> y({1, 2, 1, 1});
  ASSERT_TRUE(GlobalMaxPool(x.view(), y.view()).ok());
  EXPECT_EQ(y.data, (std::vector<float>{5, -0.5f}));
  x.data[1] = std::nanf("");
  ASSERT_TRUE(GlobalMaxPool(x.view(), y.view()).ok());
  EXPECT_TRUE(std::isnan(y.data[0]));
  Buf<float> bad({1, 2, 2, 1});
  EXPECT_FALSE(GlobalMaxPool(x.view(), bad.view()).ok());
}

}  // namespace
}  // namespace loom::kernels
