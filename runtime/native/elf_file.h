// A checked, read-only view of an ELF relocatable object (ELF32 or ELF64, little-endian): the
// header, the section table, the symbol table and the relocation tables, each field read with
// bounds checks, so nothing that follows trusts the file. Machine-neutral: which machines the
// loader accepts is decided by its caller (link.h). The constants are the ELF specification's
// (gABI) and the processor supplements'; defined here because bare-metal toolchains have no
// <elf.h>.
#ifndef LOOM_RUNTIME_NATIVE_ELF_FILE_H_
#define LOOM_RUNTIME_NATIVE_ELF_FILE_H_

#include <cstddef>
#include <cstdint>

#include "runtime/core/status.h"

namespace loom::runtime::native {

namespace elf {
constexpr uint16_t kRel = 1;  // e_type ET_REL
constexpr uint16_t kMachineArm = 40, kMachineX86_64 = 62, kMachineAarch64 = 183;
constexpr uint32_t kShtNull = 0, kShtProgbits = 1, kShtSymtab = 2, kShtStrtab = 3, kShtRela = 4;
constexpr uint32_t kShtNote = 7, kShtNobits = 8, kShtRel = 9, kShtInitArray = 14;
constexpr uint32_t kShtFiniArray = 15, kShtPreinitArray = 16, kShtGroup = 17;
constexpr uint32_t kShtProcUnwind = 0x70000001;  // SHT_X86_64_UNWIND and SHT_ARM_EXIDX
constexpr uint64_t kShfWrite = 0x1, kShfAlloc = 0x2, kShfExecInstr = 0x4;
constexpr uint16_t kShnUndef = 0, kShnLoReserve = 0xff00, kShnAbs = 0xfff1, kShnCommon = 0xfff2;
constexpr uint16_t kShnXindex = 0xffff;
constexpr uint8_t kStbLocal = 0, kStbGlobal = 1, kStbWeak = 2;
constexpr uint8_t kSttNotype = 0, kSttObject = 1, kSttFunc = 2, kSttSection = 3;
}  // namespace elf

struct ElfSection {
  uint32_t name = 0;  // offset in the section-name table (checked)
  uint32_t type = 0;
  uint64_t flags = 0;
  uint64_t offset = 0;  // in the file; offset + size is inside it unless type is NOBITS
  uint64_t size = 0;
  uint32_t link = 0;
  uint32_t info = 0;
  uint64_t align = 0;  // 0 or a power of two (checked)
  uint64_t entsize = 0;
};

struct ElfSymbol {
  const char* name = "";  // NUL-terminated, inside the string table
  uint8_t bind = 0;
  uint8_t type = 0;
  uint16_t shndx = 0;  // UNDEF, ABS, COMMON or a section index below section_count() and
                       // kShnLoReserve (checked)
  uint64_t value = 0;
  uint64_t size = 0;
};

struct ElfReloc {
  uint64_t offset = 0;  // in the target section; not checked here (the linker knows the width)
  uint32_t symbol = 0;  // below symbol_count() (checked)
  uint32_t type = 0;
  int64_t addend = 0;  // RELA only; REL addends are in the bytes being relocated
};

class ElfFile {
 public:
  // Checks the header, every section header, the name tables, the symbol table and the shape of
  // every relocation table. `data` is not copied and must outlive the ElfFile.
  static Status Parse(const uint8_t* data, size_t size, ElfFile* out);

  bool elf64() const { return elf64_; }
  uint16_t machine() const { return machine_; }
  uint32_t flags() const { return flags_; }
  const uint8_t* data() const { return data_; }

  uint32_t section_count() const { return section_count_; }
  // `i` below section_count().
  ElfSection Section(uint32_t i) const;
  const char* SectionName(uint32_t i) const;
  // The section's bytes (null for NOBITS); Section(i).size of them.
  const uint8_t* SectionData(uint32_t i) const;

  uint32_t symbol_count() const { return symbol_count_; }
  // Checks the symbol's name offset and section index.
  Status Symbol(uint32_t i, ElfSymbol* out) const;

  // Relocation tables: a REL or RELA section whose info names the section they patch.
  bool IsRelocTable(uint32_t section) const;
  bool IsRela(uint32_t section) const;
  uint64_t RelocCount(uint32_t section) const;
  // Checks the symbol index.
  Status Reloc(uint32_t section, uint64_t i, ElfReloc* out) const;

 private:
  const uint8_t* data_ = nullptr;
  size_t size_ = 0;
  bool elf64_ = false;
  uint16_t machine_ = 0;
  uint32_t flags_ = 0;
  uint64_t section_table_ = 0;
  uint32_t section_count_ = 0;
  uint32_t section_names_ = 0;  // index of .shstrtab
  uint32_t symtab_ = 0;         // index of the symbol table, 0 when there is none
  uint32_t symbol_count_ = 0;
};

// "x86_64", "aarch64", "armv7" for those e_machine values, else null.
const char* MachineName(uint16_t machine);

}  // namespace loom::runtime::native

#endif  // LOOM_RUNTIME_NATIVE_ELF_FILE_H_
