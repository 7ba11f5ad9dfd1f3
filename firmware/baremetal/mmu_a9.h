// The image's flat MMU map with the caches on (mmu_a9.cc).
#ifndef LOOM_FIRMWARE_BAREMETAL_MMU_A9_H_
#define LOOM_FIRMWARE_BAREMETAL_MMU_A9_H_

// Called once from startup.S, before static constructors.
extern "C" void loom_mmu_enable();

namespace loom::baremetal {

// "mmu on, data cache on, instruction cache on", from SCTLR: what the image runs with.
const char* MmuState();

}  // namespace loom::baremetal

#endif  // LOOM_FIRMWARE_BAREMETAL_MMU_A9_H_
