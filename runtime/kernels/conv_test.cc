// Float Conv: the ONNX spec example, and a direct 2-D reference (written independently of the N-D
// loop in conv_common.h) over groups, depthwise, strides, dilations and asymmetric padding; 1-D
// and 3-D shapes; and the shape checks.
#include <gtest/gtest.h>

#include <cmath>

#include "runtime/kernels/kernel_test_util.h"
#include "runtime/kernels/kernels.h"

namespace loom::kernels {
namespace {

using testing::Buf;
using testing::RandomFloats;

ConvParams Params2D(int64_t stride, int64_t dil, int64_t pt, int64_t pl, int64_t pb, int64_t pr,
                    int64_t group) {
  ConvParams p;
  p.spatial = 2;
  p.strides[0] = p.strides[1] = stride;
  p.dilations[0] = p.dilations[1] = dil;
  p.pads_begin[0] = pt;
  p.pads_begin[1] = pl;
  p.pads_end[0] = pb;
  p.pads_end[1] = pr;
  p.group = group;
  return p;
}

TEST(Conv, OnnxSpecExampleWithPadding) {
  Buf<float> x({1, 1, 5, 5});
  for (int i = 0; i < 25; ++i) x.data[i] = static_cast<float>(i);
  Buf<float> w({1, 1, 3, 3}, std::vector<float>(9, 1.0f));
  Buf<float> y({1, 1, 5, 5});
  ASSERT_TRUE(Conv(Params2D(1, 1, 1, 1, 1, 1, 1), x.view(), w.view(), nullptr, y.view()).ok());
  const float want[25] = {12,  21, 27, 33,  24,  33,  54,  63, 72,  51,  63,  99, 108,
                          117, 81, 93, 144, 153, 162, 111, 72, 111, 117, 123, 84};
  for (int i = 0; i < 25; ++i) EXPECT_EQ(y.data[i], want[i]) << i;
}

// Direct 2-D convolution, the textbook seven nested loops.
std::vector<float> Reference2D(const ConvParams& p, const Buf<float>& x, const Buf<float>& w,
                               const std::vector<float>& bias, int64_t oh, int64_t ow) {
  const int64_t n = x.shape[0], c = x.shape[1], h = x.shape[2], wd = x.shape[3];
  const int64_t m = w.shape[0], cg = w.shape[1], kh = w.shape[2], kw = w.shape[3];
  const int64_t mg = m / p.group;
  std::vector<float> y(static_cast<size_t>(n * m * oh * ow));
  for (int64_t b = 0; b < n; ++b)
    for (int64_t oc = 0; oc < m; ++oc)
      for (int64_t i = 0; i < oh; ++i)
        for (int64_t j = 0; j < ow; ++j) {
          float acc = bias.empty() ? 0.0f : bias[oc];
          for (int64_t ic = 0; ic < cg; ++ic)
            for (int64_t u = 0; u < kh; ++u)
              for (int64_t v = 0; v < kw; ++v) {
                const int64_t yy = i * p.strides[0] - p.pads_begin[0] + u * p.dilations[0];
                const int64_t xx = j * p.strides[1] - p.pads_begin[1] + v * p.dilations[1];
                if (yy < 0 || yy >= h || xx < 0 || xx >= wd) continue;
                const int64_t cin = (oc / mg) * cg + ic;
                acc += x.data[((b * c + cin) * h + yy) * wd + xx] *
                       w.data[((oc * cg + ic) * kh + u) * kw + v];
              }
          y[((b * m + oc) * oh + i) * ow + j] = acc;
        }
  return y;
}

struct Case {
  int64_t c, m, group, k, stride, dil, pt, pl, pb, pr;
};

class ConvVsReference : public ::testing::TestWithParam<Case> {};

TEST_P(ConvVsReference, Matches) {
  const Case t = GetParam();
  const int64_t n = 2, h = 7, wd = 6;
  ConvParams p = Params2D(t.stride, t.dil, t.pt, t.pl, t.pb, t.pr, t.group);
  const int64_t span = t.dil * (t.k - 1) + 1;
  const int64_t oh = (h + t.pt + t.pb - span) / t.stride + 1;
  const int64_t ow = (wd + t.pl + t.pr - span) / t.stride + 1;
  Buf<float> x({n, t.c, h, wd}, RandomFloats(n * t.c * h * wd, 1));
  Buf<float> w({t.m, t.c / t.group, t.k, t.k}, RandomFloats(t.m * (t.c / t.group) * t.k * t.k, 2));
  Buf<float> b({t.m}, RandomFloats(t.m, 3));
  Buf<float> y({n, t.m, oh, ow});
  TensorView bv = b.view();
  ASSERT_TRUE(Conv(p, x.view(), w.view(), &bv, y.view()).ok());
  std::vector<float> want = Reference2D(p, x, w, b.data, oh, ow);
  for (size_t i = 0; i < want.size(); ++i) EXPECT_NEAR(y.data[i], want[i], 1e-5f) << i;
}

INSTANTIATE_TEST_SUITE_P(
    Geometries, ConvVsReference,
    ::testing::Values(Case{3, 4, 1, 3, 1, 1, 1, 1, 1, 1},    // plain 3x3 same
                      Case{4, 6, 2, 3, 1, 1, 0, 0, 0, 0},    // groups
                      Case{4, 4, 4, 3, 1, 1, 1, 1, 1, 1},    // depthwise
                      Case{3, 6, 3, 3, 2, 1, 1, 1, 1, 1},    // depthwise with multiplier, strided
                      Case{2, 3, 1, 3, 1, 2, 2, 2, 2, 2},    // dilated
                      Case{3, 2, 1, 3, 2, 1, 1, 0, 0, 1},    // asymmetric pads
                      Case{3, 2, 1, 1, 3, 1, 0, 0, 0, 0},    // 1x1 strided
                      Case{2, 2, 1, 5, 1, 1, 4, 4, 4, 4}));  // pads nearly as large as kernel

TEST(Conv, OneAndThreeSpatialDims) {
  // 1-D: [1, 1, 4] * [1, 1, 2] -> [1, 1, 3], differences of neighbours.
  Buf<float> x1({1, 1, 4}, {1, 2, 4, 8});
  Buf<float> w1({1, 1, 2}, {-1, 1});
  Buf<float> y1({1, 1, 3});
  ConvParams p1;
  p1.spatial = 1;
  ASSERT_TRUE(Conv(p1, x1.view(), w1.view(), nullptr, y1.view()).ok());
  EXPECT_EQ(y1.data, (std::vector<float>{1, 2, 4}));
  // 3-D: a 2x2x2 box filter over a 3x3x3 ramp, strided by 1, no padding -> 2x2x2 sums.
  Buf<float> x3({1, 1, 3, 3, 3});
  for (int i = 0; i < 27; ++i) x3.data[i] = static_cast<float>(i);
  Buf<float> w3({1, 1, 2, 2, 2}, std::vector<float>(8, 1.0f));
  Buf<float> y3({1, 1, 2, 2, 2});
  ConvParams p3;
  p3.spatial = 3;
  ASSERT_TRUE(Conv(p3, x3.view(), w3.view(), nullptr, y3.view()).ok());
  // Window at (d, h, w) sums 8 cells whose mean is the ramp value at the window's centre.
  for (int d = 0; d < 2; ++d)
    for (int h = 0; h < 2; ++h)
      for (int w = 0; w < 2; ++w) {
        const float centre = 9.0f * (d + 0.5f) + 3.0f * (h + 0.5f) + (w + 0.5f);
        EXPECT_FLOAT_EQ(y3.data[(d * 2 + h) * 2 + w], 8.0f * centre);
      }
}

TEST(Conv, RejectsInconsistentShapes) {
  Buf<float> x({1, 4, 5, 5});
  Buf<float> w({2, 3, 3, 3});  // 3 channels per filter but 4 inputs and group 1
  Buf<float> y({1, 2, 3, 3});
  Status s = Conv(ConvParams(), x.view(), w.view(), nullptr, y.view());
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("group"), std::string::npos) << s.message();
  Buf<float> w2({2, 4, 3, 3});
  Buf<float> y2({1, 2, 4, 4});  // geometry gives 3x3
  s = Conv(ConvParams(), x.view(), w2.view(), nullptr, y2.view());
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("geometry gives 3"), std::string::npos) << s.message();
}

