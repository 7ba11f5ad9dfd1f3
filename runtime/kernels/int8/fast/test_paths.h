// For the fast kernels' tests: every kernel path this build and CPU can run, the reference path
// included (it must refuse what the others refuse), so each test covers every variant it can.
#ifndef LOOM_RUNTIME_KERNELS_INT8_FAST_TEST_PATHS_H_
#define LOOM_RUNTIME_KERNELS_INT8_FAST_TEST_PATHS_H_

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

}  // namespace loom::kernels::q::fast

#endif  // LOOM_RUNTIME_KERNELS_INT8_FAST_TEST_PATHS_H_
