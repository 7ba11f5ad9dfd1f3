// AArch64 relocations (ELF for the Arm 64-bit Architecture, "Relocation"): the small code model
// (ADRP + ADD/LDR pairs, ±4 GiB), the large one (MOVZ/MOVK of the absolute address), PIC GOT loads
// and B/BL (±128 MiB). A call or jump to an import, or out of range, goes through a veneer that
// loads the target into x16 (IP0, which the procedure call standard reserves for this).
#include "runtime/native/arch.h"
#include "runtime/native/elf_file.h"

namespace loom::runtime::native {

namespace {

constexpr uint32_t kNone = 0, kNone2 = 256, kAbs64 = 257, kAbs32 = 258, kPrel64 = 260;
constexpr uint32_t kPrel32 = 261, kMovwG0 = 263, kMovwG0Nc = 264, kMovwG1 = 265, kMovwG1Nc = 266;
constexpr uint32_t kMovwG2 = 267, kMovwG2Nc = 268, kMovwG3 = 269, kLdPrelLo19 = 273;
constexpr uint32_t kAdrPrelLo21 = 274, kAdrPage = 275, kAdrPageNc = 276, kAddLo12 = 277;
constexpr uint32_t kLdst8 = 278, kTstBr14 = 279, kCondBr19 = 280, kJump26 = 282, kCall26 = 283;
constexpr uint32_t kLdst16 = 284, kLdst32 = 285, kLdst64 = 286, kLdst128 = 299;
constexpr uint32_t kAdrGotPage = 311, kLd64GotLo12 = 312;

bool Describe(uint32_t type, RelocInfo* info) {
  const RelocUse plain = RelocUse::kPlain;
  switch (type) {
    case kNone:
    case kNone2:
      *info = {"R_AARCH64_NONE", 0, RelocUse::kNone, false};
      return true;
    case kAbs64:
      *info = {"R_AARCH64_ABS64", 8, plain, false};
      return true;
    case kAbs32:
      *info = {"R_AARCH64_ABS32", 4, plain, false};
      return true;
    case kPrel64:
      *info = {"R_AARCH64_PREL64", 8, plain, false};
      return true;
    case kPrel32:
      *info = {"R_AARCH64_PREL32", 4, plain, false};
      return true;
    case kMovwG0:
      *info = {"R_AARCH64_MOVW_UABS_G0", 4, plain, false};
      return true;
    case kMovwG0Nc:
      *info = {"R_AARCH64_MOVW_UABS_G0_NC", 4, plain, false};
      return true;
    case kMovwG1:
      *info = {"R_AARCH64_MOVW_UABS_G1", 4, plain, false};
      return true;
    case kMovwG1Nc:
      *info = {"R_AARCH64_MOVW_UABS_G1_NC", 4, plain, false};
      return true;
    case kMovwG2:
      *info = {"R_AARCH64_MOVW_UABS_G2", 4, plain, false};
      return true;
    case kMovwG2Nc:
      *info = {"R_AARCH64_MOVW_UABS_G2_NC", 4, plain, false};
      return true;
    case kMovwG3:
      *info = {"R_AARCH64_MOVW_UABS_G3", 4, plain, false};
      return true;
    case kLdPrelLo19:
      *info = {"R_AARCH64_LD_PREL_LO19", 4, plain, false};
      return true;
    case kAdrPrelLo21:
      *info = {"R_AARCH64_ADR_PREL_LO21", 4, plain, false};
      return true;
    case kAdrPage:
      *info = {"R_AARCH64_ADR_PREL_PG_HI21", 4, plain, false};
      return true;
    case kAdrPageNc:
      *info = {"R_AARCH64_ADR_PREL_PG_HI21_NC", 4, plain, false};
      return true;
    case kAddLo12:
      *info = {"R_AARCH64_ADD_ABS_LO12_NC", 4, plain, false};
      return true;
    case kLdst8:
      *info = {"R_AARCH64_LDST8_ABS_LO12_NC", 4, plain, false};
      return true;
    case kLdst16:
      *info = {"R_AARCH64_LDST16_ABS_LO12_NC", 4, plain, false};
      return true;
    case kLdst32:
      *info = {"R_AARCH64_LDST32_ABS_LO12_NC", 4, plain, false};
      return true;
    case kLdst64:
      *info = {"R_AARCH64_LDST64_ABS_LO12_NC", 4, plain, false};
      return true;
    case kLdst128:
      *info = {"R_AARCH64_LDST128_ABS_LO12_NC", 4, plain, false};
      return true;
    case kTstBr14:
      *info = {"R_AARCH64_TSTBR14", 4, plain, false};
      return true;
    case kCondBr19:
      *info = {"R_AARCH64_CONDBR19", 4, plain, false};
      return true;
    case kJump26:
      *info = {"R_AARCH64_JUMP26", 4, RelocUse::kBranch, false};
      return true;
    case kCall26:
      *info = {"R_AARCH64_CALL26", 4, RelocUse::kBranch, false};
      return true;
    case kAdrGotPage:
      *info = {"R_AARCH64_ADR_GOT_PAGE", 4, RelocUse::kGot, false};
      return true;
    case kLd64GotLo12:
      *info = {"R_AARCH64_LD64_GOT_LO12_NC", 4, RelocUse::kGot, false};
      return true;
    default:
      return false;
  }
}

uint64_t Page(uint64_t v) { return v & ~uint64_t{0xfff}; }

// Replaces the bits [shift, shift + bits) of the instruction at `where` with `field`.
void Patch(uint8_t* where, uint32_t field, int shift, int bits) {
  const uint32_t mask = ((bits == 32 ? 0u : 1u << bits) - 1u) << shift;
  Store32(where, (Load32(where) & ~mask) | ((field << shift) & mask));
}

// ADR/ADRP: immlo in bits 29-30, immhi in bits 5-23.
void PatchAdr(uint8_t* where, uint64_t imm21) {
  Patch(where, static_cast<uint32_t>(imm21 & 3), 29, 2);
  Patch(where, static_cast<uint32_t>(imm21 >> 2), 5, 19);
}

Status PatchBranch(uint8_t* where, int64_t offset, int bits, int shift, const char* what) {
  if ((offset & 3) != 0 || !FitsSigned(offset, bits + 2)) {
    return OutOfRange("{} offset {} is not a multiple of 4 within ±{} bytes", what, offset,
                      int64_t{1} << (bits + 1));
  }
  Patch(where, static_cast<uint32_t>(offset >> 2), shift, bits);
  return Status::Ok();
}

Status PatchLo12(uint8_t* where, uint64_t value, int scale) {
  if ((value & ((1u << scale) - 1)) != 0) {
    return InvalidArgument("address {} is not aligned to the {}-byte access", value, 1 << scale);
  }
  Patch(where, static_cast<uint32_t>((value & 0xfff) >> scale), 10, 12);
  return Status::Ok();
}

Status PatchMovw(uint8_t* where, uint64_t value, int group, bool check) {
  if (check && group < 3 && (value >> (16 * (group + 1))) != 0) {
    return OutOfRange("address {} does not fit in {} bits", value, 16 * (group + 1));
  }
  Patch(where, static_cast<uint32_t>(value >> (16 * group)) & 0xffff, 5, 16);
  return Status::Ok();
}

Status PatchPage(uint8_t* where, uint64_t target, uint64_t place, bool check) {
  const int64_t pages = static_cast<int64_t>(Page(target) - Page(place)) >> 12;
  if (check && !FitsSigned(pages, 21)) {
    return OutOfRange("page offset {} is beyond ADRP's ±4 GiB", pages * 4096);
  }
  PatchAdr(where, static_cast<uint64_t>(pages));
  return Status::Ok();
}

Status Apply(const Fixup& f) {
  const int64_t a = f.rela ? f.addend : 0;  // AArch64 objects use RELA; REL addends are not defined
  const uint64_t sa = f.symbol + static_cast<uint64_t>(a);
  const uint64_t p = f.place;
  const int64_t rel = static_cast<int64_t>(sa - p);
  switch (f.type) {
    case kNone:
    case kNone2:
      return Status::Ok();
    case kAbs64:
      Store64(f.where, sa);
      return Status::Ok();
    case kAbs32:
      if (sa > UINT32_MAX && !FitsSigned(static_cast<int64_t>(sa), 32)) {
        return OutOfRange("address {} does not fit in 32 bits", sa);
      }
      Store32(f.where, static_cast<uint32_t>(sa));
      return Status::Ok();
    case kPrel64:
      Store64(f.where, sa - p);
      return Status::Ok();
    case kPrel32:
      if (!FitsSigned(rel, 32)) return OutOfRange("offset {} does not fit in 32 signed bits", rel);
      Store32(f.where, static_cast<uint32_t>(rel));
      return Status::Ok();
    case kMovwG0:
    case kMovwG0Nc:
    case kMovwG1:
    case kMovwG1Nc:
    case kMovwG2:
    case kMovwG2Nc:
    case kMovwG3: {
      static const int kGroup[] = {0, 0, 1, 1, 2, 2, 3};
      static const bool kCheck[] = {true, false, true, false, true, false, true};
      return PatchMovw(f.where, sa, kGroup[f.type - kMovwG0], kCheck[f.type - kMovwG0]);
    }
    case kLdPrelLo19:
      return PatchBranch(f.where, rel, 19, 5, "literal load");
    case kAdrPrelLo21:
      if (!FitsSigned(rel, 21)) return OutOfRange("ADR offset {} is beyond ±1 MiB", rel);
      PatchAdr(f.where, static_cast<uint64_t>(rel));
      return Status::Ok();
    case kAdrPage:
    case kAdrPageNc:
      return PatchPage(f.where, sa, p, f.type == kAdrPage);
    case kAddLo12:
    case kLdst8:
      return PatchLo12(f.where, sa, 0);
    case kLdst16:
      return PatchLo12(f.where, sa, 1);
    case kLdst32:
      return PatchLo12(f.where, sa, 2);
    case kLdst64:
      return PatchLo12(f.where, sa, 3);
    case kLdst128:
      return PatchLo12(f.where, sa, 4);
    case kTstBr14:
      return PatchBranch(f.where, rel, 14, 5, "test-and-branch");
    case kCondBr19:
      return PatchBranch(f.where, rel, 19, 5, "conditional branch");
    case kJump26:
    case kCall26: {
      if (!f.import && FitsSigned(rel, 28)) return PatchBranch(f.where, rel, 26, 0, "branch");
      Store32(f.veneer, 0x58000050);      // ldr x16, #8
      Store32(f.veneer + 4, 0xd61f0200);  // br x16
      Store64(f.veneer + 8, sa);
      return PatchBranch(f.where, static_cast<int64_t>(f.veneer_address - p), 26, 0,
                         "branch to veneer");
    }
    case kAdrGotPage:
    case kLd64GotLo12:
      if (a != 0) return Unimplemented("a GOT entry with addend {} (the GOT holds symbols)", a);
      Store64(f.got, sa);
      return f.type == kAdrGotPage ? PatchPage(f.where, f.got_address, p, true)
                                   : PatchLo12(f.where, f.got_address, 3);
    default:
      return Unimplemented("relocation type {} has no implementation", f.type);
  }
}

Status CheckFlags(uint32_t) { return Status::Ok(); }

}  // namespace

const Arch& Aarch64Arch() {
  static const Arch arch = {
      elf::kMachineAarch64, "aarch64", true, 8, 16, Describe, Apply, CheckFlags};
  return arch;
}

}  // namespace loom::runtime::native
