// One machine's relocations, as a small table of functions (the way a driver is): what each type
// is (its name, how many bytes it patches, whether it needs a GOT slot or may need a veneer) and
// how to apply it. link.cc is machine-neutral and drives these; arch_x86_64.cc, arch_aarch64.cc
// and arch_arm.cc define one table each. Every build carries all three, so an object for another
// machine can still be linked into plain memory (tests and the fuzz target do) even though only
// the running machine's code is ever executed.
#ifndef LOOM_RUNTIME_NATIVE_ARCH_H_
#define LOOM_RUNTIME_NATIVE_ARCH_H_

#include <cstddef>
#include <cstdint>

#include "runtime/core/status.h"
#include "runtime/native/little_endian.h"

namespace loom::runtime::native {

enum class RelocUse : uint8_t {
  kNone,    // patches nothing (R_*_NONE, R_ARM_V4BX)
  kPlain,   // computed from S, A and P alone
  kGot,     // needs a GOT slot (one per symbol; the loader builds the GOT in the block)
  kBranch,  // a call or jump: gets a veneer slot, used when the target is an import, out of range
            // or (armv7) in the other instruction set where the branch cannot switch
};

struct RelocInfo {
  const char* name = nullptr;  // "R_X86_64_PC32"
  uint8_t width = 0;           // bytes patched at the relocation's offset
  RelocUse use = RelocUse::kNone;
  bool needs_low_address = false;  // the value must fit 32 bits (x86-64 R_X86_64_32/32S)
};

// One relocation to apply. `where` points at the bytes to patch (at least `width` of them, and
// the section's data up to its end is writable); the *_address fields are where things will be when
// the code runs, which the tests and fuzz target choose freely.
struct Fixup {
  uint32_t type = 0;
  uint8_t* where = nullptr;
  uint64_t place = 0;       // P
  uint64_t symbol = 0;      // S (an armv7 Thumb function's has bit 0 set)
  uint8_t symbol_type = 0;  // STT_*; armv7 reads the Thumb bit only from functions
  bool import = false;      // S came from the caller's imports
  bool rela = false;        // the addend is `addend`, else it is read from the patched bytes
  int64_t addend = 0;
  uint8_t* got = nullptr;  // kGot: the symbol's slot (got_entry_size bytes), else null
  uint64_t got_address = 0;
  uint8_t* veneer = nullptr;  // kBranch: this relocation's veneer slot (veneer_size bytes)
  uint64_t veneer_address = 0;
};

struct Arch {
  uint16_t machine;  // e_machine
  const char* triple;
  bool elf64;
  uint32_t got_entry_size;
  uint32_t veneer_size;  // also the alignment of the veneer area
  // False for a type the loader does not implement.
  bool (*Describe)(uint32_t type, RelocInfo* info);
  // Patches fixup.where (and fills the GOT or veneer slot it uses). An error says what does not
  // fit; the caller adds the section, index, type and symbol.
  Status (*Apply)(const Fixup& fixup);
  // Checks the header flags of an object for this machine (armv7: the float ABI).
  Status (*CheckFlags)(uint32_t e_flags);
};

const Arch& X86_64Arch();
const Arch& Aarch64Arch();
const Arch& ArmArch();
// The table for an e_machine value, or null.
const Arch* ArchForMachine(uint16_t machine);

// Sign-extends the low `bits` bits of v.
inline int64_t SignExtend(uint64_t v, int bits) {
  const uint64_t m = uint64_t{1} << (bits - 1);
  v &= (m << 1) - 1;
  return static_cast<int64_t>((v ^ m) - m);
}
inline bool FitsSigned(int64_t v, int bits) {
  return v >= -(int64_t{1} << (bits - 1)) && v < (int64_t{1} << (bits - 1));
}

}  // namespace loom::runtime::native

#endif  // LOOM_RUNTIME_NATIVE_ARCH_H_
