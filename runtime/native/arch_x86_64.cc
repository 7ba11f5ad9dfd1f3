// x86-64 relocations (System V psABI, "Relocation Types"): what clang/LLVM and gcc emit for code
// in the small code model, static (absolute 32-bit addresses, so the block is mapped below 2 GiB)
// or position-independent (GOT loads; the loader builds the GOT and does not relax it).
#include "runtime/native/arch.h"
#include "runtime/native/elf_file.h"

namespace loom::runtime::native {

namespace {

constexpr uint32_t kNone = 0, k64 = 1, kPc32 = 2, kPlt32 = 4, kGotPcRel = 9, k32 = 10, k32S = 11;
constexpr uint32_t kPc64 = 24, kGotPcRelX = 41, kRexGotPcRelX = 42;

bool Describe(uint32_t type, RelocInfo* info) {
  switch (type) {
    case kNone:
      *info = {"R_X86_64_NONE", 0, RelocUse::kNone, false};
      return true;
    case k64:
      *info = {"R_X86_64_64", 8, RelocUse::kPlain, false};
      return true;
    case kPc32:
      *info = {"R_X86_64_PC32", 4, RelocUse::kPlain, false};
      return true;
    case kPlt32:
      *info = {"R_X86_64_PLT32", 4, RelocUse::kBranch, false};
      return true;
    case kGotPcRel:
      *info = {"R_X86_64_GOTPCREL", 4, RelocUse::kGot, false};
      return true;
    case k32:
      *info = {"R_X86_64_32", 4, RelocUse::kPlain, true};
      return true;
    case k32S:
      *info = {"R_X86_64_32S", 4, RelocUse::kPlain, true};
      return true;
    case kPc64:
      *info = {"R_X86_64_PC64", 8, RelocUse::kPlain, false};
      return true;
    case kGotPcRelX:
      *info = {"R_X86_64_GOTPCRELX", 4, RelocUse::kGot, false};
      return true;
    case kRexGotPcRelX:
      *info = {"R_X86_64_REX_GOTPCRELX", 4, RelocUse::kGot, false};
      return true;
    default:
      return false;
  }
}

Status Store32Signed(uint8_t* where, int64_t v, const char* what, const char* hint = "") {
  if (!FitsSigned(v, 32))
    return OutOfRange("{} {} does not fit in 32 signed bits{}", what, v, hint);
  Store32(where, static_cast<uint32_t>(v));
  return Status::Ok();
}

Status Apply(const Fixup& f) {
  const int64_t a = f.rela
                        ? f.addend
                        : (f.type == k64 || f.type == kPc64 ? static_cast<int64_t>(Load64(f.where))
                                                            : SignExtend(Load32(f.where), 32));
  const uint64_t s = f.symbol;
  const uint64_t p = f.place;
  switch (f.type) {
    case kNone:
      return Status::Ok();
    case k64:
      Store64(f.where, s + static_cast<uint64_t>(a));
      return Status::Ok();
    case kPc64:
      Store64(f.where, s + static_cast<uint64_t>(a) - p);
      return Status::Ok();
    case kPc32:
      return Store32Signed(f.where, static_cast<int64_t>(s + static_cast<uint64_t>(a) - p),
                           "PC-relative offset");
    case kPlt32: {
      uint64_t target = s;
      const int64_t direct = static_cast<int64_t>(s + static_cast<uint64_t>(a) - p);
      if (f.import || !FitsSigned(direct, 32)) {
        // jmp *0(%rip) followed by the absolute target: reaches anywhere in the address space.
        static const uint8_t kJump[6] = {0xff, 0x25, 0, 0, 0, 0};
        for (int i = 0; i < 6; ++i) f.veneer[i] = kJump[i];
        Store64(f.veneer + 6, s);
        Store16(f.veneer + 14, 0x0b0f);  // ud2: never reached, keeps the slot decodable
        target = f.veneer_address;
      }
      return Store32Signed(f.where, static_cast<int64_t>(target + static_cast<uint64_t>(a) - p),
                           "call offset");
    }
    case k32: {
      const uint64_t v = s + static_cast<uint64_t>(a);
      if (v > UINT32_MAX) {
        return OutOfRange(
            "absolute address {} does not fit in 32 unsigned bits (the code was "
            "compiled for the static relocation model; compile with -fPIC to load "
            "it anywhere)",
            v);
      }
      Store32(f.where, static_cast<uint32_t>(v));
      return Status::Ok();
    }
    case k32S:
      return Store32Signed(f.where, static_cast<int64_t>(s + static_cast<uint64_t>(a)),
                           "absolute address",
                           " (the code was compiled for the static relocation model; compile with "
                           "-fPIC to load it anywhere)");
    case kGotPcRel:
    case kGotPcRelX:
    case kRexGotPcRelX:
      Store64(f.got, s);
      return Store32Signed(f.where,
                           static_cast<int64_t>(f.got_address + static_cast<uint64_t>(a) - p),
                           "GOT offset");
    default:
      return Unimplemented("relocation type {} has no implementation", f.type);
  }
}

Status CheckFlags(uint32_t) { return Status::Ok(); }

}  // namespace

const Arch& X86_64Arch() {
  static const Arch arch = {elf::kMachineX86_64, "x86_64", true, 8, 16, Describe, Apply,
                            CheckFlags};
  return arch;
}

}  // namespace loom::runtime::native