TEST(Conv, RefusesGeometryPast64Bits) {
  Buf<float> x({1, 1, 4, 4}), w({1, 1, 3, 3}), y({1, 1, 2, 2});
  ConvParams p;
  p.dilations[0] = int64_t{1} << 62;  // dilation * (kernel - 1) = 2^63
  Status s = Conv(p, x.view(), w.view(), nullptr, y.view());
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("past 64 bits"), std::string::npos) << s.message();
  ConvParams q;
  q.pads_begin[1] = INT64_MAX;  // input + pads wraps
  s = Conv(q, x.view(), w.view(), nullptr, y.view());
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  ConvParams g;
  g.group = (int64_t{1} << 62) + 1;  // times the weights' channels wraps
  EXPECT_FALSE(Conv(g, x.view(), w.view(), nullptr, y.view()).ok());
}

TEST(Conv, HugeDilationAndPadsThatFit) {
  // Kernel 2 with dilation 2^40 over pads of 2^40 each side of a 1x1 input: each output sees the
  // single input cell through exactly one tap; positions stay inside int64 throughout.
  const int64_t big = int64_t{1} << 40;
  Buf<float> x({1, 1, 1, 1}, {3.0f}), w({1, 1, 2, 1}, {5.0f, 7.0f}), y({1, 1, 2, 1});
  ConvParams p;
  p.dilations[0] = big;
  p.pads_begin[0] = p.pads_end[0] = big;
  p.strides[0] = big;
  ASSERT_TRUE(Conv(p, x.view(), w.view(), nullptr, y.view()).ok());
  EXPECT_EQ(y.data, (std::vector<float>{21.0f, 15.0f}));
}

}  // namespace
}  // namespace loom::kernels
