// PlanLink and Link (link.h). Both walk the sections, symbols and relocations in the same order,
// so the offsets and slot numbers Link uses are the ones PlanLink counted.
#include "runtime/native/link.h"

#include <cstring>

namespace loom::runtime::native {

namespace {

constexpr uint64_t kShfTls = 0x400;

enum SymbolState : uint8_t { kResolved = 0, kUnresolved = 1, kUnloaded = 2, kImported = 3 };

uint64_t AlignUp(uint64_t v, uint64_t a) { return a <= 1 ? v : (v + a - 1) & ~(a - 1); }

bool StartsWith(const char* s, const char* prefix) {
  return std::strncmp(s, prefix, std::strlen(prefix)) == 0;
}

// Whether section i goes into the block. Unwind tables and notes stay out; what cannot work without
// a loader feature the object would silently lose (constructors, thread-locals) is refused.
Status IsLoaded(const ElfFile& f, uint32_t i, uint64_t page, bool* loaded) {
  *loaded = false;
  const ElfSection s = f.Section(i);
  const char* name = f.SectionName(i);
  if ((s.flags & elf::kShfAlloc) == 0) return Status::Ok();
  if (s.type == elf::kShtProcUnwind || s.type == elf::kShtNote || StartsWith(name, ".eh_frame") ||
      StartsWith(name, ".ARM.extab") || StartsWith(name, ".ARM.exidx")) {
    return Status::Ok();
  }
  if (s.type == elf::kShtInitArray || s.type == elf::kShtFiniArray ||
      s.type == elf::kShtPreinitArray) {
    if (s.size == 0) return Status::Ok();
    return Unimplemented(
        "section '{}' holds static constructors or destructors, which the loader "
        "does not run",
        name);
  }
  if (s.type != elf::kShtProgbits && s.type != elf::kShtNobits) {
    return Unimplemented(
        "section '{}' is allocatable but of type {}, which the loader does not load", name, s.type);
  }
  if ((s.flags & kShfTls) != 0) {
    return Unimplemented(
        "section '{}' holds thread-local storage, which the loader does not provide", name);
  }
  if (s.align > page) {
    return InvalidArgument("section '{}' wants {}-byte alignment, above the page size {}", name,
                           s.align, page);
  }
  if (s.size > kMaxBlockSize) {
    return OutOfRange("section '{}' is {} bytes, above the loader's limit of {}", name, s.size,
                      kMaxBlockSize);
  }
  *loaded = true;
  return Status::Ok();
}

// Places the loaded sections of one kind (read-only or writable) from `cursor`; records each one's
// address (block address + offset) when `addresses` is given. Returns the new cursor.
uint64_t PlaceSections(const ElfFile& f, uint64_t page, bool writable, uint64_t cursor,
                       uint64_t* addresses, uint64_t base) {
  for (uint32_t i = 0; i < f.section_count(); ++i) {
    bool loaded = false;
    if (!IsLoaded(f, i, page, &loaded).ok() || !loaded) continue;
    const ElfSection s = f.Section(i);
    if (((s.flags & elf::kShfWrite) != 0) != writable) continue;
    cursor = AlignUp(cursor, s.align);
    if (addresses != nullptr) addresses[i] = base + cursor;
    cursor += s.size;
  }
  return cursor;
}

// Places the COMMON symbols (alignment in st_value) from `cursor`, as PlaceSections does.
uint64_t PlaceCommons(const ElfFile& f, uint64_t cursor, uint64_t* addresses, uint64_t base) {
  for (uint32_t i = 0; i < f.symbol_count(); ++i) {
    ElfSymbol s;
    if (!f.Symbol(i, &s).ok() || s.shndx != elf::kShnCommon) continue;
    cursor = AlignUp(cursor, s.value);
    if (addresses != nullptr) addresses[i] = base + cursor;
    cursor += s.size;
  }
  return cursor;
}

// How a symbol is named in messages: a section symbol by its section.
const char* Label(const ElfFile& f, const ElfSymbol& s) {
  if (s.type == elf::kSttSection && s.shndx < f.section_count()) return f.SectionName(s.shndx);
  return s.name[0] != 0 ? s.name : "(no symbol)";
}

bool SectionLoaded(const ElfFile& f, uint32_t i, uint64_t page) {
  bool loaded = false;
  return i < f.section_count() && IsLoaded(f, i, page, &loaded).ok() && loaded;
}

// Whether the symbol is defined in a section the block holds (not UNDEF, ABS or COMMON).
bool InLoadedSection(const ElfFile& f, const ElfSymbol& s, uint64_t page) {
  return s.shndx != elf::kShnUndef && s.shndx < elf::kShnLoReserve &&
         SectionLoaded(f, s.shndx, page);
}

bool Exported(const ElfFile& f, const ElfSymbol& s, uint64_t page) {
  if (s.bind != elf::kStbGlobal && s.bind != elf::kStbWeak) return false;
  if (s.name[0] == 0) return false;
  return s.shndx == elf::kShnAbs || s.shndx == elf::kShnCommon || InLoadedSection(f, s, page);
}

// Calls visit(table, index, reloc, info) for every relocation that patches a loaded section, after
// checking its type, symbol index and offset. Stops at the first error.
template <typename Visit>
Status ForEachReloc(const ElfFile& f, const Arch& arch, uint64_t page, Visit visit) {
  for (uint32_t t = 0; t < f.section_count(); ++t) {
    if (!f.IsRelocTable(t)) continue;
    const uint32_t target = f.Section(t).info;
    if (!SectionLoaded(f, target, page)) continue;
    const ElfSection patched = f.Section(target);
    const char* where = f.SectionName(target);
    const uint64_t n = f.RelocCount(t);
    for (uint64_t j = 0; j < n; ++j) {
      ElfReloc r;
      LOOM_RETURN_IF_ERROR(f.Reloc(t, j, &r).WithContext("section '{}' relocation {}", where, j));
      RelocInfo info;
      if (!arch.Describe(r.type, &info)) {
        return Unimplemented("section '{}' relocation {}: unsupported {} relocation type {}", where,
                             j, arch.triple, r.type);
      }
      if (patched.type == elf::kShtNobits) {
        return InvalidArgument(
            "section '{}' relocation {} ({}) patches a section without bytes "
            "(NOBITS)",
            where, j, info.name);
      }
      if (r.offset > patched.size || info.width > patched.size - r.offset) {
        return OutOfRange(
            "section '{}' relocation {} ({}) at offset {} patches {} bytes past the "
            "section's end ({} bytes)",
            where, j, info.name, r.offset, info.width, patched.size);
      }
      LOOM_RETURN_IF_ERROR(visit(t, j, r, info));
    }
  }
  return Status::Ok();
}

}  // namespace

// LOOM_NATIVE_HOST_ONLY (the bare-metal image) keeps only the running machine's table, so the
// other two are not linked into a board's code.
const Arch* ArchForMachine(uint16_t machine) {
  switch (machine) {
#if !defined(LOOM_NATIVE_HOST_ONLY) || defined(__x86_64__)
    case elf::kMachineX86_64:
      return &X86_64Arch();
#endif
#if !defined(LOOM_NATIVE_HOST_ONLY) || defined(__aarch64__)
    case elf::kMachineAarch64:
      return &Aarch64Arch();
#endif
#if !defined(LOOM_NATIVE_HOST_ONLY) || defined(__arm__)
    case elf::kMachineArm:
      return &ArmArch();
#endif
    default:
      return nullptr;
  }
}

Status PlanLink(const ElfFile& f, uint64_t page, LinkPlan* out) {
  *out = LinkPlan();
  const Arch* arch = ArchForMachine(f.machine());
  if (arch == nullptr) {
    return InvalidArgument(
        "object is for ELF machine {}; the loader takes x86_64 (62), aarch64 "
        "(183) and armv7 (40)",
        f.machine());
  }
  if (arch->elf64 != f.elf64()) {
    return InvalidArgument("object for {} is ELF{}; {} objects are ELF{}", arch->triple,
                           f.elf64() ? 64 : 32, arch->triple, arch->elf64 ? 64 : 32);
  }
  LOOM_RETURN_IF_ERROR(arch->CheckFlags(f.flags()));
  LinkPlan plan;
  plan.arch = arch;
  plan.page_size = page;
  for (uint32_t i = 0; i < f.section_count(); ++i) {
    bool loaded = false;
    LOOM_RETURN_IF_ERROR(IsLoaded(f, i, page, &loaded));
  }
  uint64_t names = 0;
  uint64_t commons = 0;
  for (uint32_t i = 0; i < f.symbol_count(); ++i) {
    ElfSymbol s;
    LOOM_RETURN_IF_ERROR(f.Symbol(i, &s));
    const bool loaded = InLoadedSection(f, s, page);
    if (loaded && s.value > f.Section(s.shndx).size) {
      return InvalidArgument("symbol {} '{}' is at offset {} of section '{}', which has {} bytes",
                             i, s.name, s.value, f.SectionName(s.shndx), f.Section(s.shndx).size);
    }
    if (s.shndx == elf::kShnCommon) {
      if (s.value == 0 || (s.value & (s.value - 1)) != 0 || s.value > page ||
          s.size > kMaxBlockSize) {
        return InvalidArgument("COMMON symbol {} '{}' has alignment {} and size {}", i, s.name,
                               s.value, s.size);
      }
      commons += s.size + s.value;
    }
    if (Exported(f, s, page)) {
      ++plan.export_count;
      names += std::strlen(s.name) + 1;
      // Many symbols may share one long name: stop at the limit, before the sum costs symbols x
      // string-table bytes of time.
      if (names > kMaxBlockSize) {
        return OutOfRange(
            "the names of the first {} exported symbols (to symbol {}) add up to {} bytes, above "
            "the loader's limit of {}",
            plan.export_count, i, names, kMaxBlockSize);
      }
    }
  }
  LOOM_RETURN_IF_ERROR(
      ForEachReloc(f, *arch, page, [&](uint32_t, uint64_t, const ElfReloc&, const RelocInfo& info) {
        if (info.use == RelocUse::kGot) plan.got_count = f.symbol_count();
        if (info.use == RelocUse::kBranch) ++plan.veneer_count;
        plan.needs_low_address |= info.needs_low_address;
        return Status::Ok();
      }));

  // Every term below is bounded (sections and commons by kMaxBlockSize each, counts by the file's
  // size), so the sums cannot wrap before the final limit check.
  uint64_t cursor = PlaceSections(f, page, false, 0, nullptr, 0);
  plan.veneer_offset = AlignUp(cursor, arch->veneer_size);
  cursor = plan.veneer_offset + uint64_t{plan.veneer_count} * arch->veneer_size;
  plan.got_offset = AlignUp(cursor, 8);
  cursor = plan.got_offset + uint64_t{plan.got_count} * arch->got_entry_size;
  plan.export_offset = AlignUp(cursor, 8);
  cursor = plan.export_offset + uint64_t{plan.export_count} * sizeof(Export) + names;
  plan.exec_size = AlignUp(cursor, page);
  cursor = PlaceSections(f, page, true, plan.exec_size, nullptr, 0);
  plan.common_offset = cursor;
  cursor += commons;
  plan.scratch_offset = AlignUp(cursor, 8);
  cursor = plan.scratch_offset + uint64_t{f.section_count()} * 8 + uint64_t{f.symbol_count()} * 9;
  plan.total_size = AlignUp(cursor, page);
  if (plan.total_size > kMaxBlockSize) {
    return OutOfRange("the object needs a {}-byte block, above the loader's limit of {}",
                      plan.total_size, kMaxBlockSize);
  }
  *out = plan;
  return Status::Ok();
}

Status Link(const ElfFile& f, const LinkPlan& plan, const Import* imports, size_t n_imports,
            uint8_t* memory, uint64_t address) {
  const Arch& arch = *plan.arch;
  const uint64_t page = plan.page_size;
  uint64_t* section_address = reinterpret_cast<uint64_t*>(memory + plan.scratch_offset);
  uint64_t* symbol_address = section_address + f.section_count();
  uint8_t* state = reinterpret_cast<uint8_t*>(symbol_address + f.symbol_count());

  PlaceSections(f, page, false, 0, section_address, address);
  PlaceSections(f, page, true, plan.exec_size, section_address, address);
  for (uint32_t i = 0; i < f.section_count(); ++i) {
    if (!SectionLoaded(f, i, page) || f.Section(i).type == elf::kShtNobits) continue;
    std::memcpy(memory + (section_address[i] - address), f.SectionData(i), f.Section(i).size);
  }
  PlaceCommons(f, plan.common_offset, symbol_address, address);

  for (uint32_t i = 0; i < f.symbol_count(); ++i) {
    ElfSymbol s;
    LOOM_RETURN_IF_ERROR(f.Symbol(i, &s));
    state[i] = kResolved;
    if (i == 0) {
      symbol_address[i] = 0;
    } else if (s.shndx == elf::kShnUndef) {
      state[i] = s.bind == elf::kStbWeak ? kResolved : kUnresolved;
      symbol_address[i] = 0;
      for (size_t k = 0; k < n_imports; ++k) {
        if (imports[k].name != nullptr && std::strcmp(imports[k].name, s.name) == 0) {
          symbol_address[i] = reinterpret_cast<uintptr_t>(imports[k].address);
          state[i] = kImported;
          break;
        }
      }
    } else if (s.shndx == elf::kShnAbs) {
      symbol_address[i] = s.value;
    } else if (s.shndx == elf::kShnCommon) {
      // Placed by PlaceCommons.
    } else if (InLoadedSection(f, s, page)) {
      symbol_address[i] = section_address[s.shndx] + s.value;
    } else {
      state[i] = kUnloaded;
    }
  }

  uint32_t veneer = 0;
  LOOM_RETURN_IF_ERROR(ForEachReloc(
      f, arch, page, [&](uint32_t t, uint64_t j, const ElfReloc& r, const RelocInfo& info) {
        const uint32_t target = f.Section(t).info;
        ElfSymbol s;
        LOOM_RETURN_IF_ERROR(f.Symbol(r.symbol, &s));
        const char* where = f.SectionName(target);
        if (state[r.symbol] == kUnresolved) {
          return NotFound(
              "section '{}' relocation {} ({}): undefined symbol '{}' is not among the "
              "{} imports",
              where, j, info.name, s.name, n_imports);
        }
        if (state[r.symbol] == kUnloaded) {
          return Unimplemented(
              "section '{}' relocation {} ({}) refers to '{}' in section '{}', "
              "which the loader does not load",
              where, j, info.name, s.name, f.SectionName(s.shndx));
        }
        Fixup fix;
        fix.type = r.type;
        fix.place = section_address[target] + r.offset;
        fix.where = memory + (fix.place - address);
        fix.symbol = symbol_address[r.symbol];
        fix.symbol_type = s.type;
        fix.import = state[r.symbol] == kImported;
        fix.rela = f.IsRela(t);
        fix.addend = r.addend;
        if (info.use == RelocUse::kGot) {
          const uint64_t off = plan.got_offset + uint64_t{r.symbol} * arch.got_entry_size;
          fix.got = memory + off;
          fix.got_address = address + off;
        }
        if (info.use == RelocUse::kBranch) {
          const uint64_t off = plan.veneer_offset + uint64_t{veneer++} * arch.veneer_size;
          fix.veneer = memory + off;
          fix.veneer_address = address + off;
        }
        return arch.Apply(fix).WithContext("section '{}' relocation {} ({}) against '{}'", where, j,
                                           info.name, Label(f, s));
      }));

  Export* exports = reinterpret_cast<Export*>(memory + plan.export_offset);
  uint64_t name = plan.export_offset + uint64_t{plan.export_count} * sizeof(Export);
  uint32_t e = 0;
  for (uint32_t i = 0; i < f.symbol_count() && e < plan.export_count; ++i) {
    ElfSymbol s;
    LOOM_RETURN_IF_ERROR(f.Symbol(i, &s));
    if (!Exported(f, s, page)) continue;
    const size_t length = std::strlen(s.name) + 1;
    std::memcpy(memory + name, s.name, length);
    exports[e].name_offset = name;
    exports[e].address = symbol_address[i];
    ++e;
    name += length;
  }
  return Status::Ok();
}

}  // namespace loom::runtime::native
