// STFT: every frame equals the DFT of the windowed slice; no window means all ones.
#include <gtest/gtest.h>

#include <vector>

#include "runtime/kernels/kernel_test_util.h"
#include "runtime/kernels/kernels_seq.h"

namespace loom::kernels {
namespace {

using testing::Buf;

TEST(Stft, FramesAreWindowedDfts) {
  const int64_t len = 12, step = 3, frame = 4, frames = (len - frame) / step + 1;
  Buf<float> signal({1, len, 1}, testing::RandomFloats(len, 7));
  Buf<float> window({frame}, {0.1f, 0.5f, 1.0f, 0.5f});
  Buf<float> y({1, frames, frame / 2 + 1, 2}), plain({1, frames, frame / 2 + 1, 2});
  TensorView wv = window.view();
  ASSERT_TRUE(Stft(signal.view(), step, &wv, frame, true, y.view()).ok());
  ASSERT_TRUE(Stft(signal.view(), step, nullptr, frame, true, plain.view()).ok());
  for (int64_t f = 0; f < frames; ++f) {
    Buf<float> slice({frame, 1}), windowed({frame, 1});
    for (int64_t n = 0; n < frame; ++n) {
      slice.data[n] = signal.data[f * step + n];
      windowed.data[n] = slice.data[n] * window.data[n];
    }
    Buf<float> want({frame / 2 + 1, 2}), want_plain({frame / 2 + 1, 2});
    ASSERT_TRUE(Dft(windowed.view(), 0, frame, false, true, want.view()).ok());
    ASSERT_TRUE(Dft(slice.view(), 0, frame, false, true, want_plain.view()).ok());
    for (size_t i = 0; i < want.data.size(); ++i) {
      EXPECT_NEAR(y.data[f * want.data.size() + i], want.data[i], 1e-5);
      EXPECT_NEAR(plain.data[f * want.data.size() + i], want_plain.data[i], 1e-5);
    }
  }
  Buf<float> short_window({3});
  TensorView sv = short_window.view();
  EXPECT_FALSE(Stft(signal.view(), step, &sv, frame, true, y.view()).ok());
}

}  // namespace
}  // namespace loom::kernels
