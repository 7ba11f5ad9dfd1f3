// Where loaded native code lives: what the loader needs from the platform, declared here and
// defined once per platform (the way runtime/core/platform.h is):
//
//   runtime/native/code_memory_hosted.cc      Linux and every hosted build: mmap read+write, then
//                                             mprotect read+execute (never writable and
//                                             executable at once)
//   firmware/baremetal/code_memory_a9.cc      Zynq-7000 Cortex-A9 without an OS: one heap block,
//                                             then D-cache clean and I-cache invalidate
//
// A build links exactly one of them.
#ifndef LOOM_RUNTIME_NATIVE_CODE_MEMORY_H_
#define LOOM_RUNTIME_NATIVE_CODE_MEMORY_H_

#include <cstddef>
#include <cstdint>

#include "runtime/core/status.h"

namespace loom::runtime::native {

struct CodeMemory {
  uint8_t* base = nullptr;     // aligned to CodePageSize()
  size_t size = 0;             // bytes usable from base
  void* allocation = nullptr;  // what FreeCodeMemory releases (platform-defined); null when the
                               // memory is the caller's (LoadObjectInto)
  size_t allocation_size = 0;
  size_t sealed = 0;  // bytes SealCodeMemory made executable
};

// The granule of protection: the executable part of a block ends on a multiple of it, so the
// writable data after it never shares a page with code.
size_t CodePageSize();

// Zeroed, writable memory for `size` bytes. `low` asks for addresses below 2 GiB, which x86-64
// code with 32-bit absolute relocations (the static relocation model) needs; a platform that
// cannot place it there says so.
Status AllocateCodeMemory(size_t size, bool low, CodeMemory* out);

// Ends the writing: [base, base + exec_size) becomes read+execute (where the platform protects
// memory), the rest stays read+write, and the instruction cache sees the new code.
Status SealCodeMemory(const CodeMemory& memory, size_t exec_size);

// Releases what AllocateCodeMemory returned (nothing when it is empty). Memory the caller lent
// (allocation null) is not freed but made writable again, as it was lent.
void FreeCodeMemory(const CodeMemory& memory);

}  // namespace loom::runtime::native

#endif  // LOOM_RUNTIME_NATIVE_CODE_MEMORY_H_
