// Runs a package's ops on the host over the arena bytes: the op-level description every segment
// carries, computed with the int8 kernels (runtime/kernels/int8/qops.h) and, for float ops, the
// reference float kernels. This is how the cpu device runs everything and how every other device
// runs CPU segments; the accelerator's programs compute exactly the same bytes.
#ifndef LOOM_RUNTIME_EXEC_CPU_OPS_H_
#define LOOM_RUNTIME_EXEC_CPU_OPS_H_

#include <cstdint>
#include <vector>

#include "runtime/package/package.h"

namespace loom::runtime {

class CpuOpRunner {
 public:
  // `package` must outlive the runner. Sizes the scratch buffer once for the largest op.
  explicit CpuOpRunner(const Package& package);

  // Runs one op; `arena` is the host copy of the arena (arena_bytes() bytes, 64-byte aligned).
  // The package was verified at load, so errors here come from the kernels' own checks.
  Status Run(const pkg::Op& op, uint8_t* arena);

 private:
  const Package& package_;
  std::vector<int8_t> scratch_;
};

}  // namespace loom::runtime

#endif  // LOOM_RUNTIME_EXEC_CPU_OPS_H_
