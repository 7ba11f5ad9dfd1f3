#include "runtime/package/link.h"

#include <string>

namespace loom::runtime {

const char* RegionName(Region r) {
  switch (r) {
    case Region::kNone: return "none";
    case Region::kArena: return "arena";
    case Region::kConstants: return "constants";
    case Region::kUops: return "uops";
  }
  return "?";
}

Status Link(const HwConfig& config, const isa::Insn* insns, const Region* regions, size_t count,
            const RegionBases& bases, std::vector<isa::Insn>* out) {
  out->clear();
  out->reserve(count);
  for (size_t i = 0; i < count; ++i) {
    isa::Insn insn = insns[i];
    uint64_t base = 0;
    switch (regions[i]) {
      case Region::kNone: break;
      case Region::kArena: base = bases.arena; break;
      case Region::kConstants: base = bases.constants; break;
      case Region::kUops: base = bases.uops; break;
    }
    if (regions[i] != Region::kNone) {
      const uint32_t eb = isa::ElemBytes(config, insn.buffer);
      if (base % eb != 0) {
        return InvalidArgument(
            "instruction {}: region base {} is not aligned to the {} element size {}", i, base,
            isa::BufferName(insn.buffer), eb);
      }
      const uint64_t addr = uint64_t{insn.dram_base} + base / eb;
      if (addr > UINT32_MAX) {
        return OutOfRange("instruction {}: DRAM element address {} does not fit in 32 bits", i,
                          addr);
      }
      insn.dram_base = static_cast<uint32_t>(addr);
    }
    out->push_back(insn);
  }
  return Status::Ok();
}

}  // namespace loom::runtime
