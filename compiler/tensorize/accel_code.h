// Accelerator code for one segment, before it is placed in DRAM: instructions, micro-ops, and for
// every LOAD/STORE the DRAM region its dram_base is relative to. The package stores it this way;
// the runtime (or a test) "links" it by adding each region's base element address.
#ifndef LOOM_COMPILER_TENSORIZE_ACCEL_CODE_H_
#define LOOM_COMPILER_TENSORIZE_ACCEL_CODE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "runtime/core/hw_config.h"
#include "runtime/core/isa.h"
#include "runtime/core/status.h"
#include "runtime/package/link.h"

namespace loom::tensorize {

// What a LOAD/STORE's dram_base counts from, and the linker: runtime/package/link.h (the runtime
// links a package's programs when it places them in device memory; the compiler's tests do the same).
using runtime::Region;
using runtime::RegionBases;

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
  // Appends a layer emitted as a body first, its micro-ops gathered meanwhile: the LOAD of
  // `uops` into the UOP buffer, then `body`. `what` ("layer X: tiling T") names a program whose
  // micro-ops do not fit the buffer.
  Status AppendProgram(const HwConfig& config, const std::string& what,
                       const std::vector<isa::Uop>& uops, const AccelCode& body);
};

// Returns the instructions with every dram_base made absolute (runtime::Link over the code).
Status Link(const HwConfig& config, const AccelCode& code, const RegionBases& bases,
            std::vector<isa::Insn>* out);

}  // namespace loom::tensorize

#endif  // LOOM_COMPILER_TENSORIZE_ACCEL_CODE_H_
