// QLinearConv: requantization rounding (ties to even), saturation, i32 bias, per-channel weight
// scales, and agreement with dequantize -> float conv -> quantize on random data.
#include <gtest/gtest.h>

#include <cmath>

#include "runtime/kernels/kernel_test_util.h"
#include "runtime/kernels/kernels.h"

namespace loom::kernels {
namespace {

using testing::Buf;

struct Scalars {
  Buf<float> xs{{}, {1.0f}}, ws{{}, {0.5f}}, ys{{}, {1.0f}};
  Buf<uint8_t> xz{{}, {0}}, wz{{}, {0}}, yz{{}, {0}};
  TensorView xsv = xs.view(), wsv = ws.view(), ysv = ys.view();
  TensorView xzv = xz.view(), wzv = wz.view(), yzv = yz.view();
};

TEST(QLinearConv, TiesRoundToEvenAndSaturate) {
  // 1x1 conv with weight 1: acc = x, y = round_half_even(x * 0.5) saturated to u8.
  Buf<uint8_t> x({1, 1, 1, 6}, {3, 5, 7, 1, 255, 0});
  Buf<uint8_t> w({1, 1, 1, 1}, {1});
  Buf<uint8_t> y({1, 1, 1, 6});
  Scalars q;
  ASSERT_TRUE(QLinearConv(ConvParams(), x.view(), {&q.xsv, &q.xzv}, w.view(), {&q.wsv, &q.wzv},
                          {&q.ysv, &q.yzv}, nullptr, y.view())
                  .ok());
  // 1.5 -> 2, 2.5 -> 2, 3.5 -> 4, 0.5 -> 0, 127.5 -> 128, 0 -> 0.
  EXPECT_EQ(y.data, (std::vector<uint8_t>{2, 2, 4, 0, 128, 0}));
  // With y_scale 0.25 the results exceed 255 and saturate.
  q.ys.data[0] = 0.25f;
  ASSERT_TRUE(QLinearConv(ConvParams(), x.view(), {&q.xsv, &q.xzv}, w.view(), {&q.wsv, &q.wzv},
                          {&q.ysv, &q.yzv}, nullptr, y.view())
                  .ok());
  EXPECT_EQ(y.data, (std::vector<uint8_t>{6, 10, 14, 2, 255, 0}));
}

TEST(QLinearConv, MatchesFloatPipelinePerChannel) {
  const int64_t c = 3, m = 4;
  Buf<uint8_t> x({1, c, 5, 5});
  for (size_t i = 0; i < x.data.size(); ++i) x.data[i] = static_cast<uint8_t>((i * 29) % 256);
  Buf<int8_t> w({m, c, 3, 3});
  for (size_t i = 0; i < w.data.size(); ++i) w.data[i] = static_cast<int8_t>((i * 71) % 255 - 127);
  Buf<float> xs({}, {0.02f}), ws({m}, {0.003f, 0.004f, 0.005f, 0.006f}), ys({}, {0.05f});
  Buf<uint8_t> xz({}, {128}), yz({}, {100});
  Buf<int8_t> wz({m}, {0, 0, 0, 0});
  Buf<int32_t> bias({m}, {100, -200, 300, -400});
  Buf<uint8_t> y({1, m, 5, 5});
  ConvParams p;
  p.pads_begin[0] = p.pads_begin[1] = p.pads_end[0] = p.pads_end[1] = 1;
  TensorView xsv = xs.view(), wsv = ws.view(), ysv = ys.view(), xzv = xz.view(), wzv = wz.view();
  TensorView yzv = yz.view(), bv = bias.view();
  ASSERT_TRUE(
      QLinearConv(p, x.view(), {&xsv, &xzv}, w.view(), {&wsv, &wzv}, {&ysv, &yzv}, &bv, y.view())
          .ok());
  // Float pipeline: integer accumulation (ConvInteger) + bias, then acc * multiplier rounded.
  Buf<int32_t> acc({1, m, 5, 5});
  ASSERT_TRUE(ConvInteger(p, x.view(), w.view(), &xzv, &wzv, acc.view()).ok());
  int saturated = 0;
  for (size_t i = 0; i < y.data.size(); ++i) {
    const int64_t oc = static_cast<int64_t>(i / 25);
    const float mult = xs.data[0] * ws.data[oc] / ys.data[0];
    const float v = RoundHalfToEven(static_cast<float>(acc.data[i] + bias.data[oc]) * mult) + 100;
    const float clamped = std::fmin(255.0f, std::fmax(0.0f, v));
    saturated += clamped != v;
    EXPECT_EQ(y.data[i], static_cast<uint8_t>(clamped)) << i;
  }
  EXPECT_LT(saturated, static_cast<int>(y.data.size()));  // the data exercises the unsaturated path
}

TEST(QLinearConv, RejectsWrongScaleCount) {
  Buf<uint8_t> x({1, 1, 2, 2}), w({2, 1, 1, 1}), y({1, 2, 2, 2});
  Scalars q;
  Buf<float> ws({3}, {1, 1, 1});
  TensorView wsv = ws.view();
  Status s = QLinearConv(ConvParams(), x.view(), {&q.xsv, &q.xzv}, w.view(), {&wsv, &q.wzv},
                         {&q.ysv, &q.yzv}, nullptr, y.view());
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("w_scale"), std::string::npos) << s.message();
}

}  // namespace
}  // namespace loom::kernels
