// The CPU targets `loom compile --cpu-targets` compiles native code for (docs/cpu.md, "Native
// code"): a target name the runtime knows (native::HostTriple()), the LLVM triple, the CPU LLVM
// tunes and selects instructions for, and the CPU features that code needs, which the package
// records and the runtime checks before loading it.
#ifndef LOOM_COMPILER_CODEGEN_TARGETS_H_
#define LOOM_COMPILER_CODEGEN_TARGETS_H_

#include <string>
#include <vector>

#include "runtime/core/status.h"

namespace loom::codegen {

struct CpuTarget {
  std::string name;                   // "x86_64" | "aarch64" | "armv7"
  std::string triple;                 // LLVM's
  std::string cpu;                    // LLVM's CPU name
  std::string llvm_features;          // extra LLVM features ("+neon"), beyond the CPU's
  std::vector<std::string> features;  // what the runtime checks (runtime/exec/native_ops.cc)
};

// The name of the target this compiler runs on ("x86_64", "aarch64", "armv7"; empty elsewhere).
std::string HostTargetName();

// Parses `--cpu-targets`: a comma-separated list of NAME or NAME:CPU, e.g.
// "x86_64,armv7,aarch64" or "x86_64:x86-64-v4". Baselines: x86_64 x86-64-v3 (AVX2), aarch64
// cortex-a53, armv7 cortex-a9 with NEON. "host" is the host's target at the widest CPU whose
// features this machine has (x86_64: cascadelake with AVX-512 VNNI, x86-64-v4, or down to the
// baseline); "host:CPU" names one. "none" (alone) is no native code. Errors name the entry and
// list what is accepted.
Status ParseCpuTargets(const std::string& list, std::vector<CpuTarget>* out);

}  // namespace loom::codegen

#endif  // LOOM_COMPILER_CODEGEN_TARGETS_H_
