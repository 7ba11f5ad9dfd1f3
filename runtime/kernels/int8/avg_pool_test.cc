// AvgPool: against a plain loop (window sums, real-element counts or the full window with
// count_include_pad, the per-divisor multiplier), global pooling, and the parameter checks.
#include <gtest/gtest.h>

#include "runtime/kernels/int8/qops.h"
#include "runtime/kernels/int8/test_util.h"

namespace loom::kernels::q {
namespace {

using testing::Elems;
using testing::RandomI8;

std::vector<int8_t> Reference(const AvgPoolParams& ap, const std::vector<int32_t>& mults,
                              const std::vector<int8_t>& x) {
  const PoolParams& p = ap.pool;
  const ActShape os = p.out();
  std::vector<int8_t> y(Elems(os));
  for (uint32_t n = 0; n < os.n; ++n)
    for (uint32_t c = 0; c < os.c; ++c)
      for (uint32_t oy = 0; oy < os.h; ++oy)
        for (uint32_t ox = 0; ox < os.w; ++ox) {
          int32_t sum = 0;
          uint32_t count = 0;
          for (uint32_t ky = 0; ky < p.kh; ++ky)
            for (uint32_t kx = 0; kx < p.kw; ++kx) {
              const int64_t iy = int64_t{oy} * p.stride_h + ky - p.pad_top;
              const int64_t ix = int64_t{ox} * p.stride_w + kx - p.pad_left;
              if (iy < 0 || ix < 0 || iy >= p.in.h || ix >= p.in.w) continue;
              sum += x[((n * p.in.c + c) * p.in.h + iy) * p.in.w + ix] + ap.x_offset;
              ++count;
            }
          if (ap.count_include_pad) count = p.kh * p.kw;
          y[((n * os.c + c) * os.h + oy) * os.w + ox] =
              Requantize(sum, mults[count - 1], ap.rq, ap.out_offset);
        }
  return y;
}

// Multipliers that make the result round(sum / count) with a 16-bit post shift.
std::vector<int32_t> DivisorMults(uint32_t entries) {
  std::vector<int32_t> m(entries);
  for (uint32_t k = 1; k <= entries; ++k) m[k - 1] = static_cast<int32_t>((65536 + k / 2) / k);
  return m;
}

void RunCase(const Blocking& b, const AvgPoolParams& ap, uint32_t seed) {
  const auto x = RandomI8(Elems(ap.pool.in), seed);
  const auto mults = DivisorMults(ap.pool.kh * ap.pool.kw);
  const auto xb = testing::Pack(b, ap.pool.in, x);
  std::vector<int8_t> yb(BlockedBytes(b, ap.pool.out()), 0x66);
  const Status st = AvgPool(b, ap, mults.data(), xb.data(), yb.data());
  ASSERT_TRUE(st.ok()) << st.ToString();
  EXPECT_TRUE(testing::PaddingIsZero(b, ap.pool.out(), yb));
  EXPECT_EQ(testing::Unpack(b, ap.pool.out(), yb), Reference(ap, mults, x));
}

AvgPoolParams Params(bool include_pad) {
  AvgPoolParams ap;
  ap.pool.in = {3, 19, 6, 7};
  ap.pool.kh = 3;
  ap.pool.kw = 3;
  ap.pool.stride_h = 2;
  ap.pool.stride_w = 1;
  ap.pool.pad_top = ap.pool.pad_left = 1;
  ap.pool.pad_bottom = 2;
  ap.pool.pad_right = 1;
  ap.count_include_pad = include_pad;
  ap.rq.post_shift = 16;
  return ap;
}

TEST(AvgPool, MatchesPlainLoop) {
  uint32_t seed = 20;
  for (const Blocking& b : testing::TestBlockings()) {
    RunCase(b, Params(false), seed++);
    RunCase(b, Params(true), seed++);
  }
}

TEST(AvgPool, GlobalIsTheMean) {
  AvgPoolParams ap;
  ap.pool.in = {2, 5, 4, 4};
  ap.pool.kh = ap.pool.kw = 4;
  ap.rq.post_shift = 16;
  for (const Blocking& b : testing::TestBlockings()) RunCase(b, ap, 40);
  // A constant image averages to itself.
  const Blocking b{1, 8};
  std::vector<int8_t> x(Elems(ap.pool.in), -7);
  const auto xb = testing::Pack(b, ap.pool.in, x);
  const auto mults = DivisorMults(16);
  std::vector<int8_t> yb(BlockedBytes(b, ap.pool.out()));
  ASSERT_TRUE(AvgPool(b, ap, mults.data(), xb.data(), yb.data()).ok());
  EXPECT_EQ(testing::Unpack(b, ap.pool.out(), yb), std::vector<int8_t>(10, -7));
}

// Zero points: the input's is taken from every real element (padding adds the real 0), the
// output's added after the requantization.
TEST(AvgPool, OffsetsOfAsymmetricTensors) {
  uint32_t seed = 60;
  for (const Blocking& b : testing::TestBlockings()) {
    for (bool include_pad : {false, true}) {
      AvgPoolParams ap = Params(include_pad);
      ap.x_offset = 128;
      ap.out_offset = -100;
      RunCase(b, ap, seed++);
    }
  }
  AvgPoolParams ap;
  ap.pool.in = {1, 3, 5, 5};
  ap.pool.kh = ap.pool.kw = 5;
  ap.rq.post_shift = 16;
  ap.x_offset = -255;
  ap.out_offset = 255;
  RunCase(Blocking{1, 4}, ap, 70);
}

TEST(AvgPool, BadParameters) {
  const Blocking b{1, 4};
  AvgPoolParams ap;
  ap.pool.in = {1, 4, 4, 4};
  ap.pool.kh = ap.pool.kw = 2;
  std::vector<int8_t> x(64), y(64);
  std::vector<int32_t> m(4, 1);
  ASSERT_TRUE(AvgPool(b, ap, m.data(), x.data(), y.data()).ok());
  AvgPoolParams q = ap;
  q.rq.pre_shift = -32;
  EXPECT_NE(AvgPool(b, q, m.data(), x.data(), y.data()).message().find("pre_shift"),
            std::string::npos);
  q = ap;
  q.pool.pad_bottom = 2;
  EXPECT_FALSE(AvgPool(b, q, m.data(), x.data(), y.data()).ok());
  q = ap;
  q.x_offset = -256;
  EXPECT_NE(AvgPool(b, q, m.data(), x.data(), y.data()).message().find("x_offset -256"),
            std::string::npos);
  q = ap;
  q.out_offset = 300;
  EXPECT_FALSE(AvgPool(b, q, m.data(), x.data(), y.data()).ok());
  EXPECT_NE(AvgPool(b, ap, nullptr, x.data(), y.data()).message().find("mult_by_count"),
            std::string::npos);
}

}  // namespace
}  // namespace loom::kernels::q
