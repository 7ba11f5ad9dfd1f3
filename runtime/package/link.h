// Linking an accelerator program: every LOAD/STORE's dram_base is stored relative to a region
// (the arena, the constants, or the program's micro-op table) and becomes an absolute element
// address once the runtime knows where each region sits in device memory. A package never holds
// a physical address, so one package runs wherever the driver places it.
#ifndef LOOM_RUNTIME_PACKAGE_LINK_H_
#define LOOM_RUNTIME_PACKAGE_LINK_H_

#include <cstddef>
#include <cstdint>
#include <vector>

#include "runtime/core/hw_config.h"
#include "runtime/core/isa.h"
#include "runtime/core/status.h"

namespace loom::runtime {

// What a LOAD/STORE's dram_base counts from, in elements of the instruction's buffer. The values
// equal loom.pkg.Region in the schema.
enum class Region : uint8_t {
  kNone = 0,       // not a memory instruction
  kArena = 1,      // activations, in the package's DRAM arena
  kConstants = 2,  // weights, biases, multipliers
  kUops = 3,       // the program's micro-op table
};
const char* RegionName(Region r);

// Byte addresses of the regions in device memory. Each must be aligned to the element size of
// every buffer that addresses it (4 KiB covers every shipped config).
struct RegionBases {
  uint64_t arena = 0;
  uint64_t constants = 0;
  uint64_t uops = 0;
};

// Writes `count` instructions with every dram_base made absolute to *out. Fails, naming the
// instruction, if a base is not aligned to the element size or an address does not fit 32 bits.
Status Link(const HwConfig& config, const isa::Insn* insns, const Region* regions, size_t count,
            const RegionBases& bases, std::vector<isa::Insn>* out);

}  // namespace loom::runtime

#endif  // LOOM_RUNTIME_PACKAGE_LINK_H_
