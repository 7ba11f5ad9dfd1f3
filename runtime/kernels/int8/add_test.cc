// Add: against the formula on plain layouts, extreme multipliers, clips with padding lanes kept
// zero, and the parameter checks.
#include <gtest/gtest.h>

#include "runtime/kernels/int8/qops.h"
#include "runtime/kernels/int8/test_util.h"

namespace loom::kernels::q {
namespace {

using testing::Elems;
using testing::RandomI8;

void RunCase(const Blocking& b, const AddParams& p, uint32_t seed) {
  const auto a = RandomI8(Elems(p.shape), seed), c = RandomI8(Elems(p.shape), seed + 1);
  std::vector<int8_t> want(a.size());
  for (size_t i = 0; i < a.size(); ++i) {
    // Exact: floor(sum / 2^shift + 1/2) for shift > 0, computed in 64 bits.
    int64_t v = int64_t{a[i]} * p.mult_a + int64_t{c[i]} * p.mult_b;
    if (p.shift > 0) {
      const int64_t d = int64_t{1} << p.shift;
      const int64_t t = v + d / 2;
      v = t >= 0 ? t / d : -((-t + d - 1) / d);
    }
    v = std::min<int64_t>(std::max<int64_t>(v, p.clip_lo), p.clip_hi);
    want[i] = static_cast<int8_t>(v);
  }
  const auto ab = testing::Pack(b, p.shape, a), cb = testing::Pack(b, p.shape, c);
  std::vector<int8_t> yb(ab.size(), 0x44);
  ASSERT_TRUE(Add(b, p, ab.data(), cb.data(), yb.data()).ok());
  EXPECT_TRUE(testing::PaddingIsZero(b, p.shape, yb));
  EXPECT_EQ(testing::Unpack(b, p.shape, yb), want);
}

TEST(Add, MatchesPlainFormula) {
  AddParams p;
  p.shape = {3, 21, 4, 3};
  p.mult_a = 23000;
  p.mult_b = -17000;
  p.shift = 15;
  uint32_t seed = 1;
  for (const Blocking& b : testing::TestBlockings()) RunCase(b, p, seed += 2);
}

TEST(Add, ExtremeMultipliersAndClip) {
  AddParams p;
  p.shape = {2, 5, 3, 3};
  p.mult_a = -32768;
  p.mult_b = -32768;  // sum reaches 2^23: no overflow
  p.shift = 16;
  RunCase(Blocking{1, 16}, p, 10);
  p.mult_a = 32767;
  p.mult_b = 32767;
  p.shift = 31;
  RunCase(Blocking{2, 4}, p, 11);
  p.shift = 0;
  p.mult_a = p.mult_b = 1;
  p.clip_lo = 3;  // ReLU-like clip above zero: padding lanes must still read 0
  p.clip_hi = 90;
  RunCase(Blocking{4, 8}, p, 12);
}

TEST(Add, BadParameters) {
  const Blocking b{1, 4};
  AddParams p;
  p.shape = {1, 4, 2, 2};
  std::vector<int8_t> a(16), c(16), y(16);
  AddParams q = p;
  q.mult_a = 32768;
  Status st = Add(b, q, a.data(), c.data(), y.data());
  EXPECT_NE(st.message().find("32768"), std::string::npos) << st.message();
  q = p;
  q.mult_b = -32769;
  EXPECT_FALSE(Add(b, q, a.data(), c.data(), y.data()).ok());
  q = p;
  q.shift = 32;
  EXPECT_NE(Add(b, q, a.data(), c.data(), y.data()).message().find("shift"), std::string::npos);
  q = p;
  q.clip_lo = -129;
  EXPECT_FALSE(Add(b, q, a.data(), c.data(), y.data()).ok());
  EXPECT_NE(Add(b, p, a.data(), c.data(), a.data()).message().find("overlap"), std::string::npos);
  EXPECT_FALSE(Add(b, p, a.data(), nullptr, y.data()).ok());
  EXPECT_TRUE(Add(b, p, a.data(), c.data(), y.data()).ok());
}

}  // namespace
}  // namespace loom::kernels::q
