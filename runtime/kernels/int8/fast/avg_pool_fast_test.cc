// fast::AvgPool on every path this CPU runs against the reference AvgPool, byte for byte: random
// shapes, windows, strides, pads, blockings (lanes per position from 1 to 192, so the 32-, 16-,
// 8- and 1-lane steps all run), count_include_pad, offsets, shifts and multipliers over their
// whole ranges; global pools (7x7 on 512 channels, and windows past 256 positions, where the
// int16 sums must be widened in time) with -128 and 127 everywhere; 3x3 pools with padding;
// garbage in the input's padding lanes (the output's must still be 0); and the reference's
// refusals.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include "runtime/kernels/int8/fast/fast.h"
#include "runtime/kernels/int8/fast/test_paths.h"
#include "runtime/kernels/int8/qops.h"
#include "runtime/kernels/int8/test_util.h"

namespace loom::kernels::q::fast {
namespace {

std::string Describe(const Blocking& b, const AvgPoolParams& ap) {
  auto s = [](int64_t v) { return std::to_string(v); };
  const PoolParams& p = ap.pool;
  return "blocking " + s(b.batch) + "x" + s(b.block) + ", in " + s(p.in.n) + "x" + s(p.in.c) + "x" +
         s(p.in.h) + "x" + s(p.in.w) + ", window " + s(p.kh) + "x" + s(p.kw) + " stride " +
         s(p.stride_h) + "x" + s(p.stride_w) + " pads " + s(p.pad_top) + "," + s(p.pad_left) + "," +
         s(p.pad_bottom) + "," + s(p.pad_right) +
         (ap.count_include_pad ? " count_include_pad" : "") + ", offsets " + s(ap.x_offset) + "/" +
         s(ap.out_offset) + ", shifts " + s(ap.rq.pre_shift) + "/" + s(ap.rq.post_shift) +
         ", clip [" + s(ap.rq.clip_lo) + ", " + s(ap.rq.clip_hi) + "]";
}

void ExpectSameBytes(const Blocking& b, const AvgPoolParams& p, const std::vector<int32_t>& mults,
                     const std::vector<int8_t>& x) {
  SCOPED_TRACE(Describe(b, p));
  const size_t bytes = BlockedBytes(b, p.pool.out());
  std::vector<int8_t> want(bytes, 0x11);
  ASSERT_TRUE(q::AvgPool(b, p, mults.data(), x.data(), want.data()).ok());
  for (KernelPath path : Paths()) {
    std::vector<int8_t> got(bytes, 0x22);
    const Status st = AvgPool(path, b, p, mults.data(), x.data(), got.data());
    ASSERT_TRUE(st.ok()) << PathName(path) << ": " << st.ToString();
    ASSERT_EQ(got, want) << PathName(path);
  }
}

// Multipliers that make the result round(sum / count) with a post shift of 16.
std::vector<int32_t> DivisorMults(uint32_t entries) {
  std::vector<int32_t> m(entries);
  for (uint32_t k = 1; k <= entries; ++k) m[k - 1] = static_cast<int32_t>((65536 + k / 2) / k);
  return m;
}

AvgPoolParams RandomParams(std::mt19937& rng) {
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  AvgPoolParams ap;
  ap.pool = RandomWindow(rng, 5);
  ap.count_include_pad = pick(0, 1) == 1;
  ap.x_offset = pick(-255, 255);
  ap.out_offset = pick(-255, 255);
  ap.rq.pre_shift = pick(-31, 31);
  ap.rq.post_shift = pick(-31, 31);
  ap.rq.clip_lo = pick(-128, 20);
  ap.rq.clip_hi = pick(ap.rq.clip_lo, 127);
  return ap;
}

const Blocking kBlockings[] = {{1, 16}, {1, 32}, {1, 64}, {1, 8},  {2, 16}, {3, 64}, {1, 1},
                               {2, 4},  {1, 12}, {4, 8},  {1, 48}, {1, 24}, {3, 8}};

TEST(FastAvgPool, RandomShapesWindowsAndParameters) {
  std::mt19937 rng(51);
  for (int t = 0; t < 220; ++t) {
    const Blocking b = kBlockings[t % (sizeof(kBlockings) / sizeof(kBlockings[0]))];
    AvgPoolParams p = RandomParams(rng);
    const uint32_t entries = p.pool.kh * p.pool.kw;
    std::vector<int32_t> mults;
    if (t % 2 == 0) {  // what the quantizer makes: round(sum / count)
      mults = DivisorMults(entries);
      p.rq.pre_shift = 0;
      p.rq.post_shift = 16;
    } else {  // anything: every multiplier over int32, so the products wrap
      mults = testing::RandomI32(entries, 600 + t, INT32_MIN, INT32_MAX);
    }
    ExpectSameBytes(b, p, mults, testing::RandomI8(BlockedBytes(b, p.pool.in), 700 + t));
  }
}

// Global average pools: ResNet-18's 7x7 on 512 channels, and planes whose window passes 256
// positions (the int16 sums of the x86 and NEON paths must be widened before -128 * 257 leaves
// int16): exactly 256 and 512, and past 512 (two widenings and a rest).
TEST(FastAvgPool, GlobalPools) {
  struct Case {
    uint32_t c, h, w;
  };
  for (const Case& k : {Case{512, 7, 7}, Case{40, 16, 16}, Case{40, 17, 17}, Case{24, 1, 300},
                        Case{33, 23, 19}, Case{16, 16, 32}, Case{20, 24, 25}}) {
    AvgPoolParams p;
    p.pool.in = {1, k.c, k.h, k.w};
    p.pool.kh = k.h;
    p.pool.kw = k.w;
    const std::vector<int32_t> mults = DivisorMults(k.h * k.w);
    p.rq.post_shift = 16;
    for (const Blocking& b :
         {Blocking{1, 16}, Blocking{1, 32}, Blocking{1, 8}, Blocking{2, 16}, Blocking{3, 4}}) {
      ExpectSameBytes(b, p, mults, testing::RandomI8(BlockedBytes(b, p.pool.in), k.c + k.h));
      for (int v : {-128, 127}) {
        for (int32_t x_offset : {-255, 0, 255}) {
          p.x_offset = x_offset;
          p.out_offset = -x_offset / 2;
          ExpectSameBytes(b, p, mults,
                          std::vector<int8_t>(BlockedBytes(b, p.pool.in), static_cast<int8_t>(v)));
        }
      }
      p.x_offset = p.out_offset = 0;
    }
  }
}

// MobileNet- and ResNet-style 3x3 pools, stride 1 and 2, padded on every side.
TEST(FastAvgPool, ThreeByThreeWithPadding) {
  for (uint32_t stride : {1u, 2u}) {
    for (bool include_pad : {false, true}) {
      AvgPoolParams p;
      p.pool.in = {1, 64, 28, 28};
      p.pool.kh = p.pool.kw = 3;
      p.pool.stride_h = p.pool.stride_w = stride;
      p.pool.pad_top = p.pool.pad_left = p.pool.pad_bottom = p.pool.pad_right = 1;
      p.count_include_pad = include_pad;
      p.x_offset = 3;
      p.out_offset = -3;
      p.rq.post_shift = 16;
      for (const Blocking& b : {Blocking{1, 16}, Blocking{1, 32}, Blocking{1, 8}}) {
        ExpectSameBytes(b, p, DivisorMults(9), testing::RandomI8(BlockedBytes(b, p.pool.in), 5));
      }
    }
  }
}

TEST(FastAvgPool, WorstCaseValues) {
  std::mt19937 rng(52);
  const int32_t extreme[] = {INT32_MIN, INT32_MAX, -1, 1, 65536, -32768};
  const Blocking blockings[] = {{1, 16}, {2, 32}, {1, 8}, {3, 4}};
  for (int t = 0; t < 60; ++t) {
    const Blocking b = blockings[t % 4];
    AvgPoolParams p = RandomParams(rng);
    const std::vector<int32_t> mults(p.pool.kh * p.pool.kw, extreme[t % 6]);
    p.rq.pre_shift = t % 3 == 0 ? -31 : (t % 3 == 1 ? 31 : 1);
    p.rq.post_shift = t % 5 == 0 ? -31 : (t % 5 == 1 ? 31 : t % 5 - 2);
    for (int v : {-128, 127}) {
      p.x_offset = v < 0 ? -255 : 255;
      p.out_offset = -p.x_offset;
      ExpectSameBytes(b, p, mults,
                      std::vector<int8_t>(BlockedBytes(b, p.pool.in), static_cast<int8_t>(v)));
    }
  }
}

TEST(FastAvgPool, GarbageInInputPaddingLanesGivesZeroOutputLanes) {
  std::mt19937 rng(53);
  for (int t = 0; t < 30; ++t) {
    const Blocking b = t % 2 ? Blocking{1, 16} : Blocking{3, 8};
    AvgPoolParams p = RandomParams(rng);
    p.pool.in.c = 5 + 16 * (t % 3);  // never fills its last block
    p.rq.pre_shift = 0;
    p.rq.post_shift = 16;
    ExpectSameBytes(b, p, DivisorMults(p.pool.kh * p.pool.kw),
                    testing::RandomI8(BlockedBytes(b, p.pool.in), 900 + t));
  }
}

TEST(FastAvgPool, RefusesWhatTheReferenceRefuses) {
  const Blocking b{1, 16};
  AvgPoolParams p;
  p.pool.in = {1, 16, 4, 4};
  p.pool.kh = p.pool.kw = 2;
  const std::vector<int32_t> mults = DivisorMults(4);
  std::vector<int8_t> x(256), y(256);
  std::vector<AvgPoolParams> bad(6, p);
  bad[0].pool.pad_left = 2;  // a window could be all padding
  bad[1].pool.kw = 5;
  bad[2].x_offset = 256;
  bad[3].out_offset = -256;
  bad[4].rq.pre_shift = -32;
  bad[5].rq.clip_lo = 1;
  bad[5].rq.clip_hi = 0;
  for (KernelPath path : Paths()) {
    ASSERT_TRUE(AvgPool(path, b, p, mults.data(), x.data(), y.data()).ok()) << PathName(path);
    for (const AvgPoolParams& q : bad) {
      const Status want = q::AvgPool(b, q, mults.data(), x.data(), y.data());
      ASSERT_FALSE(want.ok());
      EXPECT_EQ(AvgPool(path, b, q, mults.data(), x.data(), y.data()).ToString(), want.ToString())
          << PathName(path);
    }
    EXPECT_FALSE(AvgPool(path, Blocking{0, 16}, p, mults.data(), x.data(), y.data()).ok())
        << PathName(path);
    EXPECT_FALSE(AvgPool(path, b, p, mults.data(), x.data(), x.data()).ok()) << PathName(path);
    EXPECT_FALSE(AvgPool(path, b, p, mults.data(), nullptr, y.data()).ok()) << PathName(path);
    EXPECT_NE(AvgPool(path, b, p, nullptr, x.data(), y.data()).message().find("mult_by_count"),
              std::string::npos)
        << PathName(path);
  }
}

}  // namespace
}  // namespace loom::kernels::q::fast
