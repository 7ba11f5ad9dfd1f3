// fast::Mul on every path this CPU runs against the reference Mul, byte for byte: random shapes
// and blockings (channels that do and do not fill their blocks, batch blocks past n, B x c lanes
// below, at and past 16), same-shape and per-channel b, every parameter over its whole range
// (shifts over [-31, 31], so products wrap), -128 / 127 with the multipliers, clamps and offsets
// at their bounds, garbage in the inputs' padding lanes, and the reference's refusals.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "runtime/kernels/int8/fast/fast.h"
#include "runtime/kernels/int8/fast/test_paths.h"
#include "runtime/kernels/int8/qops.h"
#include "runtime/kernels/int8/test_util.h"

namespace loom::kernels::q::fast {
namespace {

ActShape BShape(const MulParams& p) {
  return p.b_per_channel ? ActShape{p.shape.n, p.shape.c, 1, 1} : p.shape;
}

std::string Describe(const Blocking& b, const MulParams& p) {
  auto s = [](int64_t v) { return std::to_string(v); };
  return "blocking " + s(b.batch) + "x" + s(b.block) + ", " + s(p.shape.n) + "x" + s(p.shape.c) +
         "x" + s(p.shape.h) + "x" + s(p.shape.w) + (p.b_per_channel ? " per-channel" : "") +
         ", t = clamp(b * " + s(p.b_mult) + " + " + s(p.b_offset) + ", " + s(p.b_lo) + ", " +
         s(p.b_hi) + "), a_offset " + s(p.a_offset) + ", mult " + s(p.mult) + ", shifts " +
         s(p.rq.pre_shift) + "/" + s(p.rq.post_shift) + ", out_offset " + s(p.out_offset) +
         ", clip [" + s(p.rq.clip_lo) + ", " + s(p.rq.clip_hi) + "]";
}

void ExpectSameBytes(const Blocking& b, const MulParams& p, const std::vector<int8_t>& x,
                     const std::vector<int8_t>& y) {
  SCOPED_TRACE(Describe(b, p));
  const size_t bytes = BlockedBytes(b, p.shape);
  std::vector<int8_t> want(bytes, 0x11);
  ASSERT_TRUE(q::Mul(b, p, x.data(), y.data(), want.data()).ok());
  for (KernelPath path : Paths()) {
    std::vector<int8_t> got(bytes, 0x22);
    const Status st = Mul(path, b, p, x.data(), y.data(), got.data());
    ASSERT_TRUE(st.ok()) << PathName(path) << ": " << st.ToString();
    ASSERT_EQ(got, want) << PathName(path);
  }
}

// Random blocked bytes, padding lanes included (the output's must still be 0).
std::vector<int8_t> RandomBlocked(const Blocking& b, const ActShape& s, uint32_t seed) {
  return testing::RandomI8(BlockedBytes(b, s), seed);
}

MulParams RandomParams(std::mt19937& rng) {
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  auto u = [&](int lo, int hi) { return static_cast<uint32_t>(pick(lo, hi)); };
  MulParams p;
  p.shape = {u(1, 4), u(1, 70), u(1, 9), u(1, 9)};
  p.b_per_channel = pick(0, 1) == 1;
  p.b_mult = pick(-32768, 32767);
  p.b_offset = pick(-32768, 32767);
  p.b_lo = pick(-32768, 32767);
  p.b_hi = pick(p.b_lo, 32767);
  p.mult = pick(-32768, 32767);
  p.a_offset = pick(-255, 255);
  p.out_offset = pick(-255, 255);
  p.rq.pre_shift = pick(-31, 31);
  p.rq.post_shift = pick(-31, 31);
  p.rq.clip_lo = pick(-128, 20);
  p.rq.clip_hi = pick(p.rq.clip_lo, 127);
  return p;
}

TEST(FastMul, RandomShapesAndParameters) {
  std::mt19937 rng(31);
  const Blocking blockings[] = {{1, 16}, {1, 32}, {1, 64}, {1, 8},  {2, 16}, {3, 64}, {1, 1},
                                {2, 4},  {1, 12}, {4, 8},  {1, 48}, {3, 8},  {2, 32}};
  for (int t = 0; t < 260; ++t) {
    const Blocking b = blockings[t % (sizeof(blockings) / sizeof(blockings[0]))];
    MulParams p = RandomParams(rng);
    if (t % 3 == 0) {  // shifts the quantizer picks, so that results are not all clipped
      p.rq.pre_shift = std::uniform_int_distribution<int>(0, 4)(rng);
      p.rq.post_shift = std::uniform_int_distribution<int>(14, 24)(rng);
    }
    ExpectSameBytes(b, p, RandomBlocked(b, p.shape, 400 + t), RandomBlocked(b, BShape(p), 800 + t));
  }
}

// A hard-swish (a = b, t = clamp(b * b_mult + b_offset, 0, U)) and a squeeze-excitation scale
// (per-channel b) on a MobileNet-sized tensor.
TEST(FastMul, HardSwishAndSqueezeExcitation) {
  MulParams p;
  p.shape = {1, 72, 28, 28};
  p.b_mult = 2731;
  p.b_offset = 24576;
  p.b_lo = 0;
  p.b_hi = 32767;
  p.mult = 21845;
  p.rq.pre_shift = 2;
  p.rq.post_shift = 27;
  for (const Blocking& b : {Blocking{1, 16}, Blocking{1, 32}, Blocking{1, 8}, Blocking{2, 16}}) {
    const auto x = RandomBlocked(b, p.shape, 7);
    ExpectSameBytes(b, p, x, x);
  }
  p.b_per_channel = true;
  p.b_mult = 1;
  p.b_offset = 128;
  p.b_lo = -32768;
  p.b_hi = 32767;
  p.a_offset = 0;
  p.rq.pre_shift = 0;
  p.rq.post_shift = 8;
  for (const Blocking& b : {Blocking{1, 16}, Blocking{1, 32}, Blocking{1, 8}, Blocking{2, 16}}) {
    ExpectSameBytes(b, p, RandomBlocked(b, p.shape, 8), RandomBlocked(b, BShape(p), 9));
  }
}

TEST(FastMul, WorstCaseValues) {
  MulParams p;
  p.shape = {2, 40, 3, 5};
  p.b_lo = -32768;
  p.b_hi = 32767;
  int round = 0;
  // Blocks 16, 8 and 32, batch blocks past n, and 12 lanes a position (runs of 180 bytes: a
  // 4-byte tail, and a per-channel b repeated to 48 bytes).
  for (const Blocking& b : {Blocking{1, 16}, Blocking{2, 8}, Blocking{1, 32}, Blocking{3, 4}}) {
    for (bool per_channel : {false, true}) {
      p.b_per_channel = per_channel;
      for (int8_t va : {int8_t{-128}, int8_t{127}}) {
        for (int8_t vb : {int8_t{-128}, int8_t{127}}) {
          for (int32_t m : {-32768, 32767}) {
            for (int32_t off : {-255, 255}) {
              for (int32_t shift : {-31, -1, 0, 1, 2, 23, 31}) {
                p.b_mult = m;
                p.b_offset = ++round % 2 ? 32767 : -32768;
                p.mult = -m - 1;
                p.a_offset = off;
                p.out_offset = -off;
                p.rq.pre_shift = shift;
                p.rq.post_shift = 31 - (round % 33);
                p.rq.clip_lo = round % 3 ? -128 : 0;
                p.rq.clip_hi = round % 5 ? 127 : 6;
                ExpectSameBytes(b, p, std::vector<int8_t>(BlockedBytes(b, p.shape), va),
                                std::vector<int8_t>(BlockedBytes(b, BShape(p)), vb));
              }
            }
          }
        }
      }
    }
  }
}

TEST(FastMul, RefusesWhatTheReferenceRefuses) {
  const Blocking b{1, 16};
  MulParams p;
  p.shape = {1, 16, 2, 2};
  std::vector<int8_t> x(64), y(64), out(64);
  std::vector<MulParams> bad(7, p);
  bad[0].mult = 32768;
  bad[1].b_mult = -32769;
  bad[2].b_lo = 5;
  bad[2].b_hi = 4;
  bad[3].rq.post_shift = 32;
  bad[4].rq.clip_hi = 128;
  bad[5].a_offset = 256;
  bad[6].shape.c = 0;
  for (KernelPath path : Paths()) {
    ASSERT_TRUE(Mul(path, b, p, x.data(), y.data(), out.data()).ok()) << PathName(path);
    for (const MulParams& q : bad) {
      const Status want = q::Mul(b, q, x.data(), y.data(), out.data());
      ASSERT_FALSE(want.ok());
      EXPECT_EQ(Mul(path, b, q, x.data(), y.data(), out.data()).ToString(), want.ToString())
          << PathName(path);
    }
    EXPECT_EQ(Mul(path, b, p, x.data(), y.data(), x.data()).ToString(),
              q::Mul(b, p, x.data(), y.data(), x.data()).ToString())
        << PathName(path);
    EXPECT_FALSE(Mul(path, b, p, x.data(), nullptr, out.data()).ok()) << PathName(path);
  }
}

}  // namespace
}  // namespace loom::kernels::q::fast
