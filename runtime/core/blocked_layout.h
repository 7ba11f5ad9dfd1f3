// Sizes of the accelerator's blocked layouts, computed once for the package loader, the int8
// kernels, the compiler's lowering and partitioning (TensorLayout in loom_package.fbs). With
// B = batch and c = block (HwConfig batch and block_in == block_out), each pads to whole blocks
// with zeros:
//   activation     logical [N, C, H, W]  stored [N/B][C/c][H][W][B][c]
//   conv weights   logical [O, I, KH, KW] stored [O/c][I/c][KH][KW][c][c]
//   depthwise      logical [C, 1, KH, KW] stored [C/c][KH][KW][c]
//   channel vector logical [C]            stored [C/c][B][c]  (int32 bias and multipliers)
// Dims come from files Loom did not write, so every count is overflow-checked: false (and *out
// untouched) when a block size is 0 or the count does not fit uint64_t. Header-only, C++17.
#ifndef LOOM_RUNTIME_CORE_BLOCKED_LAYOUT_H_
#define LOOM_RUNTIME_CORE_BLOCKED_LAYOUT_H_

#include <cstdint>
#include <initializer_list>
#include <type_traits>

#include "runtime/core/checked_math.h"

namespace loom {

// ceil(a / b) for unsigned a and b > 0, without the overflow of (a + b - 1) / b.
template <typename T>
constexpr T CeilDiv(T a, T b) {
  static_assert(std::is_unsigned_v<T>, "unsigned only");
  return a / b + (a % b != 0 ? 1 : 0);
}

namespace blocked_internal {
inline bool Product(std::initializer_list<uint64_t> factors, uint64_t* out) {
  uint64_t n = 1;
  for (uint64_t f : factors) {
    if (!CheckedMul(n, f, &n)) return false;
  }
  *out = n;
  return true;
}
}  // namespace blocked_internal

// B x c vectors of a blocked activation: ceil(N/B) * ceil(C/c) * H * W (the unit the
// accelerator's LOAD/STORE and ALU address).
[[nodiscard]] inline bool BlockedActivationVectors(uint64_t n, uint64_t c, uint64_t h, uint64_t w,
                                                   uint64_t batch, uint64_t block, uint64_t* out) {
  if (batch == 0 || block == 0) return false;
  return blocked_internal::Product({CeilDiv(n, batch), CeilDiv(c, block), h, w}, out);
}

// Elements (= bytes, int8) of a blocked activation.
[[nodiscard]] inline bool BlockedActivationElems(uint64_t n, uint64_t c, uint64_t h, uint64_t w,
                                                 uint64_t batch, uint64_t block, uint64_t* out) {
  uint64_t v = 0;
  return BlockedActivationVectors(n, c, h, w, batch, block, &v) &&
         blocked_internal::Product({v, batch, block}, out);
}

// Elements (= bytes, int8) of blocked conv weights.
[[nodiscard]] inline bool BlockedWeightElems(uint64_t o, uint64_t i, uint64_t kh, uint64_t kw,
                                             uint64_t block, uint64_t* out) {
  if (block == 0) return false;
  return blocked_internal::Product({CeilDiv(o, block), CeilDiv(i, block), kh, kw, block, block},
                                   out);
}

// Elements (= bytes, int8) of blocked depthwise weights.
[[nodiscard]] inline bool BlockedDepthwiseElems(uint64_t c, uint64_t kh, uint64_t kw,
                                                uint64_t block, uint64_t* out) {
  if (block == 0) return false;
  return blocked_internal::Product({CeilDiv(c, block), kh, kw, block}, out);
}

// Elements (int32, 4 bytes each) of a blocked per-channel vector.
[[nodiscard]] inline bool BlockedVectorElems(uint64_t c, uint64_t batch, uint64_t block,
                                             uint64_t* out) {
  if (batch == 0 || block == 0) return false;
  return blocked_internal::Product({CeilDiv(c, block), batch, block}, out);
}

}  // namespace loom

#endif  // LOOM_RUNTIME_CORE_BLOCKED_LAYOUT_H_
