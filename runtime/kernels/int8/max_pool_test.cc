// MaxPool: against a plain loop over real elements, padding that never wins (all-negative input),
// blockings that do not divide C, and the parameter checks.
#include <gtest/gtest.h>

#include "runtime/kernels/int8/qops.h"
#include "runtime/kernels/int8/test_util.h"

namespace loom::kernels::q {
namespace {

using testing::Elems;
using testing::RandomI8;

std::vector<int8_t> Reference(const PoolParams& p, const std::vector<int8_t>& x) {
  const ActShape os = p.out();
  std::vector<int8_t> y(Elems(os));
  for (uint32_t n = 0; n < os.n; ++n)
    for (uint32_t c = 0; c < os.c; ++c)
      for (uint32_t oy = 0; oy < os.h; ++oy)
        for (uint32_t ox = 0; ox < os.w; ++ox) {
          int best = -1000;
          for (uint32_t ky = 0; ky < p.kh; ++ky)
            for (uint32_t kx = 0; kx < p.kw; ++kx) {
              const int64_t iy = int64_t{oy} * p.stride_h + ky - p.pad_top;
              const int64_t ix = int64_t{ox} * p.stride_w + kx - p.pad_left;
              if (iy < 0 || ix < 0 || iy >= p.in.h || ix >= p.in.w) continue;
              best = std::max<int>(best, x[((n * p.in.c + c) * p.in.h + iy) * p.in.w + ix]);
            }
          y[((n * os.c + c) * os.h + oy) * os.w + ox] = static_cast<int8_t>(best);
        }
  return y;
}

void RunCase(const Blocking& b, const PoolParams& p, const std::vector<int8_t>& x) {
  const auto xb = testing::Pack(b, p.in, x);
  std::vector<int8_t> yb(BlockedBytes(b, p.out()), 0x55);
  const Status st = MaxPool(b, p, xb.data(), yb.data());
  ASSERT_TRUE(st.ok()) << st.ToString();
  EXPECT_TRUE(testing::PaddingIsZero(b, p.out(), yb));
  EXPECT_EQ(testing::Unpack(b, p.out(), yb), Reference(p, x));
}

PoolParams Params() {
  PoolParams p;
  p.in = {3, 19, 7, 8};
  p.kh = 3;
  p.kw = 2;
  p.stride_h = 2;
  p.stride_w = 2;
  p.pad_top = 1;
  p.pad_left = 1;
  p.pad_bottom = 2;
  p.pad_right = 0;
  return p;
}

TEST(MaxPool, MatchesPlainLoop) {
  const PoolParams p = Params();
  uint32_t seed = 3;
  for (const Blocking& b : testing::TestBlockings()) RunCase(b, p, RandomI8(Elems(p.in), seed++));
}

TEST(MaxPool, PaddingNeverWinsOnNegativeInput) {
  const PoolParams p = Params();
  const auto x = RandomI8(Elems(p.in), 9, -128, -1);
  for (const Blocking& b : testing::TestBlockings()) RunCase(b, p, x);
  const auto y = Reference(p, x);
  for (int8_t v : y) EXPECT_LT(v, 0);
}

TEST(MaxPool, BadParameters) {
  const Blocking b{1, 4};
  PoolParams p;
  p.in = {1, 4, 4, 4};
  p.kh = p.kw = 2;
  std::vector<int8_t> x(64), y(64);
  ASSERT_TRUE(MaxPool(b, p, x.data(), y.data()).ok());
  PoolParams q = p;
  q.pad_left = 2;  // a window could be all padding
  EXPECT_NE(MaxPool(b, q, x.data(), y.data()).message().find("pads"), std::string::npos);
  q = p;
  q.kh = 0;
  EXPECT_FALSE(MaxPool(b, q, x.data(), y.data()).ok());
  q = p;
  q.kw = 5;
  EXPECT_FALSE(MaxPool(b, q, x.data(), y.data()).ok());
  EXPECT_FALSE(MaxPool(Blocking{0, 4}, p, x.data(), y.data()).ok());
  EXPECT_FALSE(MaxPool(b, p, x.data(), x.data()).ok());
}

}  // namespace
}  // namespace loom::kernels::q
