// Resize: nearest with each rounding mode, linear with align_corners and half_pixel edges, cubic
// (identity at scale 1, exclude_outside renormalization), tf_crop_and_resize extrapolation.
#include <gtest/gtest.h>

#include "runtime/kernels/kernel_test_util.h"
#include "runtime/kernels/kernels_vision.h"

namespace loom::kernels {
namespace {

using testing::Buf;

ResizeParams Scaled(ResizeMode mode, ResizeCoord coord, double scale_last) {
  ResizeParams p;
  p.mode = mode;
  p.coord = coord;
  p.scales[1] = scale_last;
  return p;
}

TEST(Resize, NearestUpsampleAndRoundingModes) {
  Buf<float> x({1, 2}, {1, 2});
  Buf<float> y({1, 4});
  ResizeParams p = Scaled(ResizeMode::kNearest, ResizeCoord::kAsymmetric, 2);
  p.nearest = ResizeNearest::kFloor;
  ASSERT_TRUE(Resize(p, x.view(), y.view()).ok());
  EXPECT_EQ(y.data, (std::vector<float>{1, 1, 2, 2}));
  // Asymmetric, scale 2: sources 0, 0.5, 1, 1.5; the ties go down or up with the mode.
  p.nearest = ResizeNearest::kRoundPreferCeil;
  ASSERT_TRUE(Resize(p, x.view(), y.view()).ok());
  EXPECT_EQ(y.data, (std::vector<float>{1, 2, 2, 2}));
  p.nearest = ResizeNearest::kRoundPreferFloor;
  ASSERT_TRUE(Resize(p, x.view(), y.view()).ok());
  EXPECT_EQ(y.data, (std::vector<float>{1, 1, 2, 2}));
  p.nearest = ResizeNearest::kCeil;
  ASSERT_TRUE(Resize(p, x.view(), y.view()).ok());
  EXPECT_EQ(y.data, (std::vector<float>{1, 2, 2, 2}));
}

TEST(Resize, LinearAlignCornersAndHalfPixelEdges) {
  Buf<float> x({1, 2}, {0, 4});
  Buf<float> y({1, 3});
  ASSERT_TRUE(
      Resize(Scaled(ResizeMode::kLinear, ResizeCoord::kAlignCorners, 1.5), x.view(), y.view())
          .ok());
  EXPECT_EQ(y.data, (std::vector<float>{0, 2, 4}));
  // half_pixel, scale 2: sources -0.25, 0.25, 0.75, 1.25; the edges clamp.
  Buf<float> y4({1, 4});
  ASSERT_TRUE(
      Resize(Scaled(ResizeMode::kLinear, ResizeCoord::kHalfPixel, 2), x.view(), y4.view()).ok());
  EXPECT_EQ(y4.data, (std::vector<float>{0, 1, 3, 4}));
}

TEST(Resize, BilinearOverTwoDims) {
  Buf<float> x({2, 2}, {0, 1, 2, 3});
  Buf<float> y({3, 3});
  ResizeParams p = Scaled(ResizeMode::kLinear, ResizeCoord::kAlignCorners, 1.5);
  p.scales[0] = 1.5;
  ASSERT_TRUE(Resize(p, x.view(), y.view()).ok());
  EXPECT_EQ(y.data, (std::vector<float>{0, 0.5f, 1, 1, 1.5f, 2, 2, 2.5f, 3}));
}

TEST(Resize, CubicIdentityAndExcludeOutside) {
  Buf<float> x({1, 4}, {1, -2, 5, 3});
  Buf<float> y({1, 4});
  ResizeParams p = Scaled(ResizeMode::kCubic, ResizeCoord::kHalfPixel, 1);
  ASSERT_TRUE(Resize(p, x.view(), y.view()).ok());
  for (int i = 0; i < 4; ++i) EXPECT_FLOAT_EQ(y.data[i], x.data[i]);
  // A constant input stays constant whatever the taps, with or without exclude_outside.
  Buf<float> c({1, 3}, {2, 2, 2});
  Buf<float> up({1, 7});
  p.scales[1] = 7.0 / 3.0;
  p.exclude_outside = true;
  p.cubic_coeff_a = -0.5f;
  ASSERT_TRUE(Resize(p, c.view(), up.view()).ok());
  for (float v : up.data) EXPECT_NEAR(v, 2.0f, 1e-6);
}

TEST(Resize, CropAndResizeExtrapolates) {
  Buf<float> x({1, 3}, {1, 2, 3});
  Buf<float> y({1, 3});
  ResizeParams p = Scaled(ResizeMode::kLinear, ResizeCoord::kTfCropAndResize, 1);
  p.roi_start[1] = 0.5;
  p.roi_end[1] = 1.5;  // sources 1, 2, 3: the last lies beyond the input
  p.extrapolation_value = -7;
  ASSERT_TRUE(Resize(p, x.view(), y.view()).ok());
  EXPECT_EQ(y.data, (std::vector<float>{2, 3, -7}));
}

TEST(Resize, RefusesBadArguments) {
  Buf<float> x({1, 2}, {1, 2});
  Buf<float> y({4});
  EXPECT_FALSE(Resize(ResizeParams{}, x.view(), y.view()).ok());
  Buf<float> y2({1, 4});
  ResizeParams p;
  p.scales[1] = 0;
  EXPECT_FALSE(Resize(p, x.view(), y2.view()).ok());
}

}  // namespace
}  // namespace loom::kernels
