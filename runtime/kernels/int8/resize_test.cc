// ResizeNearest: factors 2x2, 3x1 and 1x1 against a plain loop on every test blocking, padding
// lanes, and the parameter checks.
#include <gtest/gtest.h>

#include "runtime/kernels/int8/qops.h"
#include "runtime/kernels/int8/test_util.h"

namespace loom::kernels::q {
namespace {

using testing::Elems;
using testing::RandomI8;

TEST(ResizeNearest, MatchesPlainLoop) {
  const uint32_t factors[][2] = {{2, 2}, {3, 1}, {1, 1}, {2, 3}};
  for (const Blocking& b : testing::TestBlockings()) {
    for (const auto& f : factors) {
      SCOPED_TRACE(std::to_string(b.batch) + "x" + std::to_string(b.block) + " factors " +
                   std::to_string(f[0]) + "x" + std::to_string(f[1]));
      const ActShape s{3, 5, 3, 4};
      const ActShape os{3, 5, 3 * f[0], 4 * f[1]};
      const std::vector<int8_t> plain = RandomI8(Elems(s), 7);
      const std::vector<int8_t> xb = testing::Pack(b, s, plain);
      std::vector<int8_t> want(Elems(os));
      for (uint32_t nc = 0; nc < 15; ++nc)
        for (uint32_t y = 0; y < os.h; ++y)
          for (uint32_t x = 0; x < os.w; ++x) {
            want[(nc * os.h + y) * os.w + x] = plain[(nc * 3 + y / f[0]) * 4 + x / f[1]];
          }
      std::vector<int8_t> yb(BlockedBytes(b, os), 0x77);
      ASSERT_TRUE(ResizeNearest(b, {s, f[0], f[1]}, xb.data(), yb.data()).ok());
      EXPECT_TRUE(testing::PaddingIsZero(b, os, yb));
      EXPECT_EQ(testing::Unpack(b, os, yb), want);
    }
  }
}

TEST(ResizeNearest, BadParameters) {
  const Blocking b{1, 4};
  std::vector<int8_t> x(64), y(256);
  ResizeParams p{{1, 4, 2, 2}, 2, 2};
  ASSERT_TRUE(ResizeNearest(b, p, x.data(), y.data()).ok());
  p.factor_w = 0;
  EXPECT_NE(ResizeNearest(b, p, x.data(), y.data()).message().find("factors 2 x 0"),
            std::string::npos);
  p.factor_w = 2;
  p.shape.h = 0;
  EXPECT_FALSE(ResizeNearest(b, p, x.data(), y.data()).ok());
  p.shape.h = 2;
  EXPECT_FALSE(ResizeNearest(b, p, nullptr, y.data()).ok());
  EXPECT_FALSE(ResizeNearest(b, p, x.data(), x.data()).ok());
  p.factor_h = 0x80000000u;
  EXPECT_NE(ResizeNearest(b, p, x.data(), y.data()).message().find("32-bit"), std::string::npos);
}

}  // namespace
}  // namespace loom::kernels::q
