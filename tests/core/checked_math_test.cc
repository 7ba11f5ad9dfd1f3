// Checked size arithmetic at the edges where unchecked code wraps.
#include "runtime/core/checked_math.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>

namespace loom {
namespace {

TEST(CheckedMath, MulAddSubRefuseWrapping) {
  uint64_t u = 7;
  EXPECT_TRUE(CheckedMul<uint64_t>(uint64_t{1} << 32, uint64_t{1} << 31, &u));
  EXPECT_EQ(u, uint64_t{1} << 63);
  EXPECT_FALSE(CheckedMul<uint64_t>(uint64_t{1} << 32, uint64_t{1} << 32, &u));
  EXPECT_EQ(u, uint64_t{1} << 63);  // untouched on failure
  int64_t s = 0;
  EXPECT_FALSE(CheckedAdd<int64_t>(std::numeric_limits<int64_t>::max(), 1, &s));
  EXPECT_FALSE(CheckedSub<int64_t>(std::numeric_limits<int64_t>::min(), 1, &s));
  EXPECT_TRUE(CheckedSub<int64_t>(-5, 3, &s));
  EXPECT_EQ(s, -8);
}

TEST(CheckedMath, CastKeepsTheValueOrFails) {
  uint32_t u32 = 0;
  EXPECT_TRUE(CheckedCast(int64_t{4000000000}, &u32));
  EXPECT_EQ(u32, 4000000000u);
  EXPECT_FALSE(CheckedCast(int64_t{-1}, &u32));
  EXPECT_FALSE(CheckedCast(int64_t{1} << 32, &u32));
  int32_t i32 = 0;
  EXPECT_FALSE(CheckedCast(uint64_t{1} << 31, &i32));
  EXPECT_TRUE(CheckedCast(uint64_t{(1u << 31) - 1}, &i32));
}

TEST(CheckedMath, ElementCount) {
  uint64_t n = 0;
  const int64_t ok[] = {2, 3, 4};
  EXPECT_TRUE(CheckedElementCount(ok, 3, &n));
  EXPECT_EQ(n, 24u);
  EXPECT_TRUE(CheckedElementCount(ok, 0, &n));  // a scalar
  EXPECT_EQ(n, 1u);
  const int64_t huge[] = {int64_t{1} << 62, 3, 2, 2};  // the C API case of issue 11
  EXPECT_FALSE(CheckedElementCount(huge, 4, &n));
  const int64_t negative[] = {2, -1};
  EXPECT_FALSE(CheckedElementCount(negative, 2, &n));
  const uint32_t dims32[] = {65536, 65536, 65536, 65536};
  EXPECT_TRUE(CheckedElementCount(dims32, 3, &n));
  EXPECT_FALSE(CheckedElementCount(dims32, 4, &n));
}

}  // namespace
}  // namespace loom
