// Overflow-checked size arithmetic. Every size the runtime or the compiler computes from input it
// did not produce itself (a package, a C API call, an ONNX or IR file, an attribute) goes through
// these, so a hostile value becomes an error naming it instead of a wrapped product that passes a
// check and then crashes in memcpy or allocates nothing. Header-only, C++17, no exceptions.
#ifndef LOOM_RUNTIME_CORE_CHECKED_MATH_H_
#define LOOM_RUNTIME_CORE_CHECKED_MATH_H_

#include <cstddef>
#include <cstdint>
#include <limits>
#include <type_traits>

namespace loom {

// *out = a * b, a + b or a - b in T; false (and *out untouched) when the exact result does not fit.
template <typename T>
[[nodiscard]] inline bool CheckedMul(T a, T b, T* out) {
  T r;
  if (__builtin_mul_overflow(a, b, &r)) return false;
  *out = r;
  return true;
}
template <typename T>
[[nodiscard]] inline bool CheckedAdd(T a, T b, T* out) {
  T r;
  if (__builtin_add_overflow(a, b, &r)) return false;
  *out = r;
  return true;
}
template <typename T>
[[nodiscard]] inline bool CheckedSub(T a, T b, T* out) {
  T r;
  if (__builtin_sub_overflow(a, b, &r)) return false;
  *out = r;
  return true;
}

// Narrowing that refuses to change the value: int64 -> uint32, uint64 -> size_t on 32-bit ARM, ...
template <typename To, typename From>
[[nodiscard]] inline bool CheckedCast(From v, To* out) {
  static_assert(std::is_integral_v<To> && std::is_integral_v<From>, "integers only");
  To r;
  if (__builtin_add_overflow(v, From{0}, &r)) return false;
  *out = r;
  return true;
}

// The element count of a shape given as `rank` dims (any integer type). False when a dim is
// negative or the product does not fit in uint64_t; an empty shape (a scalar) has one element.
template <typename Dim>
[[nodiscard]] inline bool CheckedElementCount(const Dim* dims, size_t rank, uint64_t* out) {
  uint64_t n = 1;
  for (size_t i = 0; i < rank; ++i) {
    if constexpr (std::is_signed_v<Dim>) {
      if (dims[i] < 0) return false;
    }
    if (!CheckedMul(n, static_cast<uint64_t>(dims[i]), &n)) return false;
  }
  *out = n;
  return true;
}

}  // namespace loom

#endif  // LOOM_RUNTIME_CORE_CHECKED_MATH_H_
