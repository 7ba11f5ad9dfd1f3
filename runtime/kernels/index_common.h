// Helpers the indexing kernels share (kernels_index.h): reading an i32/i64 index element,
// resolving a negative index against its axis with a message naming the position, and the
// typed combine step of the scatter reductions.
#ifndef LOOM_RUNTIME_KERNELS_INDEX_COMMON_H_
#define LOOM_RUNTIME_KERNELS_INDEX_COMMON_H_

#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>

#include "runtime/kernels/kernels_index.h"

namespace loom::kernels::index_detail {

inline Status CheckIndexType(const char* op, const TensorView& indices) {
  if (indices.dtype == DType::kI32 || indices.dtype == DType::kI64) return Status::Ok();
  return InvalidArgument(std::string(op) + ": indices must be int32 or int64, not " +
                         DTypeName(indices.dtype));
}

// Element i of an i32 or i64 tensor (CheckIndexType ran).
inline int64_t IndexAt(const TensorView& indices, int64_t i) {
  if (indices.dtype == DType::kI32) return indices.As<const int32_t>()[i];
  return indices.As<const int64_t>()[i];
}

// `idx` resolved into [0, dim), or an error naming the op, the index position and the bound.
inline Status Resolve(const char* op, int64_t idx, int64_t dim, int64_t position, int64_t* out) {
  if (idx < -dim || idx >= dim) {
    return InvalidArgument(std::string(op) + ": index " + std::to_string(idx) + " at position " +
                           std::to_string(position) + " is outside [" + std::to_string(-dim) +
                           ", " + std::to_string(dim) + ")");
  }
  *out = idx < 0 ? idx + dim : idx;
  return Status::Ok();
}

inline void CopyElement(const TensorView& from, int64_t src, const TensorView& to, int64_t dst) {
  const size_t es = DTypeSize(to.dtype);
  std::memcpy(to.As<uint8_t>() + dst * es, from.As<const uint8_t>() + src * es, es);
}

template <typename T>
void Combine(ScatterReduction r, T* dst, T v) {
  // Integer reductions wrap in unsigned arithmetic (as ONNX backends do); signed overflow would be
  // undefined behaviour.
  if constexpr (sizeof(T) < sizeof(int) || !std::is_integral_v<T>) {
    *dst = r == ScatterReduction::kAdd ? static_cast<T>(*dst + v) : static_cast<T>(*dst * v);
  } else {
    using U = std::make_unsigned_t<T>;
    const U a = static_cast<U>(*dst), b = static_cast<U>(v);
    *dst = static_cast<T>(r == ScatterReduction::kAdd ? a + b : a * b);
  }
}

// to[dst] = from[src] combined by `r` (kNone: a copy). The dtype was checked by ReductionType.
inline void Apply(ScatterReduction r, const TensorView& from, int64_t src, const TensorView& to,
                  int64_t dst) {
  if (r == ScatterReduction::kNone) return CopyElement(from, src, to, dst);
  switch (to.dtype) {
    case DType::kF32:
      return Combine(r, to.As<float>() + dst, from.As<const float>()[src]);
    case DType::kF64:
      return Combine(r, to.As<double>() + dst, from.As<const double>()[src]);
    case DType::kI8:
      return Combine(r, to.As<int8_t>() + dst, from.As<const int8_t>()[src]);
    case DType::kU8:
      return Combine(r, to.As<uint8_t>() + dst, from.As<const uint8_t>()[src]);
    case DType::kI16:
      return Combine(r, to.As<int16_t>() + dst, from.As<const int16_t>()[src]);
    case DType::kI32:
      return Combine(r, to.As<int32_t>() + dst, from.As<const int32_t>()[src]);
    case DType::kI64:
      return Combine(r, to.As<int64_t>() + dst, from.As<const int64_t>()[src]);
    default:
      return;
  }
}

inline Status ReductionType(const char* op, ScatterReduction r, DType t) {
  if (r == ScatterReduction::kNone || (t != DType::kF16 && t != DType::kBool)) return Status::Ok();
  return InvalidArgument(std::string(op) + ": reduction add/mul does not take " + DTypeName(t));
}

}  // namespace loom::kernels::index_detail

#endif  // LOOM_RUNTIME_KERNELS_INDEX_COMMON_H_
