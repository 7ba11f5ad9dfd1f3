// Det: 2x2 and 3x3 determinants (one needing a row swap), a singular matrix, a batch, refusals.
#include <gtest/gtest.h>

#include <vector>

#include "runtime/kernels/kernel_test_util.h"
#include "runtime/kernels/kernels_seq.h"

namespace loom::kernels {
namespace {

using testing::Buf;

TEST(Det, BatchOfMatrices) {
  // [[0, 1], [2, 3]] needs a pivot swap: det -2. [[1, 2], [2, 4]] is singular. [[2, 0], [0, 3]].
  Buf<float> x({3, 2, 2}, {0, 1, 2, 3, 1, 2, 2, 4, 2, 0, 0, 3});
  Buf<float> y({3});
  std::vector<double> scratch(4);
  ASSERT_TRUE(Det(x.view(), y.view(), scratch.data()).ok());
  EXPECT_NEAR(y.data[0], -2.0f, 1e-6);
  EXPECT_NEAR(y.data[1], 0.0f, 1e-6);
  EXPECT_NEAR(y.data[2], 6.0f, 1e-6);
}

TEST(Det, ThreeByThree) {
  Buf<float> x({3, 3}, {2, -3, 1, 2, 0, -1, 1, 4, 5});
  Buf<float> y({});
  std::vector<double> scratch(9);
  ASSERT_TRUE(Det(x.view(), y.view(), scratch.data()).ok());
  EXPECT_NEAR(y.data[0], 49.0f, 1e-5);
  Buf<float> rect({2, 3});
  EXPECT_FALSE(Det(rect.view(), y.view(), scratch.data()).ok());
}

}  // namespace
}  // namespace loom::kernels
