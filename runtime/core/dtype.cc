#include "runtime/core/dtype.h"

#include <cmath>
#include <cstring>

namespace loom {
namespace {

struct DTypeInfo {
  DType type;
  size_t size;
  const char* name;
  const char* long_name;
};

// One row per type; every function below reads this table, so a new type is one line here.
constexpr DTypeInfo kInfo[] = {
    {DType::kF32, 4, "f32", "float32"}, {DType::kF64, 8, "f64", "float64"},
    {DType::kF16, 2, "f16", "float16"}, {DType::kI8, 1, "i8", "int8"},
    {DType::kU8, 1, "u8", "uint8"},     {DType::kI16, 2, "i16", "int16"},
    {DType::kI32, 4, "i32", "int32"},   {DType::kI64, 8, "i64", "int64"},
    {DType::kBool, 1, "bool", "bool"},  {DType::kU16, 2, "u16", "uint16"},
    {DType::kU32, 4, "u32", "uint32"},  {DType::kU64, 8, "u64", "uint64"},
};
static_assert(sizeof(kInfo) / sizeof(kInfo[0]) == sizeof(kAllDTypes) / sizeof(kAllDTypes[0]),
              "kInfo and kAllDTypes must list the same types");

const DTypeInfo* Find(DType t) {
  for (const DTypeInfo& i : kInfo) {
    if (i.type == t) return &i;
  }
  return nullptr;
}

}  // namespace

size_t DTypeSize(DType t) {
  const DTypeInfo* i = Find(t);
  return i ? i->size : 0;
}

const char* DTypeName(DType t) {
  const DTypeInfo* i = Find(t);
  return i ? i->name : "?";
}

const char* DTypeLongName(DType t) {
  const DTypeInfo* i = Find(t);
  return i ? i->long_name : "undefined";
}

float F16ToF32(uint16_t bits) {
  const uint32_t sign = static_cast<uint32_t>(bits >> 15) << 31;
  const uint32_t exp = (bits >> 10) & 0x1f, mant = bits & 0x3ff;
  uint32_t f;
  if (exp == 0x1f) {
    f = sign | 0x7f800000u | (mant << 13);  // inf, NaN (payload kept)
  } else if (exp != 0) {
    f = sign | ((exp + 112) << 23) | (mant << 13);  // rebias 15 -> 127
  } else if (mant == 0) {
    f = sign;  // +-0
  } else {
    // Subnormal half: normalize the mantissa into a normal float.
    int e = -1;
    uint32_t m = mant;
    do {
      ++e;
      m <<= 1;
    } while ((m & 0x400) == 0);
    f = sign | ((112 - e) << 23) | ((m & 0x3ff) << 13);
  }
  float out;
  std::memcpy(&out, &f, sizeof out);
  return out;
}

uint16_t F64ToF16(double v) {
  const uint16_t sign = std::signbit(v) ? 0x8000 : 0;
  if (std::isnan(v)) return static_cast<uint16_t>(sign | 0x7e00);
  const double a = std::fabs(v);
  if (a >= 65520.0) return static_cast<uint16_t>(sign | 0x7c00);  // rounds past the largest half
  int e = 0;
  std::frexp(a, &e);  // a = m * 2^e, m in [0.5, 1): the unbiased exponent is e - 1
  // nearbyint rounds ties to even in the default rounding mode. Subnormals (e - 1 < -14) are
  // multiples of 2^-24; a carry out of the mantissa lands in the next exponent by itself, since
  // the bits are exponent and mantissa added together.
  if (a == 0.0 || e - 1 < -14) {
    return static_cast<uint16_t>(sign | static_cast<uint16_t>(std::nearbyint(std::ldexp(a, 24))));
  }
  const int exp = e - 1;
  const uint32_t q =
      static_cast<uint32_t>(std::nearbyint(std::ldexp(a, 10 - exp)));  // [1024, 2048]
  const uint32_t bits = (static_cast<uint32_t>(exp + 15) << 10) + (q - 1024);
  return static_cast<uint16_t>(sign | (bits >= 0x7c00 ? 0x7c00 : bits));
}

bool ParseDType(std::string_view name, DType* out) {
  for (const DTypeInfo& i : kInfo) {
    if (name == i.name) {
      *out = i.type;
      return true;
    }
  }
  return false;
}

}  // namespace loom
