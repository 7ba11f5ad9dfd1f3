// Hann, Hamming and Blackman windows at known points, periodic and symmetric, f32 and f64.
#include <gtest/gtest.h>

#include <vector>

#include "runtime/kernels/kernel_test_util.h"
#include "runtime/kernels/kernels_seq.h"

namespace loom::kernels {
namespace {

using testing::Buf;

TEST(Window, KnownValues) {
  Buf<float> hann({4});
  ASSERT_TRUE(Window(WindowKind::kHann, true, hann.view()).ok());
  const std::vector<float> want = {0.0f, 0.5f, 1.0f, 0.5f};
  for (int i = 0; i < 4; ++i) EXPECT_NEAR(hann.data[i], want[i], 1e-7);
  Buf<double> hamming({5});
  ASSERT_TRUE(Window(WindowKind::kHamming, false, hamming.view()).ok());
  EXPECT_NEAR(hamming.data[0], 25.0 / 46.0 - 21.0 / 46.0, 1e-12);  // symmetric: both ends equal
  EXPECT_NEAR(hamming.data[4], hamming.data[0], 1e-12);
  EXPECT_NEAR(hamming.data[2], 1.0, 1e-12);
  Buf<float> blackman({3});
  ASSERT_TRUE(Window(WindowKind::kBlackman, false, blackman.view()).ok());
  EXPECT_NEAR(blackman.data[0], 0.0f, 1e-7);
  EXPECT_NEAR(blackman.data[1], 1.0f, 1e-6);
  Buf<int32_t> bad({3});
  EXPECT_FALSE(Window(WindowKind::kHann, true, bad.view()).ok());
}

}  // namespace
}  // namespace loom::kernels
