// Runs a package's ops on the host over the arena bytes: the op-level description every segment
// carries, computed with the int8 kernels (runtime/kernels/int8/qops.h) and, for float ops, the
// reference float kernels. This is how the cpu device runs everything and how every other device
// runs CPU segments; the accelerator's programs compute exactly the same bytes.
#ifndef LOOM_RUNTIME_EXEC_CPU_OPS_H_
#define LOOM_RUNTIME_EXEC_CPU_OPS_H_

#include <cstddef>
#include <cstdint>
#include <vector>

#include "runtime/exec/native_ops.h"
#include "runtime/kernels/int8/fast/fast.h"
#include "runtime/kernels/int8/qops.h"
#include "runtime/kernels/tensor.h"
#include "runtime/package/package.h"

namespace loom::runtime {

class CpuOpRunner {
 public:
  // `package` must outlive the runner. Sizes every buffer an op needs once, here: the scratch of
  // layout conversions (the largest tensor), the operand lists (the op with the most inputs) and
  // the fast convolutions' workspace (the largest Conv2d), so Run allocates nothing; and packs
  // each constant convolution weight tensor for the micro-kernels (as much memory again as those
  // weights, int16 tiles twice that), and the float ops' outputs and scratch (the sizes their
  // plans recorded at load). Convolutions, Add, Mul, the pools and Quantize run on `kernels`
  // (kernels/int8/fast/fast.h); every path computes the same bytes. Ops `native` has a function for
  // run through it instead (their weights are not packed); `native` may be null and must outlive
  // the runner.
  CpuOpRunner(const Package& package, kernels::q::fast::KernelPath kernels,
              const NativeOps* native = nullptr);

  // Runs op `op` of segment `segment`; `arena` is the host copy of the arena (arena_bytes()
  // bytes, 64-byte aligned). The package was verified at load and its float ops resolved to their
  // kernels, so errors here come from the kernels' own checks.
  Status Run(size_t segment, size_t op, uint8_t* arena);

 private:
  Status RunFloatOp(const pkg::Op& op, const FloatOpPlan& plan, uint8_t* arena);

  const Package& package_;
  kernels::q::fast::KernelPath kernels_;
  const NativeOps* native_;
  std::vector<int8_t> scratch_;
  std::vector<uint8_t> workspace_;         // fast::Conv2d's repacked tiles and accumulators
  std::vector<uint8_t> native_workspace_;  // native code's (NativeOps::workspace_bytes)
  // Constant convolution weights packed for kernels_ at construction, per op (empty: none).
  std::vector<std::vector<uint8_t>> packed_;
  std::vector<size_t> op_base_;                   // index in packed_ of each segment's first op
  std::vector<kernels::TensorView> views_;        // a float op's inputs
  std::vector<const kernels::TensorView*> ins_;   // into views_, null for an omitted one
  std::vector<kernels::q::ConcatInput> concat_;   // an int8 Concat's inputs
  std::vector<kernels::TensorView> out_views_;    // a float op's outputs (several: run_multi)
  std::vector<const kernels::TensorView*> outs_;  // into out_views_
  // The float ops' scratch (recurrent gates, Det's LU), the largest any op's plan asked for at
  // load; doubles, so every kernel's scratch type is aligned.
  std::vector<double> float_scratch_;
};

}  // namespace loom::runtime

#endif  // LOOM_RUNTIME_EXEC_CPU_OPS_H_
