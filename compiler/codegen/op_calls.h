// What the native function of each CPU op does, as plain data: a list of kernel-ABI calls
// (runtime/kernels/int8/abi/kernel_abi.h), each an entry point with its constant argument array
// and its buffers as offsets into the arena or the constants. The code generator (codegen.cc)
// turns each list into one LLVM function; kept free of LLVM so it is tested on its own.
//
// The values come from the package through runtime/exec/op_params.h, the same reading the CPU
// op runner does, so native code and the portable kernels run each op with identical parameters.
#ifndef LOOM_COMPILER_CODEGEN_OP_CALLS_H_
#define LOOM_COMPILER_CODEGEN_OP_CALLS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "runtime/package/package.h"

namespace loom::codegen {

struct Buffer {
  // kRodata: OpCalls::rodata[offset], a constant the code generator stores in the object;
  // kWorkspace: the op function's workspace argument plus offset.
  enum Kind { kNull, kArena, kConstants, kRodata, kWorkspace } kind = kNull;
  uint64_t offset = 0;
};

// Which register-blocked row kernels (runtime/kernels/int8/fast/rows.h) the target CPU runs a
// Conv2d on, chosen at code generation from its features: none (the reference body), AVX2
// (x86-64-v3 and up), or AVX-512 VNNI for blocks 16 and 32 (AVX2 rows for block 8, as
// fast::Conv2d does at run time), or NEON smlal (armv7 and aarch64: the sdot rows need a CPU
// the baseline CPUs are not).
enum class ConvRows { kNone, kAvx2, kAvx512Vnni, kNeon };

struct KernelCall {
  const char* entry = nullptr;  // a kernel_abi.h symbol; null: memset(buffers[0], 0, bytes)
  std::vector<int32_t> args;
  std::vector<Buffer> buffers;  // the entry's pointer arguments after `args`, in order
  uint64_t bytes = 0;
};

struct OpCalls {
  uint32_t segment = 0, op = 0;
  std::string symbol;  // loom_op_<segment>_<op>
  std::vector<KernelCall> calls;
  std::vector<std::vector<uint8_t>> rodata;  // constants its calls read (packed weights)
  uint64_t workspace_bytes = 0;              // what its calls need of the workspace
};

// Every op of every segment that native code runs: the int8 operators Conv2d, Add, Mul,
// MaxPool, AvgPool, Resize, ZeroInsert and Concat. The others (float ops, Quantize, Dequantize,
// Relayout) stay on the portable path, as do a Conv2d whose blocking the kernel body's
// accumulator tile cannot hold (bodies.h, ConvTileFits) and an op with an empty operand. The
// package must have passed the loader's checks.
// Conv2d runs on the `rows` kernels where they take its blocking (batch block 1, a block they
// handle), with its weights packed here, at compile time, into the kernels' layout.
std::vector<OpCalls> NativeOpCalls(const runtime::Package& package, ConvRows rows);

}  // namespace loom::codegen

#endif  // LOOM_COMPILER_CODEGEN_OP_CALLS_H_
