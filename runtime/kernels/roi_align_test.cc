// RoiAlign: avg and max, both coordinate modes, adaptive and fixed sampling, on a region inside
// and one reaching outside the image, against ONNX's reference implementation; index checks.
#include <gtest/gtest.h>

#include "runtime/kernels/kernel_test_util.h"
#include "runtime/kernels/kernels_vision2.h"

namespace loom::kernels {
namespace {

using testing::Buf;

struct Case {
  int max, half_pixel, sampling;
  std::vector<float> want;
};

TEST(RoiAlign, MatchesOnnxReference) {
  const Case cases[] = {
      {0,
       1,
       0,
       {1.725000f, 2.175000f, 2.625000f, 4.725000f, 5.175000f, 5.625000f, 3.872222f, 4.850000f,
        3.777778f, 7.622223f, 8.599999f, 6.277778f}},
      {0,
       1,
       2,
       {1.725000f, 2.175000f, 2.625000f, 4.725000f, 5.175000f, 5.625000f, 3.887500f, 4.850000f,
        5.712500f, 7.637500f, 8.600000f, 9.462500f}},
      {0,
       0,
       0,
       {3.225000f, 3.675000f, 4.125000f, 6.225000f, 6.675001f, 7.125000f, 5.288889f, 6.350000f,
        4.666667f, 3.894444f, 4.425000f, 3.166667f}},
      {0,
       0,
       2,
       {3.225000f, 3.675000f, 4.125000f, 6.225000f, 6.675000f, 7.125000f, 5.262500f, 6.350000f,
        3.500000f, 3.881250f, 4.425000f, 2.375000f}},
      {1,
       1,
       0,
       {1.237500f, 1.755000f, 2.362500f, 2.474999f, 3.217499f, 4.049999f, 5.000000f, 6.066667f,
        7.000000f, 7.500000f, 8.400001f, 9.500000f}},
      {1,
       1,
       2,
       {1.822500f, 2.362500f, 3.071250f, 3.487499f, 4.331249f, 5.264998f, 5.000000f, 4.875000f,
        7.000000f, 7.500000f, 6.750000f, 9.500000f}},
      {1,
       0,
       0,
       {2.280000f, 2.380000f, 2.400001f, 5.225000f, 5.100001f, 4.875001f, 3.750000f, 4.108334f,
        4.750000f, 7.500000f, 8.216667f, 9.500000f}},
      {1,
       0,
       2,
       {1.980000f, 2.590000f, 3.120001f, 4.537500f, 5.550000f, 6.337501f, 3.800000f, 3.612500f,
        4.750000f, 7.599999f, 7.224999f, 9.500000f}},
  };
  Buf<float> x({1, 1, 4, 5});
  for (size_t i = 0; i < x.data.size(); ++i) x.data[i] = static_cast<float>(i) / 2;
  Buf<float> rois({2, 4}, {0.5f, 0.5f, 3.2f, 2.9f, -0.6f, 1, 6, 5});
  Buf<int64_t> batch({2}, {0, 0});
  for (const Case& c : cases) {
    SCOPED_TRACE("max " + std::to_string(c.max) + " half_pixel " + std::to_string(c.half_pixel) +
                 " sampling " + std::to_string(c.sampling));
    RoiAlignParams p;
    p.mode = c.max ? RoiAlignMode::kMax : RoiAlignMode::kAvg;
    p.half_pixel = c.half_pixel != 0;
    p.sampling_ratio = c.sampling;
    Buf<float> y({2, 1, 2, 3});
    ASSERT_TRUE(RoiAlign(p, x.view(), rois.view(), batch.view(), y.view()).ok());
    for (size_t i = 0; i < c.want.size(); ++i) EXPECT_NEAR(y.data[i], c.want[i], 1e-5) << i;
  }
}

TEST(RoiAlign, RefusesABatchIndexOutOfRange) {
  Buf<float> x({1, 1, 4, 5});
  Buf<float> rois({1, 4}, {0, 0, 1, 1});
  Buf<int32_t> batch({1}, {1});
  Buf<float> y({1, 1, 2, 2});
  Status s = RoiAlign(RoiAlignParams(), x.view(), rois.view(), batch.view(), y.view());
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("names batch 1"), std::string::npos) << s.message();
  Buf<float> wrong_y({1, 2, 2, 2});
  batch.data[0] = 0;
  EXPECT_FALSE(
      RoiAlign(RoiAlignParams(), x.view(), rois.view(), batch.view(), wrong_y.view()).ok());
}

}  // namespace
}  // namespace loom::kernels
