// The protocol's transports (protocol/transport.h) for a CPU without an OS: the accelerator's
// registers at a fixed physical address, read and written with 32-bit volatile accesses, and DMA
// memory that is one fixed region (a linker-script region of a bare-metal image) carved up by a
// first-fit allocator. Nothing maps, opens or allocates from an OS: the addresses come from the
// board's memory map (boards/*.json: register_base, dram_base).
//
//   MmioRegisters regs(0x43C00000, 0x1000);
//   StaticDmaMemory dma(__loom_dma_start, 0x1F000000, dma_bytes, Coherence::kUncached);
//
// Ownership: neither owns its memory; the window and the region must stay mapped for the
// transport's life. A DmaBuffer is valid from Allocate until Free or the transport's destruction.
#ifndef LOOM_RUNTIME_DRIVERS_MMIO_MMIO_TRANSPORT_H_
#define LOOM_RUNTIME_DRIVERS_MMIO_MMIO_TRANSPORT_H_

#include <cstddef>
#include <cstdint>

#include "runtime/drivers/device_heap.h"
#include "runtime/drivers/protocol/transport.h"

namespace loom::runtime {

// Where device time comes from. Null functions: the platform's clock and pause
// (runtime/core/platform.h). A board with a better timer, or a test that plays the device between
// two polls, supplies its own.
struct MmioClock {
  uint64_t (*now_ns)(void* ctx) = nullptr;
  void (*pause_us)(void* ctx, uint32_t micros) = nullptr;
  void* ctx = nullptr;
};

// The register window. No interrupt: a bare-metal image has no interrupt controller set up for
// the accelerator, so the protocol polls CTRL (Accelerator::kPollMicros apart).
class MmioRegisters final : public RegisterTransport {
 public:
  // `base`: the window's first register as the CPU addresses it; `bytes`: the window's size.
  MmioRegisters(uintptr_t base, uint32_t bytes, MmioClock clock = {})
      : base_(base), bytes_(bytes), clock_(clock) {}

  // kOutOfRange naming the offset and the window when `offset` is unaligned or outside it.
  Status Read32(uint32_t offset, uint32_t* value) override;
  // Orders every earlier memory write (DMA buffers, instruction streams) before the register
  // write, so the accelerator never starts on stale memory.
  Status Write32(uint32_t offset, uint32_t value) override;
  Status EnableInterrupt() override;
  Status WaitInterrupt(int timeout_ms, bool* fired) override;
  uint64_t NowNanos() override;
  void Pause(uint32_t micros) override;

 private:
  Status Check(const char* what, uint32_t offset) const;

  uintptr_t base_;
  uint32_t bytes_;
  MmioClock clock_;
};

// Cache maintenance for a non-coherent region: clean (write back) before the device reads,
// invalidate before the CPU reads what the device wrote. Both take the CPU's address range.
struct DmaCacheOps {
  void (*clean)(const void* host, size_t bytes) = nullptr;
  void (*invalidate)(void* host, size_t bytes) = nullptr;
};

class StaticDmaMemory final : public DmaTransport {
 public:
  // `bytes` at `host` (the CPU's view) are the device's `device_address` onward. A kNonCoherent
  // region needs both cache operations; one given without them fails every sync with
  // kFailedPrecondition rather than handing the device stale bytes.
  StaticDmaMemory(void* host, uint64_t device_address, uint64_t bytes, Coherence coherence,
                  DmaCacheOps cache = {});

  Coherence coherence() const override { return coherence_; }
  // kOutOfRange when the region has no room left (the message gives the region's size).
  Status Allocate(uint64_t bytes, uint64_t align, DmaBuffer* buffer) override;
  Status Free(const DmaBuffer& buffer) override;
  Status SyncForDevice(const DmaBuffer& buffer, uint64_t offset, uint64_t bytes) override;
  Status SyncForCpu(const DmaBuffer& buffer, uint64_t offset, uint64_t bytes) override;

 private:
  Status CheckRange(const char* what, const DmaBuffer& buffer, uint64_t offset,
                    uint64_t bytes) const;

  uint8_t* host_;
  uint64_t device_address_, bytes_;
  Coherence coherence_;
  DmaCacheOps cache_;
  DeviceHeap heap_;
};

}  // namespace loom::runtime

#endif  // LOOM_RUNTIME_DRIVERS_MMIO_MMIO_TRANSPORT_H_
