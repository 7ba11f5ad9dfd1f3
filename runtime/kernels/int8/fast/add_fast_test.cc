// fast::Add on every path this CPU runs against the reference Add, byte for byte: random shapes
// and blockings (channels that do and do not fill their blocks, batch blocks past n, runs that
// leave a tail past the last 16 lanes), shifts over [-31, 31], clips, multipliers at the ends of
// the 16-bit range with -128 / 127 everywhere, and the reference's refusals.
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

void ExpectSameBytes(const Blocking& b, const AddParams& p, const std::vector<int8_t>& x,
                     const std::vector<int8_t>& y) {
  SCOPED_TRACE("blocking " + std::to_string(b.batch) + "x" + std::to_string(b.block) + ", " +
               std::to_string(p.shape.n) + "x" + std::to_string(p.shape.c) + "x" +
               std::to_string(p.shape.h) + "x" + std::to_string(p.shape.w) + ", mult " +
               std::to_string(p.mult_a) + "/" + std::to_string(p.mult_b) + ", shift " +
               std::to_string(p.shift) + ", clip [" + std::to_string(p.clip_lo) + ", " +
               std::to_string(p.clip_hi) + "]");
  const size_t bytes = BlockedBytes(b, p.shape);
  std::vector<int8_t> want(bytes, 0x11);
  ASSERT_TRUE(q::Add(b, p, x.data(), y.data(), want.data()).ok());
  for (KernelPath path : Paths()) {
    std::vector<int8_t> got(bytes, 0x22);
    ASSERT_TRUE(Add(path, b, p, x.data(), y.data(), got.data()).ok()) << PathName(path);
    ASSERT_EQ(got, want) << PathName(path);
  }
}

TEST(FastAdd, RandomShapesAndParameters) {
  std::mt19937 rng(11);
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  const uint32_t blocks[] = {1, 4, 8, 16, 32, 64};
  for (int t = 0; t < 150; ++t) {
    Blocking b;
    b.batch = static_cast<uint32_t>(pick(1, 3));
    b.block = blocks[pick(0, 5)];
    AddParams p;
    p.shape = {static_cast<uint32_t>(pick(1, 4)), static_cast<uint32_t>(pick(1, 70)),
               static_cast<uint32_t>(pick(1, 9)), static_cast<uint32_t>(pick(1, 9))};
    p.mult_a = pick(-32768, 32767);
    p.mult_b = pick(-32768, 32767);
    p.shift = pick(-31, 31);
    p.clip_lo = pick(-128, 20);
    p.clip_hi = pick(p.clip_lo, 127);
    const size_t bytes = BlockedBytes(b, p.shape);
    ExpectSameBytes(b, p, testing::RandomI8(bytes, 100 + t), testing::RandomI8(bytes, 200 + t));
  }
}

// -128 / 127 with the multipliers at the ends of their range, alike and opposite, under blocks 16,
// 8 and 32, batch blocks past n, and 12 lanes a position (runs of 420 bytes: a 4-byte tail).
TEST(FastAdd, WorstCaseValues) {
  AddParams p;
  p.shape = {2, 48, 5, 7};
  int round = 0;
  for (const Blocking& b :
       {Blocking{1, 16}, Blocking{1, 8}, Blocking{1, 32}, Blocking{3, 16}, Blocking{3, 4}}) {
    const size_t bytes = BlockedBytes(b, p.shape);
    for (int8_t va : {int8_t{-128}, int8_t{127}}) {
      for (int8_t vb : {int8_t{-128}, int8_t{127}}) {
        for (int32_t ma : {-32768, 32767}) {
          for (int32_t mb : {-32768, 32767}) {
            for (int32_t shift : {-31, -1, 0, 1, 15, 22, 23, 31}) {
              p.mult_a = ma;
              p.mult_b = mb;
              p.shift = shift;
              p.clip_lo = ++round % 3 ? -128 : 0;
              p.clip_hi = round % 5 ? 127 : 6;
              ExpectSameBytes(b, p, std::vector<int8_t>(bytes, va), std::vector<int8_t>(bytes, vb));
            }
          }
        }
      }
    }
  }
}

TEST(FastAdd, RefusesWhatTheReferenceRefuses) {
  Blocking b;
  b.batch = 1;
  b.block = 16;
  AddParams p;
  p.shape = {1, 16, 2, 2};
  std::vector<int8_t> x(64), y(64), out(64);
  for (KernelPath path : Paths()) {
    AddParams bad = p;
    bad.mult_a = 40000;
    EXPECT_NE(Add(path, b, bad, x.data(), y.data(), out.data()).ToString().find("multiplier"),
              std::string::npos)
        << PathName(path);
    bad = p;
    bad.shift = 32;
    EXPECT_FALSE(Add(path, b, bad, x.data(), y.data(), out.data()).ok()) << PathName(path);
    EXPECT_FALSE(Add(path, b, p, x.data(), y.data(), x.data()).ok()) << PathName(path);
    EXPECT_FALSE(Add(path, b, p, nullptr, y.data(), out.data()).ok()) << PathName(path);
  }
}

}  // namespace
}  // namespace loom::kernels::q::fast
