// fast::MaxPool on every path this CPU runs against the reference MaxPool, byte for byte: random
// shapes, windows, strides, pads and blockings (lanes per position from 1 to 192, so the 32-, 16-
// and 1-byte steps all run), -128 everywhere (the padding must never win), garbage in the input's
// padding lanes (the output's must still be 0), and the reference's refusals.
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

void ExpectSameBytes(const Blocking& b, const PoolParams& p, const std::vector<int8_t>& x) {
  SCOPED_TRACE("blocking " + std::to_string(b.batch) + "x" + std::to_string(b.block) + ", in " +
               std::to_string(p.in.n) + "x" + std::to_string(p.in.c) + "x" +
               std::to_string(p.in.h) + "x" + std::to_string(p.in.w) + ", window " +
               std::to_string(p.kh) + "x" + std::to_string(p.kw) + " stride " +
               std::to_string(p.stride_h) + "x" + std::to_string(p.stride_w) + " pads " +
               std::to_string(p.pad_top) + "," + std::to_string(p.pad_left) + "," +
               std::to_string(p.pad_bottom) + "," + std::to_string(p.pad_right));
  const size_t bytes = BlockedBytes(b, p.out());
  std::vector<int8_t> want(bytes, 0x11);
  ASSERT_TRUE(q::MaxPool(b, p, x.data(), want.data()).ok());
  for (KernelPath path : Paths()) {
    std::vector<int8_t> got(bytes, 0x22);
    const Status st = MaxPool(path, b, p, x.data(), got.data());
    ASSERT_TRUE(st.ok()) << PathName(path) << ": " << st.ToString();
    ASSERT_EQ(got, want) << PathName(path);
  }
}

PoolParams RandomParams(std::mt19937& rng) { return RandomWindow(rng, 4); }

TEST(FastMaxPool, RandomShapesAndWindows) {
  std::mt19937 rng(21);
  const Blocking blockings[] = {{1, 16}, {1, 32}, {1, 64}, {1, 8}, {2, 16}, {3, 64},
                                {1, 1},  {2, 4},  {1, 12}, {4, 8}, {1, 48}};
  for (int t = 0; t < 160; ++t) {
    const Blocking b = blockings[t % (sizeof(blockings) / sizeof(blockings[0]))];
    const PoolParams p = RandomParams(rng);
    const auto x = testing::RandomI8(testing::Elems(p.in), 300 + t);
    ExpectSameBytes(b, p, testing::Pack(b, p.in, x));
  }
}

TEST(FastMaxPool, ResNetStem) {
  PoolParams p;
  p.in = {1, 64, 112, 112};
  p.kh = p.kw = 3;
  p.stride_h = p.stride_w = 2;
  p.pad_top = p.pad_left = p.pad_bottom = p.pad_right = 1;
  for (const Blocking& b : {Blocking{1, 16}, Blocking{1, 32}, Blocking{1, 8}}) {
    ExpectSameBytes(b, p, testing::Pack(b, p.in, testing::RandomI8(testing::Elems(p.in), 5)));
  }
}

TEST(FastMaxPool, WorstCaseValues) {
  std::mt19937 rng(22);
  // Blocks 16, 32 and 8, batch blocks past n, and 12 lanes a position (8 and 4 left over).
  const Blocking blockings[] = {{1, 16}, {2, 32}, {1, 8}, {3, 4}};
  for (int t = 0; t < 40; ++t) {
    const Blocking b = blockings[t % 4];
    const PoolParams p = RandomParams(rng);
    for (int v : {-128, 127, -1, 0}) {
      const std::vector<int8_t> x(testing::Elems(p.in), static_cast<int8_t>(v));
      ExpectSameBytes(b, p, testing::Pack(b, p.in, x));
    }
  }
}

TEST(FastMaxPool, GarbageInInputPaddingLanesGivesZeroOutputLanes) {
  std::mt19937 rng(23);
  for (int t = 0; t < 30; ++t) {
    const Blocking b = t % 2 ? Blocking{1, 16} : Blocking{3, 8};
    PoolParams p = RandomParams(rng);
    p.in.c = 5 + 16 * (t % 3);  // never fills its last block
    std::vector<int8_t> xb(BlockedBytes(b, p.in));
    for (auto& v : xb) v = static_cast<int8_t>(std::uniform_int_distribution<int>(-128, 127)(rng));
    ExpectSameBytes(b, p, xb);
  }
}

TEST(FastMaxPool, RefusesWhatTheReferenceRefuses) {
  const Blocking b{1, 16};
  PoolParams p;
  p.in = {1, 16, 4, 4};
  p.kh = p.kw = 2;
  std::vector<int8_t> x(256), y(256);
  for (KernelPath path : Paths()) {
    ASSERT_TRUE(MaxPool(path, b, p, x.data(), y.data()).ok()) << PathName(path);
    PoolParams q = p;
    q.pad_left = 2;  // a window could be all padding
    EXPECT_NE(MaxPool(path, b, q, x.data(), y.data()).message().find("pads"), std::string::npos)
        << PathName(path);
    q = p;
    q.kw = 5;
    EXPECT_FALSE(MaxPool(path, b, q, x.data(), y.data()).ok()) << PathName(path);
    EXPECT_FALSE(MaxPool(path, Blocking{0, 16}, p, x.data(), y.data()).ok()) << PathName(path);
    EXPECT_FALSE(MaxPool(path, b, p, x.data(), x.data()).ok()) << PathName(path);
    EXPECT_FALSE(MaxPool(path, b, p, nullptr, y.data()).ok()) << PathName(path);
  }
}

}  // namespace
}  // namespace loom::kernels::q::fast
