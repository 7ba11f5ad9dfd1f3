// ElfFile: every field is read through Load16/32/64 (little_endian.h) at an offset proven inside
// the file first, so a truncated or hostile object is refused with a message instead of read out
// of bounds.
#include "runtime/native/elf_file.h"

#include "runtime/native/little_endian.h"

namespace loom::runtime::native {

namespace {

// Whether [offset, offset + length) lies inside a file of `size` bytes, without overflow.
bool Inside(uint64_t offset, uint64_t length, uint64_t size) {
  return offset <= size && length <= size - offset;
}

bool EndsWithNul(const ElfFile& f, uint32_t section) {
  const ElfSection s = f.Section(section);
  return s.type == elf::kShtStrtab && s.size > 0 && f.SectionData(section)[s.size - 1] == 0;
}

}  // namespace

const char* MachineName(uint16_t machine) {
  switch (machine) {
    case elf::kMachineX86_64:
      return "x86_64";
    case elf::kMachineAarch64:
      return "aarch64";
    case elf::kMachineArm:
      return "armv7";
    default:
      return nullptr;
  }
}

Status ElfFile::Parse(const uint8_t* data, size_t size, ElfFile* out) {
  *out = ElfFile();
  if (data == nullptr || size < 16) {
    return DataLoss("object is {} bytes, shorter than an ELF identification (16)", size);
  }
  if (data[0] != 0x7f || data[1] != 'E' || data[2] != 'L' || data[3] != 'F') {
    return InvalidArgument("not an ELF object (no \\x7fELF magic)");
  }
  if (data[4] != 1 && data[4] != 2)
    return InvalidArgument("ELF class {} is neither 32 nor 64", data[4]);
  if (data[5] != 1) return InvalidArgument("ELF data encoding {} is not little-endian", data[5]);
  if (data[6] != 1) return InvalidArgument("ELF version {} is not 1", data[6]);
  const bool e64 = data[4] == 2;
  const size_t header = e64 ? 64 : 52;
  if (size < header) {
    return DataLoss("object is {} bytes, shorter than its ELF{} header ({})", size, e64 ? 64 : 32,
                    header);
  }
  const uint16_t type = Load16(data + 16);
  if (type != elf::kRel) {
    return InvalidArgument(
        "ELF type {} is not a relocatable object (ET_REL, 1): the loader takes "
        "the compiler's .o, not a linked executable or shared library",
        type);
  }
  ElfFile f;
  f.data_ = data;
  f.size_ = size;
  f.elf64_ = e64;
  f.machine_ = Load16(data + 18);
  f.flags_ = Load32(data + (e64 ? 48 : 36));
  f.section_table_ = e64 ? Load64(data + 40) : Load32(data + 32);
  const uint16_t entsize = Load16(data + (e64 ? 58 : 46));
  f.section_count_ = Load16(data + (e64 ? 60 : 48));
  f.section_names_ = Load16(data + (e64 ? 62 : 50));
  if (f.section_count_ == 0) {
    return InvalidArgument(
        "object has no section table (or uses extended section numbering, "
        "which the loader does not read)");
  }
  if (entsize != (e64 ? 64 : 40)) {
    return InvalidArgument("section header size {} is not the ELF{} size {}", entsize,
                           e64 ? 64 : 32, e64 ? 64 : 40);
  }
  if (!Inside(f.section_table_, uint64_t{f.section_count_} * entsize, size)) {
    return DataLoss(
        "section table ({} entries at offset {}) runs past the end of the {}-byte object",
        f.section_count_, f.section_table_, size);
  }
  if (f.section_names_ >= f.section_count_) {
    return InvalidArgument(
        "section-name table index {} is out of range (the object has {} sections)",
        f.section_names_, f.section_count_);
  }
  for (uint32_t i = 0; i < f.section_count_; ++i) {
    const ElfSection s = f.Section(i);
    if (s.type != elf::kShtNobits && s.type != elf::kShtNull && !Inside(s.offset, s.size, size)) {
      return DataLoss("section {} ({} bytes at offset {}) runs past the end of the {}-byte object",
                      i, s.size, s.offset, size);
    }
    if (s.align != 0 && (s.align & (s.align - 1)) != 0) {
      return InvalidArgument("section {} has alignment {}, not a power of two", i, s.align);
    }
    if (s.link >= f.section_count_) {
      return InvalidArgument("section {} links section {}; the object has {}", i, s.link,
                             f.section_count_);
    }
  }
  if (!EndsWithNul(f, f.section_names_)) {
    return InvalidArgument("section-name table (section {}) is not a NUL-terminated string table",
                           f.section_names_);
  }
  const uint64_t names_size = f.Section(f.section_names_).size;
  for (uint32_t i = 0; i < f.section_count_; ++i) {
    if (f.Section(i).name >= names_size) {
      return InvalidArgument(
          "section {}'s name offset {} is past the section-name table ({} bytes)", i,
          f.Section(i).name, names_size);
    }
  }
  const uint64_t sym_size = e64 ? 24 : 16;
  for (uint32_t i = 0; i < f.section_count_; ++i) {
    const ElfSection s = f.Section(i);
    if (s.type != elf::kShtSymtab) continue;
    if (f.symtab_ != 0) {
      return InvalidArgument("sections {} and {} are both symbol tables", f.symtab_, i);
    }
    if (s.entsize != sym_size || s.size % sym_size != 0 || s.size / sym_size > UINT32_MAX) {
      return InvalidArgument(
          "symbol table '{}' has entry size {} and size {}; ELF{} symbols are {} "
          "bytes",
          f.SectionName(i), s.entsize, s.size, e64 ? 64 : 32, sym_size);
    }
    if (!EndsWithNul(f, s.link)) {
      return InvalidArgument(
          "symbol table '{}' names section {} as its strings, which is not a "
          "NUL-terminated string table",
          f.SectionName(i), s.link);
    }
    f.symtab_ = i;
    f.symbol_count_ = static_cast<uint32_t>(s.size / sym_size);
  }
  for (uint32_t i = 0; i < f.section_count_; ++i) {
    const ElfSection s = f.Section(i);
    if (s.type != elf::kShtRel && s.type != elf::kShtRela) continue;
    const uint64_t want = (e64 ? 8 : 4) * (s.type == elf::kShtRela ? 3 : 2);
    if (s.entsize != want || s.size % want != 0) {
      return InvalidArgument(
          "relocation table '{}' has entry size {} and size {}; expected {}-byte "
          "entries",
          f.SectionName(i), s.entsize, s.size, want);
    }
    if (s.info >= f.section_count_) {
      return InvalidArgument("relocation table '{}' patches section {}; the object has {}",
                             f.SectionName(i), s.info, f.section_count_);
    }
    if (s.size > 0 && (f.symtab_ == 0 || s.link != f.symtab_)) {
      return InvalidArgument(
          "relocation table '{}' uses section {} as its symbols, which is not the "
          "symbol table",
          f.SectionName(i), s.link);
    }
  }
  *out = f;
  return Status::Ok();
}

ElfSection ElfFile::Section(uint32_t i) const {
  const uint8_t* p = data_ + section_table_ + uint64_t{i} * (elf64_ ? 64 : 40);
  ElfSection s;
  s.name = Load32(p);
  s.type = Load32(p + 4);
  if (elf64_) {
    s.flags = Load64(p + 8);
    s.offset = Load64(p + 24);
    s.size = Load64(p + 32);
    s.link = Load32(p + 40);
    s.info = Load32(p + 44);
    s.align = Load64(p + 48);
    s.entsize = Load64(p + 56);
  } else {
    s.flags = Load32(p + 8);
    s.offset = Load32(p + 16);
    s.size = Load32(p + 20);
    s.link = Load32(p + 24);
    s.info = Load32(p + 28);
    s.align = Load32(p + 32);
    s.entsize = Load32(p + 36);
  }
  return s;
}

const char* ElfFile::SectionName(uint32_t i) const {
  return reinterpret_cast<const char*>(SectionData(section_names_) + Section(i).name);
}

const uint8_t* ElfFile::SectionData(uint32_t i) const {
  const ElfSection s = Section(i);
  return s.type == elf::kShtNobits ? nullptr : data_ + s.offset;
}

Status ElfFile::Symbol(uint32_t i, ElfSymbol* out) const {
  if (i >= symbol_count_) {
    return InvalidArgument("symbol index {} is out of range (the symbol table has {})", i,
                           symbol_count_);
  }
  const ElfSection table = Section(symtab_);
  const uint8_t* p = data_ + table.offset + uint64_t{i} * (elf64_ ? 24 : 16);
  const uint32_t name = Load32(p);
  const ElfSection strings = Section(table.link);
  if (name >= strings.size) {
    return InvalidArgument("symbol {}'s name offset {} is past its string table ({} bytes)", i,
                           name, strings.size);
  }
  ElfSymbol s;
  s.name = reinterpret_cast<const char*>(SectionData(table.link) + name);
  const uint8_t info = p[elf64_ ? 4 : 12];
  s.bind = info >> 4;
  s.type = info & 0xf;
  s.shndx = Load16(p + (elf64_ ? 6 : 14));
  s.value = elf64_ ? Load64(p + 8) : Load32(p + 4);
  s.size = elf64_ ? Load64(p + 16) : Load32(p + 8);
  if (s.shndx == elf::kShnXindex) {
    return InvalidArgument(
        "symbol {} '{}' uses an extended section index, which the loader does "
        "not read",
        i, s.name);
  }
  // A reserved index names no section even when the object has that many.
  if (s.shndx >= elf::kShnLoReserve) {
    if (s.shndx != elf::kShnAbs && s.shndx != elf::kShnCommon) {
      return InvalidArgument(
          "symbol {} '{}' has the reserved section index {}; the loader reads only ABS ({}) and "
          "COMMON ({})",
          i, s.name, s.shndx, elf::kShnAbs, elf::kShnCommon);
    }
  } else if (s.shndx >= section_count_) {
    return InvalidArgument("symbol {} '{}' is in section {}; the object has {}", i, s.name, s.shndx,
                           section_count_);
  }
  *out = s;
  return Status::Ok();
}

bool ElfFile::IsRelocTable(uint32_t section) const {
  const uint32_t type = Section(section).type;
  return type == elf::kShtRel || type == elf::kShtRela;
}

bool ElfFile::IsRela(uint32_t section) const { return Section(section).type == elf::kShtRela; }

uint64_t ElfFile::RelocCount(uint32_t section) const {
  const ElfSection s = Section(section);
  return s.entsize == 0 ? 0 : s.size / s.entsize;
}

Status ElfFile::Reloc(uint32_t section, uint64_t i, ElfReloc* out) const {
  const ElfSection s = Section(section);
  const uint8_t* p = data_ + s.offset + i * s.entsize;
  ElfReloc r;
  if (elf64_) {
    r.offset = Load64(p);
    const uint64_t info = Load64(p + 8);
    r.symbol = static_cast<uint32_t>(info >> 32);
    r.type = static_cast<uint32_t>(info);
    if (s.type == elf::kShtRela) r.addend = static_cast<int64_t>(Load64(p + 16));
  } else {
    r.offset = Load32(p);
    const uint32_t info = Load32(p + 4);
    r.symbol = info >> 8;
    r.type = info & 0xff;
    if (s.type == elf::kShtRela) r.addend = static_cast<int32_t>(Load32(p + 8));
  }
  if (r.symbol >= symbol_count_) {
    return InvalidArgument("symbol index {} is out of range (the symbol table has {})", r.symbol,
                           symbol_count_);
  }
  *out = r;
  return Status::Ok();
}

}  // namespace loom::runtime::native
