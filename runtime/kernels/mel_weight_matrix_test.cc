// MelWeightMatrix: triangular filters that peak at 1 and rise in order, and the Nyquist refusal.
#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "runtime/kernels/kernel_test_util.h"
#include "runtime/kernels/kernels_seq.h"

namespace loom::kernels {
namespace {

using testing::Buf;

TEST(MelWeightMatrix, TrianglesPeakInOrder) {
  const int64_t dft = 64, mels = 6;
  Buf<float> y({dft / 2 + 1, mels});
  ASSERT_TRUE(MelWeightMatrix(dft, 16000, 0.0, 8000.0, y.view()).ok());
  int64_t last_peak = -1;
  for (int64_t m = 0; m < mels; ++m) {
    int64_t peak = 0;
    for (int64_t row = 0; row <= dft / 2; ++row) {
      const float v = y.data[row * mels + m];
      EXPECT_GE(v, 0.0f);
      EXPECT_LE(v, 1.0f);
      if (v > y.data[peak * mels + m]) peak = row;
    }
    EXPECT_EQ(y.data[peak * mels + m], 1.0f) << "filter " << m;
    EXPECT_GT(peak, last_peak);
    last_peak = peak;
  }
  EXPECT_FALSE(MelWeightMatrix(dft, 16000, 0.0, 16000.0, y.view()).ok());  // past Nyquist
}

}  // namespace
}  // namespace loom::kernels
