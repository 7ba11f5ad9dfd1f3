// GridSample: every mode x padding x align_corners on one 3x4 image against values from ONNX's
// reference implementation (onnx.reference, GridSample), plus the shape checks.
#include <gtest/gtest.h>

#include "runtime/kernels/kernel_test_util.h"
#include "runtime/kernels/kernels_vision2.h"

namespace loom::kernels {
namespace {

using testing::Buf;

struct Case {
  int mode, padding, align;
  std::vector<float> want;
};

TEST(GridSample, MatchesOnnxReference) {
  const Case cases[] = {
      {0, 0, 0, {0.000000f, 10.000000f, 0.000000f, 6.000000f, 0.000000f, 6.000000f}},
      {0, 0, 1, {0.000000f, 10.000000f, 11.000000f, 6.000000f, 8.000000f, 6.000000f}},
      {0, 1, 0, {0.000000f, 10.000000f, 11.000000f, 6.000000f, 8.000000f, 6.000000f}},
      {0, 1, 1, {0.000000f, 10.000000f, 11.000000f, 6.000000f, 8.000000f, 6.000000f}},
      {0, 2, 0, {0.000000f, 10.000000f, 11.000000f, 6.000000f, 8.000000f, 6.000000f}},
      {0, 2, 1, {0.000000f, 10.000000f, 11.000000f, 6.000000f, 8.000000f, 6.000000f}},
      {1, 0, 0, {0.000000f, 9.100000f, 2.145002f, 5.500000f, 0.405002f, 5.000000f}},
      {1, 0, 1, {0.000000f, 7.950000f, 9.010001f, 5.500000f, 5.915000f, 5.250000f}},
      {1, 1, 0, {0.000000f, 9.100000f, 11.000000f, 5.500000f, 8.100000f, 5.000000f}},
      {1, 1, 1, {0.000000f, 7.950000f, 10.599999f, 5.500000f, 8.450000f, 5.250000f}},
      {1, 2, 0, {0.000000f, 9.100000f, 11.000000f, 5.500000f, 8.100000f, 5.000000f}},
      {1, 2, 1, {0.300000f, 7.950000f, 10.450001f, 5.500000f, 7.250000f, 5.250000f}},
      {2, 0, 0, {-0.034125f, 10.523782f, 2.202509f, 5.500000f, 0.344123f, 5.382324f}},
      {2, 0, 1, {-0.110250f, 9.234429f, 10.002013f, 5.500000f, 7.102664f, 5.289001f}},
      {2, 1, 0, {-0.375000f, 9.377125f, 11.443626f, 5.500000f, 8.075252f, 4.712891f}},
      {2, 1, 1, {0.000000f, 8.303621f, 10.699000f, 5.500000f, 8.360281f, 5.003906f}},
      {2, 2, 0, {-0.817500f, 9.377125f, 11.840005f, 5.500000f, 8.217752f, 4.712891f}},
      {2, 2, 1, {0.121499f, 8.678621f, 10.909935f, 5.500000f, 7.772187f, 4.898438f}},
  };
  Buf<float> x({1, 1, 3, 4}, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11});
  Buf<float> grid({1, 2, 3, 2},
                  {-1.2f, -1.0f, 0.3f, 0.5f, 1.1f, 0.9f, 0.0f, 0.0f, -0.7f, 1.3f, 0.5f, -0.25f});
  for (const Case& c : cases) {
    SCOPED_TRACE("mode " + std::to_string(c.mode) + " padding " + std::to_string(c.padding) +
                 " align_corners " + std::to_string(c.align));
    GridSampleParams p;
    p.mode = static_cast<GridSampleMode>(c.mode);
    p.padding = static_cast<GridSamplePadding>(c.padding);
    p.align_corners = c.align != 0;
    Buf<float> y({1, 1, 2, 3});
    ASSERT_TRUE(GridSample(p, x.view(), grid.view(), y.view()).ok());
    for (size_t i = 0; i < c.want.size(); ++i) EXPECT_NEAR(y.data[i], c.want[i], 1e-5) << i;
  }
}

TEST(GridSample, ChannelsShareTheGrid) {
  Buf<float> x({1, 2, 1, 2}, {1, 3, 10, 30});
  Buf<float> grid({1, 1, 1, 2}, {0.0f, 0.0f});  // the center: halfway between the two pixels
  Buf<float> y({1, 2, 1, 1});
  GridSampleParams p;
  ASSERT_TRUE(GridSample(p, x.view(), grid.view(), y.view()).ok());
  EXPECT_FLOAT_EQ(y.data[0], 2.0f);
  EXPECT_FLOAT_EQ(y.data[1], 20.0f);
}

TEST(GridSample, RefusesMismatchedShapes) {
  Buf<float> x({1, 1, 3, 4});
  Buf<float> grid3({1, 2, 3, 3});
  Buf<float> y({1, 1, 2, 3});
  Status s = GridSample(GridSampleParams(), x.view(), grid3.view(), y.view());
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("grid [N, Ho, Wo, 2]"), std::string::npos) << s.message();
  Buf<float> grid({1, 2, 3, 2});
  Buf<float> wrong_y({1, 1, 3, 2});
  EXPECT_FALSE(GridSample(GridSampleParams(), x.view(), grid.view(), wrong_y.view()).ok());
}

}  // namespace
}  // namespace loom::kernels
