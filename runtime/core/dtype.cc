#include "runtime/core/dtype.h"

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
    {DType::kBool, 1, "bool", "bool"},
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
