// The machine-neutral half of the loader: plan a block for one relocatable object, then copy,
// resolve and relocate it into memory the caller provides. LoadObject (loader.h) puts executable
// memory under it; the tests and the fuzz target use plain memory and any address, for any of the
// three machines.
//
// The block, from its start:
//   read+execute part   .text*, .rodata* and other read-only sections, veneers, the GOT, the
//                       export table and its names; padded to a page
//   read+write part     .data*, .bss*, COMMON symbols; then the loader's scratch (the address of
//                       every section and symbol), which is dead once Link returns
// A veneer belongs to one relocation and a GOT slot to one symbol (an ADRP/LDR pair must meet in
// the same slot), slot i for symbol i: the sizes are known from one pass over the relocations, so
// the loader needs no allocation besides the block.
#ifndef LOOM_RUNTIME_NATIVE_LINK_H_
#define LOOM_RUNTIME_NATIVE_LINK_H_

#include <cstddef>
#include <cstdint>

#include "runtime/core/status.h"
#include "runtime/native/arch.h"
#include "runtime/native/elf_file.h"
#include "runtime/native/loader.h"

namespace loom::runtime::native {

// The loader refuses layouts larger than this (a NOBITS size is only a number in the file).
constexpr uint64_t kMaxBlockSize = uint64_t{256} << 20;

struct LinkPlan {
  const Arch* arch = nullptr;
  uint64_t page_size = 0;
  uint64_t exec_size = 0;          // the read+execute part, a multiple of page_size
  uint64_t total_size = 0;         // exec_size + the read+write part
  bool needs_low_address = false;  // some value must fit 32 bits (x86-64 static code)
  uint64_t veneer_offset = 0;
  uint32_t veneer_count = 0;
  uint64_t got_offset = 0;
  uint32_t got_count = 0;
  uint64_t export_offset = 0;  // Export entries, then their names
  uint32_t export_count = 0;
  uint64_t common_offset = 0;   // COMMON symbols, after the writable sections
  uint64_t scratch_offset = 0;  // section addresses, symbol addresses, symbol states
};

// Checks everything that does not depend on where the block goes or on the imports: the machine,
// its header flags, every loaded section and symbol, every relocation (type known, symbol index
// and offset in range) and the block's size. `page_size` is a power of two.
Status PlanLink(const ElfFile& file, uint64_t page_size, LinkPlan* out);

// Lays the object out in `memory` (plan.total_size bytes, zeroed, writable), as it will run at
// `address`: copies the sections, resolves undefined symbols from `imports`, applies every
// relocation and writes the export table at plan.export_offset.
Status Link(const ElfFile& file, const LinkPlan& plan, const Import* imports, size_t n_imports,
            uint8_t* memory, uint64_t address);

// The export table Link wrote.
inline const Export* Exports(const uint8_t* memory, const LinkPlan& plan) {
  return reinterpret_cast<const Export*>(memory + plan.export_offset);
}

}  // namespace loom::runtime::native

#endif  // LOOM_RUNTIME_NATIVE_LINK_H_
