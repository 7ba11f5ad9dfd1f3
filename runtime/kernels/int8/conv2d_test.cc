// Conv2d: pack -> kernel -> unpack against a plain NCHW loop, over blockings that do and do not
// divide the channel counts, batch blocks, asymmetric pads and strides, depthwise, no bias,
// wrapping requantization, clips, a pad value (the input's zero point); and the parameter checks.
#include <gtest/gtest.h>

#include "runtime/kernels/int8/bodies.h"
#include "runtime/kernels/int8/qops.h"
#include "runtime/kernels/int8/test_util.h"

namespace loom::kernels::q {
namespace {

using testing::Elems;
using testing::RandomI32;
using testing::RandomI8;

// The definition in qops.h, on logical layouts, accumulating in int64 and wrapping to int32.
std::vector<int8_t> Reference(const Conv2dParams& p, const std::vector<int8_t>& x,
                              const std::vector<int8_t>& w, const int32_t* bias,
                              const std::vector<int32_t>& mult) {
  const ActShape os = p.out();
  std::vector<int8_t> y(Elems(os));
  const uint32_t wc = p.depthwise ? 1 : p.GroupChannels();
  for (uint32_t n = 0; n < os.n; ++n)
    for (uint32_t o = 0; o < os.c; ++o)
      for (uint32_t oy = 0; oy < os.h; ++oy)
        for (uint32_t ox = 0; ox < os.w; ++ox) {
          int64_t acc = bias ? bias[o] : 0;
          for (uint32_t i = 0; i < wc; ++i) {
            // Depthwise: the output's own channel; grouped: the i-th of its group's channels.
            const uint32_t ic = p.depthwise ? o : o / p.GroupOutChannels() * wc + i;
            for (uint32_t ky = 0; ky < p.kh; ++ky)
              for (uint32_t kx = 0; kx < p.kw; ++kx) {
                const int64_t iy = int64_t{oy} * p.stride_h + ky - p.pad_top;
                const int64_t ix = int64_t{ox} * p.stride_w + kx - p.pad_left;
                const bool out = iy < 0 || ix < 0 || iy >= p.in.h || ix >= p.in.w;
                // A short last group's missing channels read 0, or the pad value in padding.
                const int64_t v = out ? p.pad_value
                                  : ic >= p.in.c
                                      ? 0
                                      : x[((n * p.in.c + ic) * p.in.h + iy) * p.in.w + ix];
                acc += v * w[((o * wc + i) * p.kh + ky) * p.kw + kx];
              }
          }
          const auto acc32 = static_cast<int32_t>(static_cast<uint32_t>(acc));
          y[((n * os.c + o) * os.h + oy) * os.w + ox] = Requantize(acc32, mult[o], p.rq);
        }
  return y;
}

void RunCase(const Blocking& b, const Conv2dParams& p, bool with_bias, uint32_t seed) {
  SCOPED_TRACE("blocking " + std::to_string(b.batch) + "x" + std::to_string(b.block));
  const uint32_t wc = p.depthwise ? 1 : p.GroupChannels();
  const auto x = RandomI8(Elems(p.in), seed);
  const auto w = RandomI8(size_t{p.out_c} * wc * p.kh * p.kw, seed + 1);
  const auto bias = RandomI32(p.out_c, seed + 2, -5000, 5000);
  const auto mult = RandomI32(p.out_c, seed + 3, -(1 << 14), 1 << 14);

  std::vector<int8_t> wp(p.depthwise ? DepthwiseWeightBytes(b, p.in.c, p.kh, p.kw)
                                     : ConvWeightBytes(b, p.out_c, wc, p.kh, p.kw));
  if (p.depthwise) {
    ASSERT_TRUE(PackDepthwiseWeights(b, p.in.c, p.kh, p.kw, w.data(), wp.data()).ok());
  } else {
    ASSERT_TRUE(PackConvWeights(b, p.out_c, wc, p.kh, p.kw, w.data(), wp.data()).ok());
  }
  const auto xb = testing::Pack(b, p.in, x);
  std::vector<int8_t> yb(BlockedBytes(b, p.out()), 0x33);
  const Status st = Conv2d(b, p, xb.data(), wp.data(), with_bias ? bias.data() : nullptr,
                           mult.data(), yb.data());
  ASSERT_TRUE(st.ok()) << st.ToString();
  EXPECT_TRUE(testing::PaddingIsZero(b, p.out(), yb));
  EXPECT_EQ(testing::Unpack(b, p.out(), yb),
            Reference(p, x, w, with_bias ? bias.data() : nullptr, mult));
}

Conv2dParams Base() {
  Conv2dParams p;
  p.in = {3, 19, 7, 6};
  p.out_c = 21;
  p.kh = 3;
  p.kw = 2;
  p.stride_h = 2;
  p.stride_w = 1;
  p.pad_top = 1;
  p.pad_left = 0;
  p.pad_bottom = 2;
  p.pad_right = 1;
  p.rq.pre_shift = 4;
  p.rq.post_shift = 14;
  return p;
}

TEST(Conv2d, MatchesPlainLoop) {
  uint32_t seed = 10;
  for (const Blocking& b : testing::TestBlockings()) {
    RunCase(b, Base(), true, seed++);
    RunCase(b, Base(), false, seed++);
  }
}

// Groups whose channels straddle the blocks (3 of 6 and 7 channels, on every test blocking) and
// groups of whole blocks, with padding read as a pad value.
TEST(Conv2d, GroupedMatchesPlainLoop) {
  uint32_t seed = 30;
  for (const Blocking& b : testing::TestBlockings()) {
    Conv2dParams p = Base();
    p.in.c = 18;
    p.out_c = 21;
    p.groups = 3;
    RunCase(b, p, true, seed++);
    p.pad_value = -77;
    RunCase(b, p, false, seed++);
  }
  Conv2dParams p = Base();
  p.in.c = 32;
  p.out_c = 48;
  p.groups = 4;
  RunCase({1, 8}, p, true, seed++);
  RunCase({2, 4}, p, true, seed++);
  // A short last group: 3 groups of 8 input and 16 output channels over 20 and 40.
  p.in.c = 20;
  p.out_c = 40;
  p.groups = 3;
  p.group_c = 8;
  for (const Blocking& b : testing::TestBlockings()) {
    RunCase(b, p, true, seed++);
    p.pad_value = p.pad_value == 0 ? 9 : 0;
  }
}

TEST(Conv2d, DepthwiseMatchesPlainLoop) {
  uint32_t seed = 50;
  for (const Blocking& b : testing::TestBlockings()) {
    Conv2dParams p = Base();
    p.depthwise = true;
    p.out_c = p.in.c;
    RunCase(b, p, true, seed++);
  }
}

// Padded positions read pad_value in every lane, for plain and depthwise convolutions, on
// blockings with partial channel and batch blocks.
TEST(Conv2d, PadValueIsWhatPaddingReads) {
  uint32_t seed = 90;
  for (int32_t pad : {-128, -77, 127}) {
    for (const Blocking& b : testing::TestBlockings()) {
      Conv2dParams p = Base();
      p.pad_value = pad;
      RunCase(b, p, true, seed++);
      p.depthwise = true;
      p.out_c = p.in.c;
      RunCase(b, p, false, seed++);
    }
  }
}

TEST(Conv2d, DenseAsOneByOneAndClip) {
  Conv2dParams p;
  p.in = {5, 37, 1, 1};
  p.out_c = 10;
  p.rq = {2, 12, 0, 100};  // fused ReLU with a cap
  for (const Blocking& b : testing::TestBlockings()) RunCase(b, p, true, 70);
}

TEST(Conv2d, ShiftExtremesAndWrappingProduct) {
  Conv2dParams p = Base();
  p.rq.pre_shift = -31;  // a wrapping left shift: only the low bit of acc survives
  p.rq.post_shift = 31;
  RunCase(Blocking{1, 16}, p, true, 80);
  p.rq.pre_shift = 0;  // large products wrap in MUL, as on the hardware
  p.rq.post_shift = 0;
  RunCase(Blocking{2, 8}, p, true, 81);
  p.rq.pre_shift = 31;
  p.rq.post_shift = -31;
  RunCase(Blocking{1, 4}, p, true, 82);
}

TEST(Conv2d, BadParameters) {
  const Blocking b{1, 4};
  Conv2dParams p;
  p.in = {1, 4, 4, 4};
  p.out_c = 4;
  p.kh = p.kw = 3;
  std::vector<int8_t> x(BlockedBytes(b, p.in)), w(ConvWeightBytes(b, 4, 4, 3, 3)), y(256);
  std::vector<int32_t> m(4, 1);
  auto run = [&](const Conv2dParams& q) {
    return Conv2d(b, q, x.data(), w.data(), nullptr, m.data(), y.data());
  };
  ASSERT_TRUE(run(p).ok());
  Conv2dParams q = p;
  q.rq.pre_shift = 32;
  EXPECT_NE(run(q).message().find("pre_shift 32"), std::string::npos) << run(q).message();
  q = p;
  q.rq.post_shift = -32;
  EXPECT_NE(run(q).message().find("post_shift"), std::string::npos);
  q = p;
  q.pad_value = 128;
  EXPECT_NE(run(q).message().find("pad_value 128"), std::string::npos) << run(q).message();
  q = p;
  q.rq.clip_lo = 10;
  q.rq.clip_hi = 5;
  EXPECT_NE(run(q).message().find("clip"), std::string::npos);
  q = p;
  q.rq.clip_hi = 128;
  EXPECT_FALSE(run(q).ok());
  q = p;
  q.pad_top = 3;
  EXPECT_NE(run(q).message().find("pads"), std::string::npos);
  q = p;
  q.stride_w = 0;
  EXPECT_NE(run(q).message().find("strides"), std::string::npos);
  q = p;
  q.kh = 7;
  q.pad_top = q.pad_bottom = 1;
  EXPECT_NE(run(q).message().find("larger than the padded input"), std::string::npos);
  q = p;
  q.depthwise = true;
  q.out_c = 3;
  EXPECT_NE(run(q).message().find("depthwise"), std::string::npos);
  q = p;
  q.groups = 3;
  EXPECT_NE(run(q).message().find("groups 3 of 1 input and 1 output channels do not cover the "
                                  "input channels (4) and out_c (4)"),
            std::string::npos)
      << run(q).message();
  q.group_c = 3;  // 3 groups of 3 would cover 4 channels with 2 empty ones
  EXPECT_NE(run(q).message().find("groups 3 of 3 input"), std::string::npos) << run(q).message();
  q.groups = 0;
  EXPECT_NE(run(q).message().find("groups 0"), std::string::npos);
  q = p;
  q.depthwise = true;
  q.groups = 2;
  EXPECT_NE(run(q).message().find("a depthwise convolution has groups 1, not 2"), std::string::npos)
      << run(q).message();
  EXPECT_FALSE(Conv2d(b, p, x.data(), w.data(), nullptr, nullptr, y.data()).ok());
  EXPECT_NE(Conv2d(b, p, x.data(), w.data(), nullptr, m.data(), x.data()).message().find("overlap"),
            std::string::npos);
}

// The body's stack tile bounds the blocking (HwConfig allows up to 64 x 256): the checked kernel
// refuses a larger one, and the code generator leaves such a convolution to it (ConvTileFits).
TEST(Conv2d, BlockingBeyondTheAccumulatorTile) {
  EXPECT_TRUE(internal::ConvTileFits({4, 256}));
  EXPECT_TRUE(internal::ConvTileFits({64, 16}));
  EXPECT_FALSE(internal::ConvTileFits({8, 256}));
  EXPECT_FALSE(internal::ConvTileFits({64, 32}));
  EXPECT_FALSE(internal::ConvTileFits({1, 512}));
  const Blocking b{8, 256};
  Conv2dParams p;
  p.in = {1, 4, 2, 2};
  p.out_c = 4;
  std::vector<int8_t> x(BlockedBytes(b, p.in)), w(ConvWeightBytes(b, 4, 4, 1, 1));
  std::vector<int8_t> y(BlockedBytes(b, p.out()));
  std::vector<int32_t> m(256, 1);
  const Status s = Conv2d(b, p, x.data(), w.data(), nullptr, m.data(), y.data());
  EXPECT_NE(s.message().find("blocking 8x256 exceeds the supported tile"), std::string::npos)
      << s.message();
}

}  // namespace
}  // namespace loom::kernels::q
