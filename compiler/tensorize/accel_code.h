// Accelerator code for one segment, before it is placed in DRAM: instructions, micro-ops, and for
// every LOAD/STORE the DRAM region its dram_base is relative to. The package stores it this way;
// the runtime (or a test) "links" it by adding each region's base element address.
#ifndef LOOM_COMPILER_TENSORIZE_ACCEL_CODE_H_
#define LOOM_COMPILER_TENSORIZE_ACCEL_CODE_H_

#include <cstdint>
#include <vector>

#include "runtime/core/hw_config.h"
#include "runtime/core/isa.h"
#include "runtime/core/status.h"

namespace loom::tensorize {

// What a LOAD/STORE's dram_base counts from. Offsets are in elements of the instruction's buffer;
// each region's base address must be aligned to the largest element size.
enum class Region : uint8_t {
  kNone = 0,       // not a memory instruction
  kArena = 1,      // activations, in the package's DRAM arena
  kConstants = 2,  // weights, biases, multipliers
  kUops = 3,       // this code's micro-op table
};

struct AccelCode {
  std::vector<isa::Insn> insns;
  std::vector<Region> regions;  // parallel to insns
  std::vector<isa::Uop> uops;

  void Emit(const isa::Insn& insn, Region region = Region::kNone) {
    insns.push_back(insn);
    regions.push_back(region);
  }
  isa::Insn& last() { return insns.back(); }
  // Appends micro-ops and returns the index of the first.
  uint32_t AddUops(const std::vector<isa::Uop>& more);
};

// Byte addresses of the regions, for linking.
struct RegionBases {
  uint64_t arena = 0;
  uint64_t constants = 0;
  uint64_t uops = 0;
};

// Returns the instructions with every dram_base made absolute. Fails if an address does not fit
// the 32-bit field or a base is not aligned to the instruction's element size.
Status Link(const HwConfig& config, const AccelCode& code, const RegionBases& bases,
            std::vector<isa::Insn>* out);

}  // namespace loom::tensorize

#endif  // LOOM_COMPILER_TENSORIZE_ACCEL_CODE_H_
