// Concat: channel offsets that are not block aligned, per-input rescaling with saturation, batch
// blocks, and the parameter checks.
#include <gtest/gtest.h>

#include "runtime/kernels/int8/qops.h"
#include "runtime/kernels/int8/test_util.h"

namespace loom::kernels::q {
namespace {

using testing::Elems;
using testing::RandomI8;

TEST(Concat, MatchesPlainLoop) {
  const std::vector<uint32_t> chans{5, 16, 3};
  const std::vector<int32_t> mults{1, 3000, -200}, shifts{0, 11, 7};
  for (const Blocking& b : testing::TestBlockings()) {
    SCOPED_TRACE(std::to_string(b.batch) + "x" + std::to_string(b.block));
    std::vector<std::vector<int8_t>> plain, blocked;
    std::vector<ConcatInput> ins;
    for (size_t i = 0; i < chans.size(); ++i) {
      const ActShape s{3, chans[i], 2, 3};
      plain.push_back(RandomI8(Elems(s), 100 + static_cast<uint32_t>(i)));
      blocked.push_back(testing::Pack(b, s, plain.back()));
    }
    for (size_t i = 0; i < chans.size(); ++i) {
      ins.push_back({{3, chans[i], 2, 3}, blocked[i].data(), mults[i], shifts[i]});
    }
    const ActShape os{3, 24, 2, 3};
    std::vector<int8_t> want(Elems(os));
    for (uint32_t n = 0; n < 3; ++n) {
      uint32_t off = 0;
      for (size_t i = 0; i < chans.size(); ++i) {
        for (uint32_t c = 0; c < chans[i]; ++c)
          for (uint32_t hw = 0; hw < 6; ++hw) {
            int64_t v = int64_t{plain[i][(n * chans[i] + c) * 6 + hw]} * mults[i];
            if (shifts[i] > 0) {
              const int64_t d = int64_t{1} << shifts[i];
              const int64_t t = v + d / 2;
              v = t >= 0 ? t / d : -((-t + d - 1) / d);
            }
            want[(n * 24 + off + c) * 6 + hw] =
                static_cast<int8_t>(std::min<int64_t>(127, std::max<int64_t>(-128, v)));
          }
        off += chans[i];
      }
    }
    std::vector<int8_t> yb(BlockedBytes(b, os), 0x77);
    ASSERT_TRUE(Concat(b, ins.data(), ins.size(), yb.data()).ok());
    EXPECT_TRUE(testing::PaddingIsZero(b, os, yb));
    EXPECT_EQ(testing::Unpack(b, os, yb), want);
  }
}

TEST(Concat, BadParameters) {
  const Blocking b{1, 4};
  std::vector<int8_t> x(64), y(256);
  ConcatInput ins[2] = {{{1, 4, 2, 2}, x.data(), 1, 0}, {{1, 4, 2, 3}, x.data(), 1, 0}};
  Status st = Concat(b, ins, 2, y.data());
  EXPECT_NE(st.message().find("input 1"), std::string::npos) << st.message();
  ins[1].shape.w = 2;
  ASSERT_TRUE(Concat(b, ins, 2, y.data()).ok());
  ins[1].shift = 40;
  EXPECT_NE(Concat(b, ins, 2, y.data()).message().find("shift"), std::string::npos);
  ins[1].shift = 0;
  ins[1].data = nullptr;
  EXPECT_FALSE(Concat(b, ins, 2, y.data()).ok());
  ins[1].data = x.data();
  EXPECT_FALSE(Concat(b, ins, 0, y.data()).ok());
  EXPECT_FALSE(Concat(b, ins, 2, x.data()).ok());
}

}  // namespace
}  // namespace loom::kernels::q
