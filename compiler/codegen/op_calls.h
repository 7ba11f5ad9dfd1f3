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
  enum Kind { kNull, kArena, kConstants } kind = kNull;
  uint64_t offset = 0;
};

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
};

// Every op of every segment that native code runs: the int8 operators Conv2d, Add, Mul,
// MaxPool, AvgPool, Resize, ZeroInsert and Concat. The others (float ops, Quantize, Dequantize,
// Relayout) stay on the portable path, as do a Conv2d whose blocking the kernel body's
// accumulator tile cannot hold (bodies.h, ConvTileFits) and an op with an empty operand. The
// package must have passed the loader's checks.
std::vector<OpCalls> NativeOpCalls(const runtime::Package& package);

}  // namespace loom::codegen

#endif  // LOOM_COMPILER_CODEGEN_OP_CALLS_H_
