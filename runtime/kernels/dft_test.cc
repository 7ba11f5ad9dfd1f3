// DFT: an impulse and a constant, a complex round trip through the inverse, onesided bins, a
// transform along a middle axis with zero padding, and shape refusals.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "runtime/kernels/kernel_test_util.h"
#include "runtime/kernels/kernels_seq.h"

namespace loom::kernels {
namespace {

using testing::Buf;

TEST(Dft, ImpulseAndConstant) {
  Buf<float> x({2, 4, 1}, {1, 0, 0, 0, 1, 1, 1, 1});
  Buf<float> y({2, 4, 2});
  ASSERT_TRUE(Dft(x.view(), 1, 4, false, false, y.view()).ok());
  for (int k = 0; k < 4; ++k) {
    EXPECT_NEAR(y.data[2 * k], 1.0f, 1e-6);  // impulse: flat spectrum
    EXPECT_NEAR(y.data[2 * k + 1], 0.0f, 1e-6);
    EXPECT_NEAR(y.data[8 + 2 * k], k == 0 ? 4.0f : 0.0f, 1e-6);  // constant: DC only
    EXPECT_NEAR(y.data[8 + 2 * k + 1], 0.0f, 1e-6);
  }
}

TEST(Dft, InverseRoundTrip) {
  Buf<float> x({1, 5, 2}, testing::RandomFloats(10, 3));
  Buf<float> f({1, 5, 2}), back({1, 5, 2});
  ASSERT_TRUE(Dft(x.view(), 1, 5, false, false, f.view()).ok());
  ASSERT_TRUE(Dft(f.view(), 1, 5, true, false, back.view()).ok());
  for (size_t i = 0; i < x.data.size(); ++i) EXPECT_NEAR(back.data[i], x.data[i], 1e-5);
}

TEST(Dft, OnesidedMiddleAxisPadded) {
  // x [2 signal, 3 columns, 1]: transform dim 0 padded to 4 points, onesided -> 3 bins.
  Buf<float> x({2, 3, 1}, {1, 2, 3, 4, 5, 6});
  Buf<float> y({3, 3, 2});
  ASSERT_TRUE(Dft(x.view(), 0, 4, false, true, y.view()).ok());
  for (int col = 0; col < 3; ++col) {
    const float a = x.data[col], b = x.data[3 + col];
    EXPECT_NEAR(y.data[col * 2], a + b, 1e-5);    // k = 0
    EXPECT_NEAR(y.data[(3 + col) * 2], a, 1e-5);  // k = 1: a + b e^{-i pi/2}
    EXPECT_NEAR(y.data[(3 + col) * 2 + 1], -b, 1e-5);
    EXPECT_NEAR(y.data[(6 + col) * 2], a - b, 1e-5);  // k = 2
  }
  Buf<float> bad({4, 3, 2});
  EXPECT_FALSE(Dft(x.view(), 0, 4, false, true, bad.view()).ok());
  EXPECT_FALSE(Dft(x.view(), 2, 4, false, false, y.view()).ok());  // the complex dim
}

}  // namespace
}  // namespace loom::kernels
