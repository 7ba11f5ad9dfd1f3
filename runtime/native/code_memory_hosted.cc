// The code memory of code_memory.h on a hosted OS: anonymous mmap, read+write while the loader
// writes, then mprotect: the code part read+execute, the data part left read+write. W^X holds at
// every moment, so the loader works under kernels and sanitizers that refuse RWX mappings.
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "runtime/native/code_memory.h"

namespace loom::runtime::native {

size_t CodePageSize() {
  const long page = sysconf(_SC_PAGESIZE);
  return page > 0 ? static_cast<size_t>(page) : 4096;
}

Status AllocateCodeMemory(size_t size, bool low, CodeMemory* out) {
  *out = CodeMemory();
  if (size == 0) return Status::Ok();
  int flags = MAP_PRIVATE | MAP_ANONYMOUS;
#if defined(__x86_64__) && defined(MAP_32BIT)
  // MAP_32BIT places the mapping in the first 2 GiB, where R_X86_64_32/32S values fit.
  if (low) flags |= MAP_32BIT;
#else
  if (low) {
    return Unimplemented(
        "the object needs addresses below 2 GiB (32-bit absolute relocations), which this "
        "platform cannot map; compile it position-independent (-fPIC)");
  }
#endif
  void* p = mmap(nullptr, size, PROT_READ | PROT_WRITE, flags, -1, 0);
  if (p == MAP_FAILED) {
    return FailedPrecondition("mapping {} bytes for native code{} failed: {}", size,
                              low ? " below 2 GiB" : "", std::strerror(errno));
  }
  out->base = static_cast<uint8_t*>(p);
  out->size = size;
  out->allocation = p;
  out->allocation_size = size;
  return Status::Ok();
}

Status SealCodeMemory(const CodeMemory& memory, size_t exec_size) {
  if (exec_size == 0) return Status::Ok();
  if (mprotect(memory.base, exec_size, PROT_READ | PROT_EXEC) != 0) {
    return FailedPrecondition("making {} bytes of native code executable failed: {}", exec_size,
                              std::strerror(errno));
  }
  // Needed on ARM (separate instruction and data caches); a no-op on x86-64.
  __builtin___clear_cache(reinterpret_cast<char*>(memory.base),
                          reinterpret_cast<char*>(memory.base + exec_size));
  return Status::Ok();
}

void FreeCodeMemory(const CodeMemory& memory) {
  if (memory.allocation != nullptr) {
    munmap(memory.allocation, memory.allocation_size);
  } else if (memory.sealed != 0) {
    // The caller's memory goes back as it came: read+write, no longer executable.
    mprotect(memory.base, memory.sealed, PROT_READ | PROT_WRITE);
  }
}

}  // namespace loom::runtime::native
