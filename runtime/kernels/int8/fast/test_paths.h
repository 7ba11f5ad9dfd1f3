// For the fast kernels' tests: every kernel path this build and CPU can run, the reference path
// included (it must refuse what the others refuse), so each test covers every variant it can.
#ifndef LOOM_RUNTIME_KERNELS_INT8_FAST_TEST_PATHS_H_
#define LOOM_RUNTIME_KERNELS_INT8_FAST_TEST_PATHS_H_

#include <algorithm>
#include <random>
#include <vector>

#include "runtime/kernels/int8/fast/fast.h"

namespace loom::kernels::q::fast {

inline std::vector<KernelPath> Paths() {
  std::vector<KernelPath> v;
  for (KernelPath p : {KernelPath::kReference, KernelPath::kPortable, KernelPath::kAvx2,
                       KernelPath::kAvx512Vnni, KernelPath::kNeon, KernelPath::kNeonDot}) {
    if (PathSupported(p)) v.push_back(p);
  }
  return v;
}

// A random pooling window over a random small input: kernel up to max_k (and the input), strides
// up to 3, each pad below its kernel size, as CheckWindow requires.
inline PoolParams RandomWindow(std::mt19937& rng, int max_k) {
  auto u = [&](int lo, int hi) {
    return static_cast<uint32_t>(std::uniform_int_distribution<int>(lo, hi)(rng));
  };
  PoolParams p;
  p.in = {u(1, 3), u(1, 70), u(1, 12), u(1, 12)};
  p.kh = u(1, std::min<int>(max_k, static_cast<int>(p.in.h)));
  p.kw = u(1, std::min<int>(max_k, static_cast<int>(p.in.w)));
  p.stride_h = u(1, 3);
  p.stride_w = u(1, 3);
  p.pad_top = u(0, static_cast<int>(p.kh) - 1);
  p.pad_bottom = u(0, static_cast<int>(p.kh) - 1);
  p.pad_left = u(0, static_cast<int>(p.kw) - 1);
  p.pad_right = u(0, static_cast<int>(p.kw) - 1);
  return p;
}

}  // namespace loom::kernels::q::fast

#endif  // LOOM_RUNTIME_KERNELS_INT8_FAST_TEST_PATHS_H_
