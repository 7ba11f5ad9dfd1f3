// Ahead-of-time native code for a package's CPU ops (docs/cpu.md, "Native code"). For each op
// that op_calls.h describes, an LLVM function
//   int32_t loom_op_<segment>_<op>(uint8_t* arena, const uint8_t* constants, uint8_t* workspace)
// calls the kernel ABI's entries with their shapes and parameters as constants; a Conv2d calls
// the register-blocked rows of the instruction set the target CPU has (AVX2, AVX-512 VNNI or
// NEON, chosen here), with its weights packed at compile time into the object's rodata and its
// padded input in `workspace` (NativeCode.workspace_bytes). The kernels'
// bitcode (clang, at build time) is linked in, everything but these functions is internalized,
// LLVM's O3 pipeline inlines and specializes the kernels for the target CPU, and the result is an
// ELF relocatable object (static relocation model, small code model) the runtime's loader
// (runtime/native) places in memory. The runtime never links LLVM; only this library does.
#ifndef LOOM_COMPILER_CODEGEN_CODEGEN_H_
#define LOOM_COMPILER_CODEGEN_CODEGEN_H_

#include <functional>
#include <string>

#include "compiler/codegen/op_calls.h"
#include "compiler/codegen/targets.h"
#include "compiler/package/writer.h"
#include "runtime/package/package.h"

namespace loom::codegen {

struct CodegenOptions {
  // Called as each op's function is built (done, total) and once more when the object is
  // emitted; may be empty.
  std::function<void(size_t, size_t)> progress;
  // AddNativeCode: called when a target's object is done, with the seconds it took.
  std::function<void(const CpuTarget&, const package::NativeCodeSpec&, double)> done;
};

// Native code for `package` on `target`. Errors: the target LLVM cannot build for, and LLVM's
// own failures (named).
// The register-blocked row kernels (op_calls.h ConvRows) the target's CPU features select: the
// instruction set is fixed at code generation, not dispatched at run time.
ConvRows RowsFor(const CpuTarget& target);

Status CompileNative(const runtime::Package& package, const CpuTarget& target,
                     const CodegenOptions& options, package::NativeCodeSpec* out);

// Serializes `spec`, loads it with the runtime's loader (so the ops' parameters are read exactly
// as the CPU op runner reads them) and appends native code for each of `targets` to spec->native.
Status AddNativeCode(const std::vector<CpuTarget>& targets, const CodegenOptions& options,
                     package::PackageSpec* spec);

}  // namespace loom::codegen

#endif  // LOOM_COMPILER_CODEGEN_CODEGEN_H_
