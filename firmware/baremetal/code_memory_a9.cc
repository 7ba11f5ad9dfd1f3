// The code memory of runtime/native/code_memory.h on a Cortex-A9 without an OS: one heap block
// per module. DDR is mapped normal, executable memory (mmu_a9.cc) with no per-page protection, so
// sealing is cache maintenance only: the loader wrote the code through the L1 data cache, and the
// instruction fetches must see it. Clean the data cache to the point of unification by address,
// then invalidate the instruction cache and the branch predictor (ARMv7-A ARM B2.2.9).
#include <cstdint>
#include <cstdlib>

#include "runtime/native/code_memory.h"

namespace loom::runtime::native {

namespace {

// The A9's cache line; also the padding between code and writable data, so the two never share
// a line (no page protection to keep apart).
constexpr size_t kLine = 32;

}  // namespace

size_t CodePageSize() { return 64; }

Status AllocateCodeMemory(size_t size, bool /*low*/, CodeMemory* out) {
  *out = CodeMemory();
  if (size == 0) return Status::Ok();
  // Every address fits 32 bits here, so `low` needs nothing.
  const size_t align = CodePageSize();
  void* p = std::calloc(1, size + align);
  if (p == nullptr) {
    return FailedPrecondition("out of heap for {} bytes of native code", size);
  }
  const uintptr_t base = (reinterpret_cast<uintptr_t>(p) + align - 1) & ~(uintptr_t{align} - 1);
  out->base = reinterpret_cast<uint8_t*>(base);
  out->size = size;
  out->allocation = p;
  out->allocation_size = size + align;
  return Status::Ok();
}

Status SealCodeMemory(const CodeMemory& memory, size_t exec_size) {
  const uintptr_t begin = reinterpret_cast<uintptr_t>(memory.base) & ~(uintptr_t{kLine} - 1);
  const uintptr_t end = reinterpret_cast<uintptr_t>(memory.base) + exec_size;
  for (uintptr_t a = begin; a < end; a += kLine) {
    __asm__ volatile("mcr p15, 0, %0, c7, c11, 1" ::"r"(a) : "memory");  // DCCMVAU
  }
  __asm__ volatile("dsb" ::: "memory");
  __asm__ volatile("mcr p15, 0, %0, c7, c5, 0" ::"r"(0) : "memory");  // ICIALLU
  __asm__ volatile("mcr p15, 0, %0, c7, c5, 6" ::"r"(0) : "memory");  // BPIALL
  __asm__ volatile("dsb\n isb" ::: "memory");
  return Status::Ok();
}

void FreeCodeMemory(const CodeMemory& memory) { std::free(memory.allocation); }

}  // namespace loom::runtime::native
