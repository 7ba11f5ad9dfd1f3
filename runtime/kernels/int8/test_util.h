// Helpers for the int8 kernel tests: random data, and plain <-> blocked round trips so each test
// can compare a kernel against a straightforward loop on the logical NCHW layout.
#ifndef LOOM_RUNTIME_KERNELS_INT8_TEST_UTIL_H_
#define LOOM_RUNTIME_KERNELS_INT8_TEST_UTIL_H_

#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <vector>

#include "runtime/kernels/int8/qops.h"

namespace loom::kernels::q::testing {

inline std::vector<int8_t> RandomI8(size_t n, uint32_t seed, int lo = -128, int hi = 127) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> d(lo, hi);
  std::vector<int8_t> v(n);
  for (auto& x : v) x = static_cast<int8_t>(d(rng));
  return v;
}

inline std::vector<int32_t> RandomI32(size_t n, uint32_t seed, int32_t lo, int32_t hi) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int32_t> d(lo, hi);
  std::vector<int32_t> v(n);
  for (auto& x : v) x = d(rng);
  return v;
}

inline size_t Elems(const ActShape& s) { return size_t{s.n} * s.c * s.h * s.w; }

// Blocked copy of a plain tensor, pre-filled with a garbage byte so a test sees any padding lane
// that the packer forgot to zero.
inline std::vector<int8_t> Pack(const Blocking& b, const ActShape& s,
                                const std::vector<int8_t>& plain) {
  std::vector<int8_t> out(BlockedBytes(b, s), 0x5a);
  EXPECT_TRUE(PackActivation(b, s, plain.data(), out.data()).ok());
  return out;
}

inline std::vector<int8_t> Unpack(const Blocking& b, const ActShape& s,
                                  const std::vector<int8_t>& blocked) {
  std::vector<int8_t> out(Elems(s));
  EXPECT_TRUE(UnpackActivation(b, s, blocked.data(), out.data()).ok());
  return out;
}

// True if every lane of a blocked tensor that does not hold a logical element is zero.
inline bool PaddingIsZero(const Blocking& b, const ActShape& s, const std::vector<int8_t>& blk) {
  std::vector<bool> real(blk.size(), false);
  for (uint32_t n = 0; n < s.n; ++n)
    for (uint32_t c = 0; c < s.c; ++c)
      for (uint32_t h = 0; h < s.h; ++h)
        for (uint32_t w = 0; w < s.w; ++w) real[BlockedIndex(b, s, n, c, h, w)] = true;
  for (size_t i = 0; i < blk.size(); ++i)
    if (!real[i] && blk[i] != 0) return false;
  return true;
}

// The blockings every operator test runs under: block 16 (VTA default), blocks that do not divide
// the channel counts, and batch blocks > 1.
inline std::vector<Blocking> TestBlockings() { return {{1, 16}, {1, 8}, {2, 4}, {1, 1}, {4, 8}}; }

}  // namespace loom::kernels::q::testing

#endif  // LOOM_RUNTIME_KERNELS_INT8_TEST_UTIL_H_
