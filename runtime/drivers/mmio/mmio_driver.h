// The accelerator on a board without an OS: the protocol driver (protocol/protocol_driver.h) over
// MmioRegisters and StaticDmaMemory at the fixed addresses of one board's memory map. A bare-metal
// image creates it directly and hands it to the Executor; it is not in the registry, since no
// device string can say where a linker script put the DMA region.
#ifndef LOOM_RUNTIME_DRIVERS_MMIO_MMIO_DRIVER_H_
#define LOOM_RUNTIME_DRIVERS_MMIO_MMIO_DRIVER_H_

#include <cstdint>
#include <memory>

#include "runtime/drivers/driver.h"
#include "runtime/drivers/mmio/mmio_transport.h"

namespace loom::runtime {

struct MmioDeviceMap {
  uintptr_t register_base = 0;  // boards/*.json register_base (pynq-z1: 0x43C00000)
  uint32_t register_bytes = 0x1000;
  void* dma_host = nullptr;  // the DMA region as the CPU addresses it
  uint64_t dma_device = 0;   // ... and as the accelerator does (identity on Zynq's HP ports)
  uint64_t dma_bytes = 0;
  Coherence coherence = Coherence::kUncached;
  DmaCacheOps cache;  // required when coherence is kNonCoherent
  MmioClock clock;    // default: the platform's
};

// A driver named "mmio"; Open checks VERSION and CONFIG_HASH like every hardware driver and
// refuses device arguments.
std::unique_ptr<Driver> CreateMmioDriver(const MmioDeviceMap& map);

}  // namespace loom::runtime

#endif  // LOOM_RUNTIME_DRIVERS_MMIO_MMIO_DRIVER_H_
