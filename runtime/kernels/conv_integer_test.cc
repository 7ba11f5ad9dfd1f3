// ConvInteger: the ONNX spec example, signed operands with per-channel weight zero points checked
// against the float Conv of the de-zeroed values, and the dtype/zero-point checks.
#include <gtest/gtest.h>

#include "runtime/kernels/kernel_test_util.h"
#include "runtime/kernels/kernels.h"

namespace loom::kernels {
namespace {

using testing::Buf;

TEST(ConvInteger, OnnxSpecExample) {
  Buf<uint8_t> x({1, 1, 3, 3}, {2, 3, 4, 5, 6, 7, 8, 9, 10});
  Buf<uint8_t> xz({}, {1});
  Buf<uint8_t> w({1, 1, 2, 2}, {1, 1, 1, 1});
  Buf<int32_t> y({1, 1, 2, 2});
  TensorView xzv = xz.view();
  ASSERT_TRUE(ConvInteger(ConvParams(), x.view(), w.view(), &xzv, nullptr, y.view()).ok());
  EXPECT_EQ(y.data, (std::vector<int32_t>{12, 16, 24, 28}));
}

TEST(ConvInteger, SignedPerChannelZeroPointsMatchFloatConv) {
  Buf<int8_t> x({1, 2, 4, 4});
  for (size_t i = 0; i < x.data.size(); ++i) x.data[i] = static_cast<int8_t>((i * 37) % 255 - 127);
  Buf<int8_t> w({3, 2, 3, 3});
  for (size_t i = 0; i < w.data.size(); ++i) w.data[i] = static_cast<int8_t>((i * 53) % 255 - 127);
  Buf<int8_t> xz({}, {-3});
  Buf<int8_t> wz({3}, {5, -7, 0});
  ConvParams p;
  p.pads_begin[0] = p.pads_begin[1] = p.pads_end[0] = p.pads_end[1] = 1;
  Buf<int32_t> y({1, 3, 4, 4});
  TensorView xzv = xz.view(), wzv = wz.view();
  ASSERT_TRUE(ConvInteger(p, x.view(), w.view(), &xzv, &wzv, y.view()).ok());
  // Same computation in float on the de-zeroed values; every partial sum is an exact integer
  // below 2^24, so float is exact here.
  Buf<float> xf(x.shape), wf(w.shape), yf(y.shape);
  for (size_t i = 0; i < x.data.size(); ++i) xf.data[i] = static_cast<float>(x.data[i] + 3);
  for (size_t i = 0; i < w.data.size(); ++i) {
    wf.data[i] = static_cast<float>(w.data[i] - wz.data[i / 18]);
  }
  // Padding is zero in the de-zeroed domain, i.e. x_zp in the quantized one: same as ONNX.
  ASSERT_TRUE(Conv(p, xf.view(), wf.view(), nullptr, yf.view()).ok());
  for (size_t i = 0; i < y.data.size(); ++i) EXPECT_EQ(y.data[i], static_cast<int32_t>(yf.data[i]));
}

TEST(ConvInteger, RejectsBadZeroPoint) {
  Buf<uint8_t> x({1, 1, 3, 3});
  Buf<uint8_t> w({2, 1, 2, 2});
  Buf<int32_t> y({1, 2, 2, 2});
  Buf<uint8_t> wz({3}, {0, 0, 0});  // neither 1 nor 2 values
  TensorView wzv = wz.view();
  Status s = ConvInteger(ConvParams(), x.view(), w.view(), nullptr, &wzv, y.view());
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("w_zero_point"), std::string::npos) << s.message();
  Buf<int8_t> xz({}, {0});  // wrong type for a u8 input
  TensorView xzv = xz.view();
  EXPECT_FALSE(ConvInteger(ConvParams(), x.view(), w.view(), &xzv, nullptr, y.view()).ok());
}

}  // namespace
}  // namespace loom::kernels
