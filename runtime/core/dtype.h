// The element types of tensors, one enum for every layer: the compiler's IR, the CPU kernels, the
// .npy reader, the executor's host tensors. The package schema keeps its own FlatBuffers enum
// (pkg::DType, whose wire values never change) and the C API its own ABI enum (loom_dtype); each
// maps to this one in exactly one place (runtime/package/package.h, runtime/api/c_api.cc), and
// .npy descrs map in runtime/io/npy.h.
//
// No file stores the numeric values, but ir::Tensor::Hash mixes them in and the IR text form
// prints that hash, so new types go at the end.
#ifndef LOOM_RUNTIME_CORE_DTYPE_H_
#define LOOM_RUNTIME_CORE_DTYPE_H_

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace loom {

// kUndefined marks a value whose type no compiler pass has inferred yet (the IR verifier rejects
// it), or a type a file named that Loom does not know. kBool is one byte per element (0 or 1), as
// in ONNX and NumPy.
enum class DType : uint8_t {
  kUndefined,
  kF32,
  kI8,
  kU8,
  kI32,
  kI64,
  kBool,
  kF64,
  kF16,
  kI16,
  kU16,
  kU32,
  kU64
};

// Every defined type, for tables and tests.
inline constexpr DType kAllDTypes[] = {DType::kF32,  DType::kF64, DType::kF16, DType::kI8,
                                       DType::kU8,   DType::kI16, DType::kI32, DType::kI64,
                                       DType::kBool, DType::kU16, DType::kU32, DType::kU64};

// Bytes per element; 0 for kUndefined (and for a value outside the enum).
size_t DTypeSize(DType t);
// The short name of the IR text form and of shapes in messages: "f32", "i8", ...; "?" for
// kUndefined.
const char* DTypeName(DType t);
// The NumPy spelling, for messages about files and host tensors users hold as NumPy arrays:
// "float32", "int8", ...; "undefined" for kUndefined.
const char* DTypeLongName(DType t);
// Inverse of DTypeName for the defined types; false (and *out untouched) for anything else.
bool ParseDType(std::string_view name, DType* out);

// IEEE 754 binary16 bits to float (exact: every half is a float).
float F16ToF32(uint16_t bits);
// A double rounded to the nearest binary16 (ties to even, overflow to infinity, NaN kept a quiet
// NaN), in one rounding step: rounding through float first could round twice. Floats convert to
// double exactly, so this is float's conversion too.
uint16_t F64ToF16(double v);

inline bool IsInt8Like(DType t) { return t == DType::kI8 || t == DType::kU8; }
inline bool IsFloat(DType t) { return t == DType::kF32 || t == DType::kF64 || t == DType::kF16; }

// The type of a C++ element type: DTypeOf<float>::value == DType::kF32, ...
template <typename T>
struct DTypeOf;
template <>
struct DTypeOf<float> {
  static constexpr DType value = DType::kF32;
};
template <>
struct DTypeOf<double> {
  static constexpr DType value = DType::kF64;
};
template <>
struct DTypeOf<int8_t> {
  static constexpr DType value = DType::kI8;
};
template <>
struct DTypeOf<uint8_t> {
  static constexpr DType value = DType::kU8;
};
template <>
struct DTypeOf<int16_t> {
  static constexpr DType value = DType::kI16;
};
template <>
struct DTypeOf<uint16_t> {
  static constexpr DType value = DType::kU16;
};
template <>
struct DTypeOf<uint32_t> {
  static constexpr DType value = DType::kU32;
};
template <>
struct DTypeOf<uint64_t> {
  static constexpr DType value = DType::kU64;
};
template <>
struct DTypeOf<int32_t> {
  static constexpr DType value = DType::kI32;
};
template <>
struct DTypeOf<int64_t> {
  static constexpr DType value = DType::kI64;
};

}  // namespace loom

#endif  // LOOM_RUNTIME_CORE_DTYPE_H_
