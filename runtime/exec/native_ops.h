// A package's native code for this CPU (schema 1.8, NativeCode; docs/cpu.md "Native code"):
// picks the code built for this machine (native::HostTriple()) whose CPU features this CPU has,
// loads its ELF object with runtime/native's loader (imports: memcpy and memset) and resolves one
// function per op. The CPU op runner calls these functions instead of the kernels; they compute
// the same bytes (the kernels' own bodies, specialized by LLVM).
//
// Ownership: NativeOps owns the loaded module; the function pointers live as long as it does.
#ifndef LOOM_RUNTIME_EXEC_NATIVE_OPS_H_
#define LOOM_RUNTIME_EXEC_NATIVE_OPS_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/core/status.h"
#include "runtime/package/package.h"

namespace loom::runtime {

namespace native {
class Module;
}

class NativeOps {
 public:
  // arena: the host copy of the arena; constants: the package's; workspace: scratch of at least
  // workspace_bytes() bytes, any alignment, which the function may overwrite. Returns 0 on
  // success.
  using Fn = int32_t (*)(uint8_t* arena, const uint8_t* constants, uint8_t* workspace);

  // Loads `package`'s code for this machine and CPU. *out stays null when there is none; then
  // *notice says why in one line if the package carries code for another target or for CPU
  // features this one lacks (empty when it carries none at all). Errors: an object the loader
  // refuses, or a symbol the object does not define (named).
  static Status Load(const Package& package, std::unique_ptr<NativeOps>* out, std::string* notice);
  ~NativeOps();

  // The function of op `op` of segment `segment`, or null when it runs on the portable kernels.
  Fn Find(size_t segment, size_t op) const {
    const size_t i = op_base_[segment] + op;
    return i < fns_.size() ? fns_[i] : nullptr;
  }
  const std::string& cpu() const { return cpu_; }
  size_t num_functions() const { return num_functions_; }
  // The scratch every function may use (NativeCode.workspace_bytes, checked at load).
  size_t workspace_bytes() const { return workspace_bytes_; }

 private:
  NativeOps() = default;

  std::unique_ptr<native::Module> module_;
  std::vector<size_t> op_base_;  // index in fns_ of each segment's first op
  std::vector<Fn> fns_;
  std::string cpu_;
  size_t num_functions_ = 0;
  size_t workspace_bytes_ = 0;
};

// The "feature" of code whose functions use their workspace (NativeCode.workspace_bytes, 1.9): a
// capability of this runtime rather than of the CPU, so a 1.8 runtime, which passes no
// workspace, does not know it and runs the kernels instead of that code.
inline constexpr const char* kWorkspaceFeature = "loom-workspace";

// Whether this CPU has `feature` (a name NativeCode.features uses: "avx2", "avx512f", "neon",
// ...). False for a name this runtime does not know.
bool CpuHasFeature(std::string_view feature);

}  // namespace loom::runtime

#endif  // LOOM_RUNTIME_EXEC_NATIVE_OPS_H_
