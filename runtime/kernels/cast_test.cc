// Cast: ONNX's numeric conversions, including the edges (truncation, saturation, NaN, wrapping,
// float16 rounding) where a naive static_cast would be wrong or undefined.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "runtime/kernels/kernel_test_util.h"
#include "runtime/kernels/kernels.h"

namespace loom::kernels {
namespace {

using testing::Buf;

TEST(Cast, FloatToIntTruncatesAndSaturates) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  Buf<float> x({7}, {2.7f, -2.7f, 300.0f, -300.0f, nan, 1e30f, -0.5f});
  Buf<int8_t> y({7});
  ASSERT_TRUE(Cast(x.view(), y.view()).ok());
  EXPECT_EQ(y.data, (std::vector<int8_t>{2, -2, 127, -128, 0, 127, 0}));
  Buf<uint8_t> u({7});
  ASSERT_TRUE(Cast(x.view(), u.view()).ok());
  EXPECT_EQ(u.data, (std::vector<uint8_t>{2, 0, 255, 0, 0, 255, 0}));
  Buf<int64_t> l({7});
  ASSERT_TRUE(Cast(x.view(), l.view()).ok());
  EXPECT_EQ(l.data[5], std::numeric_limits<int64_t>::max());
  EXPECT_EQ(l.data[1], -2);
}

TEST(Cast, IntegersWrapAndBoolIsNonZero) {
  Buf<int32_t> x({4}, {300, -1, 0, 65536 + 5});
  Buf<uint8_t> u({4});
  ASSERT_TRUE(Cast(x.view(), u.view()).ok());
  EXPECT_EQ(u.data, (std::vector<uint8_t>{44, 255, 0, 5}));
  Buf<int16_t> s({4});
  ASSERT_TRUE(Cast(x.view(), s.view()).ok());
  EXPECT_EQ(s.data, (std::vector<int16_t>{300, -1, 0, 5}));
  TensorView b = x.view();
  std::vector<uint8_t> bools(4);
  b.dtype = DType::kBool;
  b.data = bools.data();
  ASSERT_TRUE(Cast(x.view(), b).ok());
  EXPECT_EQ(bools, (std::vector<uint8_t>{1, 1, 0, 1}));
}

TEST(Cast, Int64ToFloatRoundsOnce) {
  // 2^60 + 2^36 + 1 is just above the midpoint between two floats (ulp 2^37 there), so it rounds
  // up; through double it would first round to the midpoint and then tie to even, down to 2^60.
  const int64_t big = (int64_t{1} << 60) + (int64_t{1} << 36) + 1;
  Buf<int64_t> x({1}, {big});
  Buf<float> y({1});
  ASSERT_TRUE(Cast(x.view(), y.view()).ok());
  EXPECT_EQ(y.data[0], std::ldexp(1.0f, 60) + std::ldexp(1.0f, 37));
  Buf<double> d({1});
  ASSERT_TRUE(Cast(x.view(), d.view()).ok());
  EXPECT_EQ(d.data[0], static_cast<double>(big));
}

TEST(Cast, Uint64PastInt64MaxStaysUnsigned) {
  const uint64_t big = (uint64_t{1} << 63) + (uint64_t{1} << 40);
  Buf<uint64_t> x({2}, {big, 5});
  Buf<double> d({2});
  ASSERT_TRUE(Cast(x.view(), d.view()).ok());
  EXPECT_EQ(d.data[0], std::ldexp(1.0, 63) + std::ldexp(1.0, 40));
  EXPECT_EQ(d.data[1], 5.0);
  Buf<float> f({2});
  ASSERT_TRUE(Cast(x.view(), f.view()).ok());
  EXPECT_EQ(f.data[0], std::ldexp(1.0f, 63) + std::ldexp(1.0f, 40));
  Buf<uint16_t> h({2});
  ASSERT_TRUE(Cast(x.view(), h.view()).ok());  // narrowing wraps
  EXPECT_EQ(h.data, (std::vector<uint16_t>{0, 5}));
  Buf<float> neg({2}, {-3.5f, 1e30f});
  Buf<uint32_t> u({2});
  ASSERT_TRUE(Cast(neg.view(), u.view()).ok());  // float to unsigned saturates
  EXPECT_EQ(u.data, (std::vector<uint32_t>{0, std::numeric_limits<uint32_t>::max()}));
}

TEST(Cast, Float16BothWays) {
  Buf<double> x({5}, {1.0, 0.1, 65504.0, 1e6, -std::ldexp(1.0, -24)});
  TensorView h = x.view();
  std::vector<uint16_t> bits(5);
  h.dtype = DType::kF16;
  h.data = bits.data();
  ASSERT_TRUE(Cast(x.view(), h).ok());
  EXPECT_EQ(bits, (std::vector<uint16_t>{0x3c00, 0x2e66, 0x7bff, 0x7c00, 0x8001}));
  Buf<float> back({5});
  ASSERT_TRUE(Cast(h, back.view()).ok());
  EXPECT_EQ(back.data[0], 1.0f);
  EXPECT_EQ(back.data[1], F16ToF32(0x2e66));
  EXPECT_TRUE(std::isinf(back.data[3]));
}

TEST(Cast, RefusesMismatchedSizes) {
  Buf<float> x({3});
  Buf<int32_t> y({4});
  EXPECT_FALSE(Cast(x.view(), y.view()).ok());
  TensorView undefined = y.view();
  undefined.dtype = DType::kUndefined;
  EXPECT_FALSE(Cast(x.view(), undefined).ok());
}

}  // namespace
}  // namespace loom::kernels
