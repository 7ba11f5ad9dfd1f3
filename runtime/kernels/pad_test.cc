// Pad: the three modes on the ONNX spec's 3x2 example, negative pads cropping, integer fill, and
// every mode over pads and crops on all axes of a 3-D tensor against a per-element reference.
#include <gtest/gtest.h>

#include "runtime/kernels/kernel_test_util.h"
#include "runtime/kernels/kernels.h"

namespace loom::kernels {
namespace {

using testing::Buf;

TEST(Pad, OnnxSpecExamples) {
  Buf<float> x({3, 2}, {1.0f, 1.2f, 2.3f, 3.4f, 4.5f, 5.7f});
  const int64_t pads[4] = {0, 2, 0, 0};
  Buf<float> y({3, 4});
  ASSERT_TRUE(Pad(x.view(), pads, PadMode::kConstant, 0.0, y.view()).ok());
  EXPECT_EQ(y.data, (std::vector<float>{0, 0, 1.0f, 1.2f, 0, 0, 2.3f, 3.4f, 0, 0, 4.5f, 5.7f}));
  Buf<float> x3({3, 3}, {1.0f, 1.2f, 1.3f, 2.3f, 3.4f, 4.5f, 4.5f, 5.7f, 6.8f});
  Buf<float> y3({3, 5});
  ASSERT_TRUE(Pad(x3.view(), pads, PadMode::kReflect, 0.0, y3.view()).ok());
  EXPECT_EQ(y3.data, (std::vector<float>{1.3f, 1.2f, 1.0f, 1.2f, 1.3f, 4.5f, 3.4f, 2.3f, 3.4f, 4.5f,
                                         6.8f, 5.7f, 4.5f, 5.7f, 6.8f}));
  ASSERT_TRUE(Pad(x.view(), pads, PadMode::kEdge, 0.0, y.view()).ok());
  EXPECT_EQ(y.data, (std::vector<float>{1.0f, 1.0f, 1.0f, 1.2f, 2.3f, 2.3f, 2.3f, 3.4f, 4.5f, 4.5f,
                                        4.5f, 5.7f}));
}

TEST(Pad, NegativePadsCropAndIntegerFill) {
  Buf<int32_t> x({4}, {1, 2, 3, 4});
  const int64_t pads[2] = {-1, 2};
  Buf<int32_t> y({5});
  ASSERT_TRUE(Pad(x.view(), pads, PadMode::kConstant, 7.0, y.view()).ok());
  EXPECT_EQ(y.data, (std::vector<int32_t>{2, 3, 4, 7, 7}));
  const int64_t too_far[2] = {4, 0};  // reflecting 4 cells of a 4-cell axis would wrap twice
  Buf<int32_t> y8({8});
  EXPECT_FALSE(Pad(x.view(), too_far, PadMode::kReflect, 0.0, y8.view()).ok());
}

// The per-element definition: output index i maps to source i - begin on each axis.
int64_t RefSource(int64_t i, int64_t begin, int64_t d, PadMode mode) {
  const int64_t s = i - begin;
  if (s >= 0 && s < d) return s;
  if (mode == PadMode::kConstant) return -1;
  if (mode == PadMode::kReflect) return s < 0 ? -s : 2 * (d - 1) - s;
  return s < 0 ? 0 : d - 1;
}

// The row-at-a-time kernel against the definition: pads, crops and both at once on every axis
// (the last axis's crop-and-pad is what a width im2col asks for).
TEST(Pad, EveryModeMatchesThePerElementDefinition) {
  const int64_t xs[3] = {2, 3, 5};
  std::vector<float> xv(30);
  for (size_t i = 0; i < xv.size(); ++i) xv[i] = static_cast<float>(i + 1);
  Buf<float> x({2, 3, 5}, xv);
  const int64_t kPads[][6] = {{0, 0, 2, 0, 0, -1},
                              {1, -1, -2, 0, 2, 1},
                              {0, 1, 1, 1, 0, -3},
                              {-1, 0, 0, 1, -1, 4},
                              {1, 2, 4, 1, 2, 4}};
  for (const auto& pads : kPads) {
    for (PadMode mode : {PadMode::kConstant, PadMode::kReflect, PadMode::kEdge}) {
      SCOPED_TRACE(std::to_string(static_cast<int>(mode)) + " " + std::to_string(pads[2]) + "," +
                   std::to_string(pads[5]));
      const int64_t ys[3] = {xs[0] + pads[0] + pads[3], xs[1] + pads[1] + pads[4],
                             xs[2] + pads[2] + pads[5]};
      Buf<float> y({ys[0], ys[1], ys[2]});
      const Status st = Pad(x.view(), pads, mode, -9.0, y.view());
      bool reflectable = true;
      for (int i = 0; i < 3; ++i) reflectable &= pads[i] < xs[i] && pads[3 + i] < xs[i];
      if (mode == PadMode::kReflect && !reflectable) {
        EXPECT_FALSE(st.ok());
        continue;
      }
      ASSERT_TRUE(st.ok()) << st.ToString();
      std::vector<float> want;
      for (int64_t a = 0; a < ys[0]; ++a) {
        for (int64_t b = 0; b < ys[1]; ++b) {
          for (int64_t c = 0; c < ys[2]; ++c) {
            const int64_t sa = RefSource(a, pads[0], xs[0], mode);
            const int64_t sb = RefSource(b, pads[1], xs[1], mode);
            const int64_t sc = RefSource(c, pads[2], xs[2], mode);
            const bool in = sa >= 0 && sb >= 0 && sc >= 0;
            want.push_back(in ? xv[static_cast<size_t>((sa * xs[1] + sb) * xs[2] + sc)] : -9.0f);
          }
        }
      }
      EXPECT_EQ(y.data, want);
    }
  }
}

TEST(Pad, ExtremePadsAndValues) {
  Buf<int8_t> x({2}, {1, 2});
  // x + pads must not wrap into a plausible size.
  const int64_t wrap[2] = {INT64_MAX, 1};
  Buf<int8_t> y1({1});
  EXPECT_FALSE(Pad(x.view(), wrap, PadMode::kConstant, 0.0, y1.view()).ok());
  // A crop near INT64_MIN with a matching end pad: every output cell is past the input.
  const int64_t crop[2] = {INT64_MIN + 2, INT64_MAX - 1};
  Buf<int8_t> y({2});
  ASSERT_TRUE(Pad(x.view(), crop, PadMode::kEdge, 0.0, y.view()).ok());
  EXPECT_EQ(y.data, (std::vector<int8_t>{2, 2}));
  ASSERT_TRUE(Pad(x.view(), crop, PadMode::kConstant, 0.0, y.view()).ok());
  EXPECT_EQ(y.data, (std::vector<int8_t>{0, 0}));
  // A fill value out of the type's range saturates (converting it would be undefined).
  const int64_t one[2] = {1, 0};
  Buf<int8_t> y3({3});
  ASSERT_TRUE(Pad(x.view(), one, PadMode::kConstant, 1e10, y3.view()).ok());
  EXPECT_EQ(y3.data[0], 127);
  ASSERT_TRUE(Pad(x.view(), one, PadMode::kConstant, -1e10, y3.view()).ok());
  EXPECT_EQ(y3.data[0], -128);
  Buf<int64_t> x64({1}, {5}), y64({2});
  ASSERT_TRUE(Pad(x64.view(), one, PadMode::kConstant, 1e300, y64.view()).ok());
  EXPECT_EQ(y64.data[0], INT64_MAX);
}

}  // namespace
}  // namespace loom::kernels
