// A flat (virtual == physical) MMU map for the image, so the caches can be on: DDR is normal
// write-back memory, except the accelerator's DMA region (.loom_dma), which is normal non-cacheable
// so the CPU and the accelerator see the same bytes without cache maintenance (the mmio device's
// Coherence::kUncached); everything above DDR (the PL's AXI ports, the UART, the SCU and timers)
// is device memory, never executed. 1 MiB sections, one level, 4096 entries.
//
// Called from startup.S with the MMU and the caches off, before static constructors.
#include "firmware/baremetal/mmu_a9.h"

#include <cstdint>

extern "C" char __loom_dma_start[], __loom_dma_end[];

namespace {

// Short-descriptor section entries (ARMv7-A ARM B3.5.1): TEX[14:12] C[3] B[2], AP[11:10] = 0b11
// (read/write at every level), domain 0, non-shareable: one core, so no coherency to take part in.
constexpr uint32_t kSection = 0x2;
constexpr uint32_t kB = 1u << 2, kC = 1u << 3, kXn = 1u << 4, kApReadWrite = 3u << 10;
constexpr uint32_t kTex1 = 1u << 12;
constexpr uint32_t kNormalWriteBack = kSection | kTex1 | kC | kB | kApReadWrite;  // WB, WA
constexpr uint32_t kNormalUncached = kSection | kTex1 | kApReadWrite;
constexpr uint32_t kDevice = kSection | kB | kApReadWrite | kXn;  // shareable device
// The Zynq-7000's DDR window in the address map (UG585 table 4-1): the first GiB.
constexpr uint32_t kDdrSections = 0x400;

alignas(16384) uint32_t g_table[4096];

void InvalidateDataCache() {
  // Level 1 data cache, by set and way: its geometry from CCSIDR.
  __asm__ volatile("mcr p15, 2, %0, c0, c0, 0\n isb" ::"r"(0u));  // CSSELR: L1 data
  uint32_t ccsidr = 0;
  __asm__ volatile("mrc p15, 1, %0, c0, c0, 0" : "=r"(ccsidr));
  const uint32_t line_shift = (ccsidr & 7) + 4;
  const uint32_t ways = ((ccsidr >> 3) & 0x3ff) + 1;
  const uint32_t sets = ((ccsidr >> 13) & 0x7fff) + 1;
  const uint32_t way_shift = static_cast<uint32_t>(__builtin_clz(ways - 1));
  for (uint32_t way = 0; way < ways; ++way) {
    for (uint32_t set = 0; set < sets; ++set) {
      const uint32_t v = (ways > 1 ? way << way_shift : 0) | set << line_shift;
      __asm__ volatile("mcr p15, 0, %0, c7, c6, 2" ::"r"(v));  // DCISW
    }
  }
  __asm__ volatile("dsb" ::: "memory");
}

}  // namespace

extern "C" void loom_mmu_enable() {
  const uint32_t dma_first = reinterpret_cast<uintptr_t>(__loom_dma_start) >> 20;
  const uint32_t dma_end = (reinterpret_cast<uintptr_t>(__loom_dma_end) + 0xfffff) >> 20;
  for (uint32_t i = 0; i < 4096; ++i) {
    uint32_t attributes = kDevice;
    if (i < kDdrSections) {
      attributes = i >= dma_first && i < dma_end ? kNormalUncached : kNormalWriteBack;
    }
    g_table[i] = i << 20 | attributes;
  }
  // What the caches and TLBs hold from before is not ours (a boot loader ran with other maps).
  InvalidateDataCache();
  __asm__ volatile(
      "mcr p15, 0, %0, c7, c5, 0\n"  // ICIALLU
      "mcr p15, 0, %0, c7, c5, 6\n"  // BPIALL
      "mcr p15, 0, %0, c8, c7, 0\n"  // TLBIALL
      "mcr p15, 0, %0, c2, c0, 2\n"  // TTBCR: TTBR0 translates everything
      "dsb\n"
      "isb" ::"r"(0u)
      : "memory");
  // Table walks are non-cacheable (TTBR0 attribute bits 0): the table was written with the data
  // cache off, so memory holds it.
  __asm__ volatile(
      "mcr p15, 0, %0, c2, c0, 0\n"  // TTBR0
      "mcr p15, 0, %1, c3, c0, 0\n"  // DACR: every domain a client (AP bits apply)
      "isb" ::"r"(reinterpret_cast<uintptr_t>(g_table)),
      "r"(0x55555555u)
      : "memory");
  uint32_t sctlr = 0;
  __asm__ volatile("mrc p15, 0, %0, c1, c0, 0" : "=r"(sctlr));
  sctlr |= 1u << 0 | 1u << 2 | 1u << 11 | 1u << 12;  // M, C, Z (branch prediction), I
  __asm__ volatile("mcr p15, 0, %0, c1, c0, 0\n isb" ::"r"(sctlr) : "memory");
}

namespace loom::baremetal {

const char* MmuState() {
  uint32_t sctlr = 0;
  __asm__ volatile("mrc p15, 0, %0, c1, c0, 0" : "=r"(sctlr));
  const bool m = sctlr & 1u << 0, c = sctlr & 1u << 2, i = sctlr & 1u << 12;
  if (m && c && i) return "mmu on, data cache on, instruction cache on";
  if (!m) return "mmu off";
  return "mmu on, some caches off";
}

}  // namespace loom::baremetal
