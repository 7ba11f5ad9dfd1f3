// ConvTranspose: hand-computed 1-D cases (stride, pads, groups) and, for 2-D with every
// geometry knob, the adjoint identity <ConvT(x), y> == <x, Conv(y)> against the Conv kernel.
#include <gtest/gtest.h>

#include "runtime/kernels/kernel_test_util.h"
#include "runtime/kernels/kernels_vision.h"

namespace loom::kernels {
namespace {

using testing::Buf;

ConvParams Params1d(int64_t stride, int64_t pad_begin, int64_t group = 1) {
  ConvParams p;
  p.spatial = 1;
  p.strides[0] = stride;
  p.pads_begin[0] = pad_begin;
  p.group = group;
  return p;
}

TEST(ConvTranspose, StrideScattersTaps) {
  Buf<float> x({1, 1, 3}, {1, 2, 3});
  Buf<float> w({1, 1, 2}, {1, 10});
  Buf<float> y({1, 1, 6});
  ASSERT_TRUE(ConvTranspose(Params1d(2, 0), x.view(), w.view(), nullptr, y.view()).ok());
  EXPECT_EQ(y.data, (std::vector<float>{1, 10, 2, 20, 3, 30}));
  Buf<float> y1({1, 1, 4});
  ASSERT_TRUE(ConvTranspose(Params1d(1, 0), x.view(), w.view(), nullptr, y1.view()).ok());
  EXPECT_EQ(y1.data, (std::vector<float>{1, 12, 23, 30}));
  // Pads crop the front (and y's length the back); a bias is added everywhere.
  Buf<float> b({1}, {0.5f});
  const TensorView bv = b.view();
  Buf<float> y2({1, 1, 2});
  ASSERT_TRUE(ConvTranspose(Params1d(1, 1), x.view(), w.view(), &bv, y2.view()).ok());
  EXPECT_EQ(y2.data, (std::vector<float>{12.5f, 23.5f}));
}

TEST(ConvTranspose, GroupsKeepChannelsApart) {
  Buf<float> x({1, 2, 2}, {1, 2, 3, 4});
  Buf<float> w({2, 1, 1}, {2, -1});
  Buf<float> y({1, 2, 2});
  ASSERT_TRUE(ConvTranspose(Params1d(1, 0, 2), x.view(), w.view(), nullptr, y.view()).ok());
  EXPECT_EQ(y.data, (std::vector<float>{2, 4, -3, -4}));
}

double Dot(const std::vector<float>& a, const std::vector<float>& b) {
  double s = 0;
  for (size_t i = 0; i < a.size(); ++i) s += static_cast<double>(a[i]) * b[i];
  return s;
}

TEST(ConvTranspose, IsTheAdjointOfConv) {
  // x [1, 4, 3, 4], group 2, w [4, 3, 3, 2] -> y [1, 6, O...], strides (2, 3), dilations (2, 1),
  // pads (1, 0, 2, 1), output_padding (1, 2).
  ConvParams p;
  p.spatial = 2;
  p.strides[0] = 2, p.strides[1] = 3;
  p.dilations[0] = 2, p.dilations[1] = 1;
  p.pads_begin[0] = 1, p.pads_begin[1] = 0;
  p.pads_end[0] = 2, p.pads_end[1] = 1;
  p.group = 2;
  const int64_t oh = 2 * (3 - 1) + 1 + 2 * (3 - 1) + 1 - 3;  // 7
  const int64_t ow = 3 * (4 - 1) + 2 + 1 * (2 - 1) + 1 - 1;  // 12
  Buf<float> x({1, 4, 3, 4}, testing::RandomFloats(48, 1));
  Buf<float> w({4, 3, 3, 2}, testing::RandomFloats(72, 2));
  Buf<float> y({1, 6, oh, ow}, testing::RandomFloats(static_cast<size_t>(6 * oh * ow), 3));
  Buf<float> ct({1, 6, oh, ow});
  Buf<float> c({1, 4, 3, 4});
  ASSERT_TRUE(ConvTranspose(p, x.view(), w.view(), nullptr, ct.view()).ok());
  ASSERT_TRUE(Conv(p, y.view(), w.view(), nullptr, c.view()).ok());
  EXPECT_NEAR(Dot(ct.data, y.data), Dot(x.data, c.data), 1e-3);
  EXPECT_NE(Dot(ct.data, y.data), 0.0);
}

TEST(ConvTranspose, RefusesMismatchedShapes) {
  Buf<float> x({1, 2, 3}, testing::RandomFloats(6, 4));
  Buf<float> w({3, 1, 2}, testing::RandomFloats(6, 5));  // dim 0 must be x's 2 channels
  Buf<float> y({1, 1, 4});
  EXPECT_FALSE(ConvTranspose(Params1d(1, 0), x.view(), w.view(), nullptr, y.view()).ok());
  Buf<float> w2({2, 1, 2}, testing::RandomFloats(4, 6));
  Buf<float> y2({1, 3, 4});  // channels must be group * w.shape[1] = 1
  EXPECT_FALSE(ConvTranspose(Params1d(1, 0), x.view(), w2.view(), nullptr, y2.view()).ok());
}

}  // namespace
}  // namespace loom::kernels
