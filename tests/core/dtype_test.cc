#include "runtime/core/dtype.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <set>
#include <string>

namespace loom {
namespace {

TEST(DTypeTest, NamesAndSizes) {
  struct Case {
    DType t;
    const char* name;
    const char* long_name;
    size_t size;
  };
  const Case cases[] = {
      {DType::kF32, "f32", "float32", 4}, {DType::kF64, "f64", "float64", 8},
      {DType::kF16, "f16", "float16", 2}, {DType::kI8, "i8", "int8", 1},
      {DType::kU8, "u8", "uint8", 1},     {DType::kI16, "i16", "int16", 2},
      {DType::kI32, "i32", "int32", 4},   {DType::kI64, "i64", "int64", 8},
      {DType::kBool, "bool", "bool", 1},  {DType::kU16, "u16", "uint16", 2},
      {DType::kU32, "u32", "uint32", 4},  {DType::kU64, "u64", "uint64", 8},
  };
  ASSERT_EQ(std::size(cases), std::size(kAllDTypes));
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    EXPECT_STREQ(DTypeName(c.t), c.name);
    EXPECT_STREQ(DTypeLongName(c.t), c.long_name);
    EXPECT_EQ(DTypeSize(c.t), c.size);
  }
  EXPECT_STREQ(DTypeName(DType::kUndefined), "?");
  EXPECT_STREQ(DTypeLongName(DType::kUndefined), "undefined");
  EXPECT_EQ(DTypeSize(DType::kUndefined), 0u);
  // A value outside the enum (a corrupted byte) is named and sized like kUndefined.
  EXPECT_EQ(DTypeSize(static_cast<DType>(200)), 0u);
  EXPECT_STREQ(DTypeName(static_cast<DType>(200)), "?");
}

TEST(DTypeTest, ParseRoundTripsEveryName) {
  std::set<std::string> names;
  for (DType t : kAllDTypes) {
    SCOPED_TRACE(DTypeName(t));
    EXPECT_TRUE(names.insert(DTypeName(t)).second) << "duplicate name";
    DType back = DType::kUndefined;
    ASSERT_TRUE(ParseDType(DTypeName(t), &back));
    EXPECT_EQ(back, t);
  }
  DType untouched = DType::kI8;
  for (const char* bad : {"", "?", "float32", "F32", "f32 ", "c64", "undefined"}) {
    SCOPED_TRACE(bad);
    EXPECT_FALSE(ParseDType(bad, &untouched));
    EXPECT_EQ(untouched, DType::kI8);
  }
}

TEST(DTypeTest, DTypeOfMatchesSize) {
  EXPECT_EQ(DTypeOf<float>::value, DType::kF32);
  EXPECT_EQ(DTypeOf<double>::value, DType::kF64);
  EXPECT_EQ(DTypeOf<int8_t>::value, DType::kI8);
  EXPECT_EQ(DTypeOf<uint8_t>::value, DType::kU8);
  EXPECT_EQ(DTypeOf<int16_t>::value, DType::kI16);
  EXPECT_EQ(DTypeOf<int32_t>::value, DType::kI32);
  EXPECT_EQ(DTypeOf<int64_t>::value, DType::kI64);
  EXPECT_EQ(DTypeSize(DTypeOf<double>::value), sizeof(double));
  EXPECT_EQ(DTypeSize(DTypeOf<int16_t>::value), sizeof(int16_t));
}

TEST(DTypeTest, Predicates) {
  EXPECT_TRUE(IsInt8Like(DType::kI8));
  EXPECT_TRUE(IsInt8Like(DType::kU8));
  EXPECT_FALSE(IsInt8Like(DType::kBool));
  EXPECT_TRUE(IsFloat(DType::kF16));
  EXPECT_TRUE(IsFloat(DType::kF64));
  EXPECT_FALSE(IsFloat(DType::kI32));
}

TEST(DTypeTest, F16ToF32) {
  EXPECT_EQ(F16ToF32(0x0000), 0.0f);
  EXPECT_TRUE(std::signbit(F16ToF32(0x8000)));
  EXPECT_EQ(F16ToF32(0x3c00), 1.0f);
  EXPECT_EQ(F16ToF32(0xc000), -2.0f);
  EXPECT_EQ(F16ToF32(0x3555), 0.333251953125f);
  EXPECT_EQ(F16ToF32(0x7bff), 65504.0f);                  // largest half
  EXPECT_EQ(F16ToF32(0x0400), std::ldexp(1.0f, -14));     // smallest normal
  EXPECT_EQ(F16ToF32(0x0001), std::ldexp(1.0f, -24));     // smallest subnormal
  EXPECT_EQ(F16ToF32(0x03ff), std::ldexp(1023.0f, -24));  // largest subnormal
  EXPECT_EQ(F16ToF32(0x7c00), std::numeric_limits<float>::infinity());
  EXPECT_EQ(F16ToF32(0xfc00), -std::numeric_limits<float>::infinity());
  EXPECT_TRUE(std::isnan(F16ToF32(0x7e00)));
}

TEST(DTypeTest, F64ToF16RoundsToNearestEven) {
  EXPECT_EQ(F64ToF16(0.0), 0x0000);
  EXPECT_EQ(F64ToF16(-0.0), 0x8000);
  EXPECT_EQ(F64ToF16(1.0), 0x3c00);
  EXPECT_EQ(F64ToF16(-2.0), 0xc000);
  EXPECT_EQ(F64ToF16(1.0 / 3.0), 0x3555);
  EXPECT_EQ(F64ToF16(65504.0), 0x7bff);
  EXPECT_EQ(F64ToF16(65519.99), 0x7bff);                    // below the midpoint to 2^16
  EXPECT_EQ(F64ToF16(65520.0), 0x7c00);                     // the midpoint ties to even: infinity
  EXPECT_EQ(F64ToF16(1.0 + std::ldexp(1.0, -11)), 0x3c00);  // tie, even mantissa kept
  EXPECT_EQ(F64ToF16(1.0 + 3 * std::ldexp(1.0, -11)), 0x3c02);  // tie, rounds up to even
  EXPECT_EQ(F64ToF16(std::ldexp(1.0, -24)), 0x0001);            // smallest subnormal
  EXPECT_EQ(F64ToF16(std::ldexp(1.0, -25)), 0x0000);            // half of it ties to 0
  EXPECT_EQ(F64ToF16(std::ldexp(1023.5, -24)), 0x0400);  // largest subnormal rounds up to normal
  EXPECT_EQ(F64ToF16(1e300), 0x7c00);
  EXPECT_EQ(F64ToF16(-1e300), 0xfc00);
  EXPECT_EQ(F64ToF16(std::nan("")) & 0x7e00, 0x7e00);
  // Every half survives the round trip.
  for (uint32_t b = 0; b < 0x7c00; ++b) {
    ASSERT_EQ(F64ToF16(F16ToF32(static_cast<uint16_t>(b))), b) << b;
  }
}

}  // namespace
}  // namespace loom
