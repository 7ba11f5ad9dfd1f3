// Armv7 relocations (ELF for the Arm Architecture, AAELF32): ARM and Thumb-2 code, REL tables
// (the addend is in the instruction), interworking between the two instruction sets. A call
// switches set with BLX where the other set's function is in range; an import, a jump (B cannot
// switch) or a call out of range goes through a veneer that loads the target into pc, which
// switches set by bit 0 of the address (a Thumb function's symbol and pointer have it set).
#include "runtime/native/arch.h"
#include "runtime/native/elf_file.h"

namespace loom::runtime::native {

namespace {

constexpr uint32_t kNone = 0, kAbs32 = 2, kRel32 = 3, kThmCall = 10, kCall = 28, kJump24 = 29;
constexpr uint32_t kThmJump24 = 30, kTarget1 = 38, kV4bx = 40, kPrel31 = 42, kMovwAbsNc = 43;
constexpr uint32_t kMovtAbs = 44, kMovwPrelNc = 45, kMovtPrel = 46, kThmMovwAbsNc = 47;
constexpr uint32_t kThmMovtAbs = 48, kThmMovwPrelNc = 49, kThmMovtPrel = 50, kThmJump19 = 51;

bool Describe(uint32_t type, RelocInfo* info) {
  const RelocUse plain = RelocUse::kPlain;
  const RelocUse branch = RelocUse::kBranch;
  switch (type) {
    case kNone:
      *info = {"R_ARM_NONE", 0, RelocUse::kNone, false};
      return true;
    case kAbs32:
      *info = {"R_ARM_ABS32", 4, plain, false};
      return true;
    case kRel32:
      *info = {"R_ARM_REL32", 4, plain, false};
      return true;
    case kThmCall:
      *info = {"R_ARM_THM_CALL", 4, branch, false};
      return true;
    case kCall:
      *info = {"R_ARM_CALL", 4, branch, false};
      return true;
    case kJump24:
      *info = {"R_ARM_JUMP24", 4, branch, false};
      return true;
    case kThmJump24:
      *info = {"R_ARM_THM_JUMP24", 4, branch, false};
      return true;
    case kTarget1:
      *info = {"R_ARM_TARGET1", 4, plain, false};
      return true;
    case kV4bx:
      *info = {"R_ARM_V4BX", 4, RelocUse::kNone, false};
      return true;
    case kPrel31:
      *info = {"R_ARM_PREL31", 4, plain, false};
      return true;
    case kMovwAbsNc:
      *info = {"R_ARM_MOVW_ABS_NC", 4, plain, false};
      return true;
    case kMovtAbs:
      *info = {"R_ARM_MOVT_ABS", 4, plain, false};
      return true;
    case kMovwPrelNc:
      *info = {"R_ARM_MOVW_PREL_NC", 4, plain, false};
      return true;
    case kMovtPrel:
      *info = {"R_ARM_MOVT_PREL", 4, plain, false};
      return true;
    case kThmMovwAbsNc:
      *info = {"R_ARM_THM_MOVW_ABS_NC", 4, plain, false};
      return true;
    case kThmMovtAbs:
      *info = {"R_ARM_THM_MOVT_ABS", 4, plain, false};
      return true;
    case kThmMovwPrelNc:
      *info = {"R_ARM_THM_MOVW_PREL_NC", 4, plain, false};
      return true;
    case kThmMovtPrel:
      *info = {"R_ARM_THM_MOVT_PREL", 4, plain, false};
      return true;
    case kThmJump19:
      *info = {"R_ARM_THM_JUMP19", 4, plain, false};
      return true;
    default:
      return false;
  }
}

bool IsThumbType(uint32_t type) {
  return type == kThmCall || type == kThmJump24 || type == kThmJump19 || type == kThmMovwAbsNc ||
         type == kThmMovtAbs || type == kThmMovwPrelNc || type == kThmMovtPrel;
}

// A Thumb-2 instruction is two little-endian halfwords, the first at the lower address.
uint32_t Hw1(const uint8_t* p) { return Load16(p); }
uint32_t Hw2(const uint8_t* p) { return Load16(p + 2); }

// The 16-bit immediate of MOVW/MOVT: imm4:imm12 (ARM) or imm4:i:imm3:imm8 (Thumb).
uint32_t ArmImm16(uint32_t insn) { return ((insn >> 4) & 0xf000) | (insn & 0xfff); }
uint32_t ThumbImm16(const uint8_t* p) {
  const uint32_t h1 = Hw1(p), h2 = Hw2(p);
  return (h1 & 0xf) << 12 | ((h1 >> 10) & 1) << 11 | ((h2 >> 12) & 7) << 8 | (h2 & 0xff);
}
void PatchArmImm16(uint8_t* p, uint32_t imm) {
  Store32(p, (Load32(p) & 0xfff0f000) | (imm & 0xf000) << 4 | (imm & 0xfff));
}
void PatchThumbImm16(uint8_t* p, uint32_t imm) {
  Store16(p, (Hw1(p) & 0xfbf0) | ((imm >> 12) & 0xf) | ((imm >> 11) & 1) << 10);
  Store16(p + 2, (Hw2(p) & 0x8f00) | ((imm >> 8) & 7) << 12 | (imm & 0xff));
}

// BL/BLX/B.W (T1/T2/T4): S:I1:I2:imm10:imm11:0 with I1 = NOT(J1 XOR S), I2 = NOT(J2 XOR S).
int64_t ThumbBranchImm(const uint8_t* p) {
  const uint32_t h1 = Hw1(p), h2 = Hw2(p);
  const uint32_t s = (h1 >> 10) & 1, j1 = (h2 >> 13) & 1, j2 = (h2 >> 11) & 1;
  const uint32_t i1 = (j1 ^ s) ^ 1, i2 = (j2 ^ s) ^ 1;
  return SignExtend(s << 24 | i1 << 23 | i2 << 22 | (h1 & 0x3ff) << 12 | (h2 & 0x7ff) << 1, 25);
}
void PatchThumbBranch(uint8_t* p, int64_t offset, int link) {  // link: -1 keep, 1 BL, 0 BLX
  const uint32_t v = static_cast<uint32_t>(offset);
  const uint32_t s = (v >> 24) & 1, i1 = (v >> 23) & 1, i2 = (v >> 22) & 1;
  const uint32_t j1 = (i1 ^ 1) ^ s, j2 = (i2 ^ 1) ^ s;
  uint32_t h2 = (Hw2(p) & 0xd000) | j1 << 13 | j2 << 11 | ((v >> 1) & 0x7ff);
  if (link == 1) h2 |= 0x1000;
  if (link == 0) h2 &= ~0x1001u;
  Store16(p, (Hw1(p) & 0xf800) | s << 10 | ((v >> 12) & 0x3ff));
  Store16(p + 2, h2);
}
// B<cond>.W (T3): S:J2:J1:imm6:imm11:0.
int64_t ThumbCondImm(const uint8_t* p) {
  const uint32_t h1 = Hw1(p), h2 = Hw2(p);
  return SignExtend(((h1 >> 10) & 1) << 20 | ((h2 >> 11) & 1) << 19 | ((h2 >> 13) & 1) << 18 |
                        (h1 & 0x3f) << 12 | (h2 & 0x7ff) << 1,
                    21);
}
void PatchThumbCond(uint8_t* p, int64_t offset) {
  const uint32_t v = static_cast<uint32_t>(offset);
  Store16(p, (Hw1(p) & 0xfbc0) | ((v >> 20) & 1) << 10 | ((v >> 12) & 0x3f));
  Store16(p + 2,
          (Hw2(p) & 0xd000) | ((v >> 18) & 1) << 13 | ((v >> 19) & 1) << 11 | ((v >> 1) & 0x7ff));
}

int64_t ImplicitAddend(uint32_t type, const uint8_t* p) {
  switch (type) {
    case kAbs32:
    case kRel32:
    case kTarget1:
      return SignExtend(Load32(p), 32);
    case kPrel31:
      return SignExtend(Load32(p), 31);
    case kCall:
    case kJump24: {
      const uint32_t insn = Load32(p);
      const int64_t blx_half = (insn >> 28) == 0xf ? ((insn >> 23) & 2) : 0;
      return SignExtend((insn & 0xffffff) << 2, 26) + blx_half;
    }
    case kMovwAbsNc:
    case kMovtAbs:
    case kMovwPrelNc:
    case kMovtPrel:
      return SignExtend(ArmImm16(Load32(p)), 16);
    case kThmMovwAbsNc:
    case kThmMovtAbs:
    case kThmMovwPrelNc:
    case kThmMovtPrel:
      return SignExtend(ThumbImm16(p), 16);
    case kThmCall:
    case kThmJump24:
      return ThumbBranchImm(p);
    case kThmJump19:
      return ThumbCondImm(p);
    default:
      return 0;
  }
}

Status Store32Bit(uint8_t* p, uint64_t v) {
  if ((v >> 32) != 0 && (v >> 31) != 0x1ffffffffull) {
    return OutOfRange("value {} does not fit in 32 bits", v);
  }
  Store32(p, static_cast<uint32_t>(v));
  return Status::Ok();
}

// The veneer of a call or jump: ldr pc, [pc, #-4] (ARM) or ldr.w pc, [pc, #0] (Thumb), then the
// target with its instruction-set bit. The slot is 8-byte aligned, so the Thumb literal is at +4.
void WriteVeneer(const Fixup& f, bool thumb_caller, uint64_t target) {
  if (thumb_caller) {
    Store16(f.veneer, 0xf8df);
    Store16(f.veneer + 2, 0xf000);
  } else {
    Store32(f.veneer, 0xe51ff004);
  }
  Store32(f.veneer + 4, static_cast<uint32_t>(target));
}

Status BranchRange(int64_t offset, int bits, const char* what) {
  if (!FitsSigned(offset, bits)) {
    return OutOfRange("{} offset {} is beyond ±{} bytes", what, offset, int64_t{1} << (bits - 1));
  }
  return Status::Ok();
}

Status ApplyArmBranch(const Fixup& f, uint64_t dest, bool thumb_target) {
  const uint32_t insn = Load32(f.where);
  const bool blx = (insn >> 28) == 0xf;
  const bool unconditional = (insn >> 28) == 0xe;
  const int64_t offset = static_cast<int64_t>(dest - (f.place + 8));
  if (!f.import && FitsSigned(offset, 26)) {
    if (!thumb_target) {
      if ((offset & 3) != 0) return InvalidArgument("ARM branch target {} is not 4-aligned", dest);
      const uint32_t op = blx ? 0xeb000000 : (insn & 0xff000000);
      Store32(f.where, op | ((static_cast<uint32_t>(offset) >> 2) & 0xffffff));
      return Status::Ok();
    }
    if (f.type == kCall && (blx || unconditional)) {  // BL -> BLX: H is offset bit 1
      Store32(f.where, 0xfa000000 | (static_cast<uint32_t>(offset) & 2) << 23 |
                           ((static_cast<uint32_t>(offset) >> 2) & 0xffffff));
      return Status::Ok();
    }
  }
  WriteVeneer(f, false, dest | (thumb_target ? 1 : 0));
  const int64_t to_veneer = static_cast<int64_t>(f.veneer_address - (f.place + 8));
  LOOM_RETURN_IF_ERROR(BranchRange(to_veneer, 26, "branch to veneer"));
  const uint32_t op = blx ? 0xeb000000 : (insn & 0xff000000);
  Store32(f.where, op | ((static_cast<uint32_t>(to_veneer) >> 2) & 0xffffff));
  return Status::Ok();
}

Status ApplyThumbBranch(const Fixup& f, uint64_t dest, bool thumb_target) {
  const int64_t offset = static_cast<int64_t>(dest - (f.place + 4));
  if (!f.import && FitsSigned(offset, 25)) {
    if (thumb_target) {
      PatchThumbBranch(f.where, offset, f.type == kThmCall ? 1 : -1);
      return Status::Ok();
    }
    if (f.type == kThmCall) {  // BL -> BLX: relative to the word-aligned pc
      const int64_t aligned = static_cast<int64_t>(dest - ((f.place + 4) & ~uint64_t{3}));
      if ((aligned & 3) != 0) return InvalidArgument("ARM call target {} is not 4-aligned", dest);
      PatchThumbBranch(f.where, aligned, 0);
      return Status::Ok();
    }
  }
  WriteVeneer(f, true, dest | (thumb_target ? 1 : 0));
  const int64_t to_veneer = static_cast<int64_t>(f.veneer_address - (f.place + 4));
  LOOM_RETURN_IF_ERROR(BranchRange(to_veneer, 25, "branch to veneer"));
  PatchThumbBranch(f.where, to_veneer, f.type == kThmCall ? 1 : -1);
  return Status::Ok();
}

Status Apply(const Fixup& f) {
  const int64_t a = f.rela ? f.addend : ImplicitAddend(f.type, f.where);
  const uint64_t sa = f.symbol + static_cast<uint64_t>(a);  // S already carries a Thumb bit
  const uint64_t p = f.place;
  switch (f.type) {
    case kNone:
    case kV4bx:  // BX stays BX: every armv7 core has it
      return Status::Ok();
    case kAbs32:
    case kTarget1:
      return Store32Bit(f.where, sa);
    case kRel32:
      Store32(f.where, static_cast<uint32_t>(sa - p));
      return Status::Ok();
    case kPrel31: {
      const int64_t v = static_cast<int64_t>(sa - p);
      if (!FitsSigned(v, 31)) return OutOfRange("offset {} does not fit in 31 signed bits", v);
      Store32(f.where, (Load32(f.where) & 0x80000000u) | (static_cast<uint32_t>(v) & 0x7fffffff));
      return Status::Ok();
    }
    case kMovwAbsNc:
      PatchArmImm16(f.where, static_cast<uint32_t>(sa));
      return Status::Ok();
    case kMovtAbs:
      PatchArmImm16(f.where, static_cast<uint32_t>(sa >> 16));
      return Status::Ok();
    case kMovwPrelNc:
      PatchArmImm16(f.where, static_cast<uint32_t>(sa - p));
      return Status::Ok();
    case kMovtPrel:
      PatchArmImm16(f.where, static_cast<uint32_t>((sa - p) >> 16));
      return Status::Ok();
    case kThmMovwAbsNc:
      PatchThumbImm16(f.where, static_cast<uint32_t>(sa));
      return Status::Ok();
    case kThmMovtAbs:
      PatchThumbImm16(f.where, static_cast<uint32_t>(sa >> 16));
      return Status::Ok();
    case kThmMovwPrelNc:
      PatchThumbImm16(f.where, static_cast<uint32_t>(sa - p));
      return Status::Ok();
    case kThmMovtPrel:
      PatchThumbImm16(f.where, static_cast<uint32_t>((sa - p) >> 16));
      return Status::Ok();
    case kThmJump19: {
      const int64_t offset = static_cast<int64_t>(sa - p);
      LOOM_RETURN_IF_ERROR(BranchRange(offset, 21, "conditional branch"));
      PatchThumbCond(f.where, offset);
      return Status::Ok();
    }
    case kCall:
    case kJump24:
    case kThmCall:
    case kThmJump24: {
      // The destination the instruction reaches: S + A + the pc bias the addend subtracts. Only a
      // function symbol (or an import) says which set the target is in; a section symbol is a
      // local label in the caller's own set.
      const bool thumb_caller = IsThumbType(f.type);
      const bool by_bit = f.import || f.symbol_type == elf::kSttFunc;
      const bool thumb_target = by_bit ? (f.symbol & 1) != 0 : thumb_caller;
      const uint64_t dest =
          (f.symbol & ~uint64_t{1}) + static_cast<uint64_t>(a) + (thumb_caller ? 4 : 8);
      return thumb_caller ? ApplyThumbBranch(f, dest, thumb_target)
                          : ApplyArmBranch(f, dest, thumb_target);
    }
    default:
      return Unimplemented("relocation type {} has no implementation", f.type);
  }
}

// EABI version 5, and the float ABI of this build (armv7 builds of Loom are hard-float): a
// soft-float object would pass float arguments in the wrong registers.
Status CheckFlags(uint32_t flags) {
  constexpr uint32_t kEabiMask = 0xff000000u, kEabi5 = 0x05000000u;
  constexpr uint32_t kFloatSoft = 0x200, kFloatHard = 0x400;
  if ((flags & kEabiMask) != kEabi5) {
    return InvalidArgument(
        "armv7 object has EABI version {} (e_flags {}); the loader takes "
        "version 5",
        flags >> 24, flags);
  }
#if defined(__arm__) && !defined(__ARM_PCS_VFP)
  const bool hard = false;
#else
  const bool hard = true;
#endif
  if ((flags & (hard ? kFloatSoft : kFloatHard)) != 0) {
    return InvalidArgument("armv7 object uses the {}-float ABI; this runtime is {}-float",
                           hard ? "soft" : "hard", hard ? "hard" : "soft");
  }
  return Status::Ok();
}

}  // namespace

const Arch& ArmArch() {
  static const Arch arch = {elf::kMachineArm, "armv7", false, 4, 8, Describe, Apply, CheckFlags};
  return arch;
}

}  // namespace loom::runtime::native
