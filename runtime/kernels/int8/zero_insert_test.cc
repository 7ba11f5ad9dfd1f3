// ZeroInsert: strides 2x2, 3x2, 1x3 and 1x1 against a plain loop on every test blocking, padding
// lanes, and the parameter checks.
#include <gtest/gtest.h>

#include "runtime/kernels/int8/qops.h"
#include "runtime/kernels/int8/test_util.h"

namespace loom::kernels::q {
namespace {

using testing::Elems;
using testing::RandomI8;

TEST(ZeroInsert, MatchesPlainLoop) {
  const uint32_t strides[][2] = {{2, 2}, {3, 2}, {1, 3}, {1, 1}};
  for (const Blocking& b : testing::TestBlockings()) {
    for (const auto& s : strides) {
      SCOPED_TRACE(std::to_string(b.batch) + "x" + std::to_string(b.block) + " strides " +
                   std::to_string(s[0]) + "x" + std::to_string(s[1]));
      const ActShape in{3, 5, 3, 4};
      const ActShape os{3, 5, 3 * s[0], 4 * s[1]};
      const std::vector<int8_t> plain = RandomI8(Elems(in), 11);
      const std::vector<int8_t> xb = testing::Pack(b, in, plain);
      std::vector<int8_t> want(Elems(os), 0);
      for (uint32_t nc = 0; nc < 15; ++nc)
        for (uint32_t y = 0; y < os.h; ++y)
          for (uint32_t x = 0; x < os.w; ++x) {
            if (y % s[0] == 0 && x % s[1] == 0) {
              want[(nc * os.h + y) * os.w + x] = plain[(nc * 3 + y / s[0]) * 4 + x / s[1]];
            }
          }
      std::vector<int8_t> yb(BlockedBytes(b, os), 0x77);  // stale bytes must all be overwritten
      ASSERT_TRUE(ZeroInsert(b, {in, s[0], s[1]}, xb.data(), yb.data()).ok());
      EXPECT_TRUE(testing::PaddingIsZero(b, os, yb));
      EXPECT_EQ(testing::Unpack(b, os, yb), want);
    }
  }
}

TEST(ZeroInsert, BadParameters) {
  const Blocking b{1, 4};
  std::vector<int8_t> x(64), y(256);
  ZeroInsertParams p{{1, 4, 2, 2}, 2, 2};
  ASSERT_TRUE(ZeroInsert(b, p, x.data(), y.data()).ok());
  p.stride_h = 0;
  EXPECT_NE(ZeroInsert(b, p, x.data(), y.data()).message().find("strides 0 x 2"),
            std::string::npos);
  p.stride_h = 2;
  p.shape.w = 0;
  EXPECT_FALSE(ZeroInsert(b, p, x.data(), y.data()).ok());
  p.shape.w = 2;
  EXPECT_FALSE(ZeroInsert(b, p, x.data(), nullptr).ok());
  EXPECT_FALSE(ZeroInsert(b, p, y.data(), y.data()).ok());
  p.stride_w = 0x80000000u;
  EXPECT_NE(ZeroInsert(b, p, x.data(), y.data()).message().find("32-bit"), std::string::npos);
}

}  // namespace
}  // namespace loom::kernels::q
