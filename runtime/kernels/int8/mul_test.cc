// Mul: against the formula on plain layouts (same shape and per-channel b, with and without the
// clamp of b), padding lanes kept zero, and the parameter checks.
#include <gtest/gtest.h>

#include <algorithm>

#include "runtime/kernels/int8/qops.h"
#include "runtime/kernels/int8/test_util.h"

namespace loom::kernels::q {
namespace {

using testing::Elems;
using testing::RandomI8;

// ShrRnd for shift >= 0, exact in 64 bits: floor(v / 2^s + 1/2).
int64_t RoundShift(int64_t v, int32_t s) {
  if (s <= 0) return v;
  const int64_t d = int64_t{1} << s, t = v + d / 2;
  return t >= 0 ? t / d : -((-t + d - 1) / d);
}

void RunCase(const Blocking& b, const MulParams& p, uint32_t seed) {
  const ActShape bs = p.b_per_channel ? ActShape{p.shape.n, p.shape.c, 1, 1} : p.shape;
  const auto a = RandomI8(Elems(p.shape), seed), c = RandomI8(Elems(bs), seed + 1);
  std::vector<int8_t> want(a.size());
  const size_t hw = size_t{p.shape.h} * p.shape.w;
  for (size_t i = 0; i < a.size(); ++i) {
    const int64_t bv = c[p.b_per_channel ? i / hw : i];
    const int64_t t =
        std::min<int64_t>(std::max<int64_t>(bv * p.b_mult + p.b_offset, p.b_lo), p.b_hi);
    int64_t v =
        RoundShift(RoundShift((a[i] + p.a_offset) * t, p.rq.pre_shift) * p.mult, p.rq.post_shift) +
        p.out_offset;
    v = std::min<int64_t>(std::max<int64_t>(v, p.rq.clip_lo), p.rq.clip_hi);
    want[i] = static_cast<int8_t>(v);
  }
  const auto ab = testing::Pack(b, p.shape, a), cb = testing::Pack(b, bs, c);
  std::vector<int8_t> yb(ab.size(), 0x44);
  ASSERT_TRUE(Mul(b, p, ab.data(), cb.data(), yb.data()).ok());
  EXPECT_TRUE(testing::PaddingIsZero(b, p.shape, yb));
  EXPECT_EQ(testing::Unpack(b, p.shape, yb), want);
}

TEST(Mul, SameShapeMatchesPlainFormula) {
  MulParams p;
  p.shape = {3, 21, 4, 3};
  p.mult = 23000;
  p.rq.post_shift = 21;
  uint32_t seed = 1;
  for (const Blocking& b : testing::TestBlockings()) RunCase(b, p, seed += 2);
}

TEST(Mul, PerChannelMatchesPlainFormula) {
  MulParams p;
  p.shape = {2, 19, 5, 3};
  p.b_per_channel = true;
  p.mult = -17000;
  p.rq.post_shift = 20;
  p.rq.clip_lo = 0;  // a fused ReLU
  uint32_t seed = 20;
  for (const Blocking& b : testing::TestBlockings()) RunCase(b, p, seed += 2);
}

TEST(Mul, HardSigmoidClampOfB) {
  MulParams p;
  p.shape = {1, 7, 6, 6};
  p.b_offset = 3000;  // 3 / s_b with a small s_b: t reaches the 16-bit bounds of the clamp
  p.b_lo = 0;
  p.b_hi = 6000;
  p.mult = 32767;
  p.rq.pre_shift = 6;
  p.rq.post_shift = 25;
  RunCase(Blocking{1, 16}, p, 40);
  p.b_per_channel = true;
  p.b_mult = 300;  // a finer gate: steps of 1/300 of the clamp's unit
  p.b_offset = -20;
  p.b_lo = -5;
  p.b_hi = 30;
  RunCase(Blocking{2, 4}, p, 41);
}

// Zero points: a's is subtracted before the product, the output's added before the clamp.
TEST(Mul, OffsetsOfAsymmetricOperands) {
  MulParams p;
  p.shape = {2, 19, 3, 3};
  p.b_offset = 128;  // b with zero point -128, read as b - z
  p.b_lo = 0;
  p.b_hi = 255;
  p.a_offset = 128;
  p.out_offset = -128;
  p.mult = 30000;
  p.rq.pre_shift = 1;
  p.rq.post_shift = 22;
  p.rq.clip_lo = -128;
  uint32_t seed = 60;
  for (const Blocking& b : testing::TestBlockings()) RunCase(b, p, seed += 2);
  p.b_per_channel = true;
  p.a_offset = -255;
  p.out_offset = 255;
  p.rq.clip_lo = 0;
  RunCase(Blocking{2, 8}, p, 70);
}

TEST(Mul, WideProductsWrapAsTheAlu) {
  // Without a pre-shift, |a * t| * mult can pass 2^31: the kernel wraps like the ALU's MUL.
  MulParams p;
  p.shape = {1, 3, 2, 2};
  p.b_offset = 32767;
  p.b_lo = -32768;
  p.b_hi = 32767;
  p.mult = 32767;
  p.rq.post_shift = 31;
  const Blocking b{1, 4};
  std::vector<int8_t> y(16);
  const auto ab = testing::Pack(b, p.shape, std::vector<int8_t>(12, -128));
  const auto cb = testing::Pack(b, p.shape, std::vector<int8_t>(12, 127));
  ASSERT_TRUE(Mul(b, p, ab.data(), cb.data(), y.data()).ok());
  const int32_t wrapped = WrapMul(-128 * 32767, 32767);
  EXPECT_EQ(y[0], Saturate8(ShrRnd(wrapped, 31)));
}

TEST(Mul, BadParameters) {
  const Blocking b{1, 4};
  MulParams p;
  p.shape = {1, 4, 2, 2};
  std::vector<int8_t> a(16), c(16), y(16);
  MulParams q = p;
  q.mult = 32768;
  Status st = Mul(b, q, a.data(), c.data(), y.data());
  EXPECT_NE(st.message().find("32768"), std::string::npos) << st.message();
  q = p;
  q.b_mult = -32769;
  EXPECT_FALSE(Mul(b, q, a.data(), c.data(), y.data()).ok());
  q = p;
  q.b_lo = 5;
  q.b_hi = 4;
  EXPECT_NE(Mul(b, q, a.data(), c.data(), y.data()).message().find("empty"), std::string::npos);
  q = p;
  q.rq.post_shift = 32;
  EXPECT_NE(Mul(b, q, a.data(), c.data(), y.data()).message().find("post_shift"),
            std::string::npos);
  q = p;
  q.rq.clip_hi = 128;
  EXPECT_FALSE(Mul(b, q, a.data(), c.data(), y.data()).ok());
  q = p;
  q.a_offset = 256;
  EXPECT_NE(Mul(b, q, a.data(), c.data(), y.data()).message().find("a_offset 256"),
            std::string::npos);
  q = p;
  q.out_offset = -256;
  EXPECT_FALSE(Mul(b, q, a.data(), c.data(), y.data()).ok());
  EXPECT_NE(Mul(b, p, a.data(), c.data(), a.data()).message().find("overlap"), std::string::npos);
  EXPECT_FALSE(Mul(b, p, a.data(), nullptr, y.data()).ok());
  EXPECT_TRUE(Mul(b, p, a.data(), c.data(), y.data()).ok());
}

}  // namespace
}  // namespace loom::kernels::q
