// The ALU arithmetic against exact rational references and hand-checked values, the blocked index
// against the layout formula in qops.h, the packers, and their parameter checks.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>

#include "runtime/kernels/int8/qops.h"
#include "runtime/kernels/int8/test_util.h"

namespace loom::kernels::q {
namespace {

using testing::Elems;
using testing::RandomI8;

constexpr int32_t kMin = std::numeric_limits<int32_t>::min();
constexpr int32_t kMax = std::numeric_limits<int32_t>::max();

TEST(ShrRnd, HandValues) {
  EXPECT_EQ(ShrRnd(5, 1), 3);     // 2.5 rounds up
  EXPECT_EQ(ShrRnd(-5, 1), -2);   // -2.5 rounds up (half up, not away from zero)
  EXPECT_EQ(ShrRnd(-6, 2), -1);   // -1.5 -> -1
  EXPECT_EQ(ShrRnd(7, 0), 7);
  EXPECT_EQ(ShrRnd(kMax, 1), 1073741824);  // no overflow in a + 2^(n-1)
  EXPECT_EQ(ShrRnd(kMax, 31), 1);
  EXPECT_EQ(ShrRnd(kMin, 31), -1);
  EXPECT_EQ(ShrRnd(kMin + 1, 31), -1);
  EXPECT_EQ(ShrRnd(1, 40), 0);     // clamped to 31
  EXPECT_EQ(ShrRnd(1, -31), kMin);  // wrapping left shift
  EXPECT_EQ(ShrRnd(3, -31), kMin);
  EXPECT_EQ(ShrRnd(3, -40), kMin);  // clamped to -31
  EXPECT_EQ(ShrRnd(-3, -2), -12);
  EXPECT_EQ(ShrRnd(0x40000000, -1), kMin);
}

TEST(ShrRnd, MatchesExactRoundingHalfUp) {
  std::mt19937 rng(7);
  std::uniform_int_distribution<int32_t> d(kMin, kMax);
  for (int i = 0; i < 20000; ++i) {
    const int32_t a = d(rng);
    const int32_t n = 1 + i % 31;
    // long double holds every int32 / 2^n exactly.
    const long double q = std::floor(static_cast<long double>(a) / std::ldexp(1.0L, n) + 0.5L);
    ASSERT_EQ(ShrRnd(a, n), static_cast<int32_t>(q)) << a << " >> " << n;
  }
}

TEST(WrapMul, LowBitsOfTheProduct) {
  EXPECT_EQ(WrapMul(3, -4), -12);
  EXPECT_EQ(WrapMul(65536, 65536), 0);          // 2^32 wraps to 0
  EXPECT_EQ(WrapMul(65536, 32768), kMin);       // 2^31 wraps to -2^31
  EXPECT_EQ(WrapMul(kMin, -1), kMin);
  EXPECT_EQ(WrapMul(kMax, kMax), 1);            // (2^31-1)^2 = 2^62 - 2^32 + 1
  EXPECT_EQ(WrapMul(kMax, 2), -2);
}

TEST(Requantize, FourStepsAndClip) {
  Requant rq;
  rq.pre_shift = 2;
  rq.post_shift = 8;
  // ShrRnd(1000, 2) = 250; 250 * 300 = 75000; ShrRnd(75000, 8) = 292.97 -> 293; saturates to 127.
  EXPECT_EQ(Requantize(1000, 300, rq), 127);
  EXPECT_EQ(Requantize(-1000, 300, rq), -128);
  EXPECT_EQ(Requantize(100, 300, rq), 29);  // 25 * 300 = 7500 / 256 = 29.3
  rq.clip_lo = 0;
  rq.clip_hi = 20;
  EXPECT_EQ(Requantize(100, 300, rq), 20);
  EXPECT_EQ(Requantize(-100, 300, rq), 0);
  // A product that wraps (as the hardware does): 2^20 * 2^12 = 2^32 -> 0.
  Requant plain;
  EXPECT_EQ(Requantize(1 << 20, 1 << 12, plain), 0);
}

TEST(Layout, BlockedIndexFollowsTheFormula) {
  const Blocking b{2, 4};
  const ActShape s{3, 6, 2, 5};  // N/B = 2 blocks, C/c = 2 blocks
  EXPECT_EQ(BlockedBytes(b, s), size_t{2 * 2 * 2 * 5 * 2 * 4});
  // (n=2, c=5, h=1, w=3): nb 1 bi 0, cb 1 ci 1.
  EXPECT_EQ(BlockedIndex(b, s, 2, 5, 1, 3), size_t{((((1 * 2 + 1) * 2 + 1) * 5 + 3) * 2 + 0) * 4 + 1});
  EXPECT_EQ(ChannelVectorElems(b, 6), size_t{2 * 2 * 4});
  EXPECT_EQ(ChannelVectorElems(Blocking{1, 16}, 17), size_t{32});
}

// Sizes past size_t used to wrap to a small number the packers then memset; now they are SIZE_MAX
// and every packer refuses them before touching memory.
TEST(Layout, SizesThatOverflowAreRefused) {
  const uint32_t big = 0xffffffffu;
  const Blocking b{1, 16};
  EXPECT_EQ(BlockedBytes(b, ActShape{big, big, big, big}), SIZE_MAX);
  EXPECT_EQ(ConvWeightBytes(b, big, big, big, big), SIZE_MAX);
  EXPECT_EQ(DepthwiseWeightBytes(b, big, big, big), SIZE_MAX);
  int8_t byte = 0;
  int8_t other = 0;
  Status s = PackActivation(b, ActShape{big, big, big, big}, &byte, &other);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("PackActivation: the size overflows size_t"), std::string::npos)
      << s.message();
  s = UnpackActivation(b, ActShape{big, big, big, big}, &byte, &other);
  EXPECT_NE(s.message().find("UnpackActivation: the size overflows size_t"), std::string::npos)
      << s.message();
  s = PackConvWeights(b, big, big, big, big, &byte, &other);
  EXPECT_NE(s.message().find("PackConvWeights: the size overflows size_t"), std::string::npos)
      << s.message();
  s = PackDepthwiseWeights(b, big, big, big, &byte, &other);
  EXPECT_NE(s.message().find("PackDepthwiseWeights: the size overflows size_t"), std::string::npos)
      << s.message();
}

TEST(Layout, PackUnpackRoundTripZeroesPadding) {
  for (const Blocking& b : testing::TestBlockings()) {
    const ActShape s{3, 19, 3, 2};
    const auto plain = RandomI8(Elems(s), 1);
    const auto blk = testing::Pack(b, s, plain);
    EXPECT_TRUE(testing::PaddingIsZero(b, s, blk));
    for (uint32_t n = 0; n < s.n; ++n)
      for (uint32_t c = 0; c < s.c; ++c)
        EXPECT_EQ(blk[BlockedIndex(b, s, n, c, 2, 1)], plain[((n * s.c + c) * s.h + 2) * s.w + 1]);
    EXPECT_EQ(testing::Unpack(b, s, blk), plain);
  }
}

TEST(Layout, PackConvWeights) {
  const Blocking b{1, 4};
  const uint32_t O = 5, C = 6, KH = 3, KW = 2;
  const auto w = RandomI8(O * C * KH * KW, 2);
  std::vector<int8_t> out(ConvWeightBytes(b, O, C, KH, KW), 0x11);
  ASSERT_EQ(out.size(), size_t{2 * 2 * 3 * 2 * 4 * 4});
  ASSERT_TRUE(PackConvWeights(b, O, C, KH, KW, w.data(), out.data()).ok());
  size_t nonpad = 0;
  for (uint32_t ob = 0; ob < 2; ++ob)
    for (uint32_t ib = 0; ib < 2; ++ib)
      for (uint32_t y = 0; y < KH; ++y)
        for (uint32_t x = 0; x < KW; ++x)
          for (uint32_t o = 0; o < 4; ++o)
            for (uint32_t i = 0; i < 4; ++i) {
              const size_t at = (((((ob * 2 + ib) * KH + y) * KW + x) * 4 + o) * 4) + i;
              const uint32_t oo = ob * 4 + o, ii = ib * 4 + i;
              if (oo < O && ii < C) {
                ++nonpad;
                EXPECT_EQ(out[at], w[((oo * C + ii) * KH + y) * KW + x]);
              } else {
                EXPECT_EQ(out[at], 0);
              }
            }
  EXPECT_EQ(nonpad, w.size());
}

TEST(Layout, PackDepthwiseAndChannelVector) {
  const Blocking b{3, 4};
  const auto w = RandomI8(6 * 2 * 2, 3);
  std::vector<int8_t> dw(DepthwiseWeightBytes(b, 6, 2, 2), 0x11);
  ASSERT_EQ(dw.size(), size_t{2 * 2 * 2 * 4});
  ASSERT_TRUE(PackDepthwiseWeights(b, 6, 2, 2, w.data(), dw.data()).ok());
  for (uint32_t c = 0; c < 8; ++c)
    for (uint32_t y = 0; y < 2; ++y)
      for (uint32_t x = 0; x < 2; ++x)
        EXPECT_EQ(dw[(((c / 4) * 2 + y) * 2 + x) * 4 + c % 4], c < 6 ? w[(c * 2 + y) * 2 + x] : 0);

  const std::vector<int32_t> v{10, -20, 30, 40, 50};
  std::vector<int32_t> pv(ChannelVectorElems(b, 5), 99);
  ASSERT_TRUE(PackChannelVector(b, 5, v.data(), pv.data()).ok());
  for (uint32_t c = 0; c < 8; ++c)
    for (uint32_t bi = 0; bi < 3; ++bi)
      EXPECT_EQ(pv[((c / 4) * 3 + bi) * 4 + c % 4], c < 5 ? v[c] : 0);
}

TEST(Layout, BadParameters) {
  std::vector<int8_t> a(64), z(64);
  const ActShape s{1, 2, 2, 2};
  Status st = PackActivation(Blocking{1, 0}, s, a.data(), z.data());
  EXPECT_FALSE(st.ok());
  EXPECT_NE(st.message().find("block"), std::string::npos) << st.message();
  st = PackActivation(Blocking{1, 4}, ActShape{1, 0, 2, 2}, a.data(), z.data());
  EXPECT_NE(st.message().find("zero dimension"), std::string::npos) << st.message();
  st = PackActivation(Blocking{1, 4}, s, a.data(), a.data() + 2);
  EXPECT_NE(st.message().find("overlap"), std::string::npos) << st.message();
  EXPECT_FALSE(UnpackActivation(Blocking{1, 4}, s, nullptr, z.data()).ok());
  EXPECT_FALSE(PackConvWeights(Blocking{1, 4}, 0, 1, 1, 1, a.data(), z.data()).ok());
  EXPECT_FALSE(PackDepthwiseWeights(Blocking{1, 4}, 2, 0, 1, a.data(), z.data()).ok());
  std::vector<int32_t> v(16);
  EXPECT_FALSE(PackChannelVector(Blocking{1, 4}, 0, v.data(), v.data() + 8).ok());
  EXPECT_FALSE(PackChannelVector(Blocking{1, 4}, 4, v.data(), v.data() + 2).ok());
}

}  // namespace
}  // namespace loom::kernels::q
