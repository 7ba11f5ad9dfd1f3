// The zynq driver's choice of DMA memory, as given by the device string's dma= (docs/boards.md):
// u-dma-buf (the default) or, only when asked for by name, a physical range through /dev/mem.
// /dev/mem bypasses every kernel check on which memory is free, so it is never picked implicitly: a
// wrong range silently corrupts Linux.
#ifndef LOOM_RUNTIME_DRIVERS_ZYNQ_DMA_OPTION_H_
#define LOOM_RUNTIME_DRIVERS_ZYNQ_DMA_OPTION_H_

#include <cstdint>
#include <memory>
#include <string>

#include "runtime/drivers/protocol/transport.h"
#include "runtime/drivers/zynq/mapped_region.h"

namespace loom::runtime::zynq {

struct DmaOption {
  enum class Kind { kUdmabuf, kDevmem } kind = Kind::kUdmabuf;
  std::string udmabuf_name = "udmabuf-loom";
  uint64_t devmem_addr = 0, devmem_bytes = 0;
};

// "udmabuf", "udmabuf:NAME" or "devmem:ADDR:SIZE" (numbers decimal or 0x-hex, page-aligned).
Status ParseDmaOption(const std::string& text, DmaOption* option);

// DMA memory in [addr, addr + bytes) of /dev/mem (under `root`), mapped uncached (O_SYNC), so
// syncs only validate their range. For boards without u-dma-buf whose region is reserved in the
// device tree (reserved-memory with no-map) and so unused by Linux.
class DevmemTransport : public DmaTransport {
 public:
  static Status Open(const std::string& root, uint64_t addr, uint64_t bytes, int address_bits,
                     std::unique_ptr<DevmemTransport>* out);
  DevmemTransport(const DevmemTransport&) = delete;
  DevmemTransport& operator=(const DevmemTransport&) = delete;

  Coherence coherence() const override { return Coherence::kUncached; }
  Status Allocate(uint64_t bytes, uint64_t align, DmaBuffer* buffer) override;
  Status Free(const DmaBuffer& buffer) override;
  Status SyncForDevice(const DmaBuffer& buffer, uint64_t offset, uint64_t bytes) override;
  Status SyncForCpu(const DmaBuffer& buffer, uint64_t offset, uint64_t bytes) override;

 private:
  DevmemTransport() = default;

  MappedRegion region_;
};

}  // namespace loom::runtime::zynq

#endif  // LOOM_RUNTIME_DRIVERS_ZYNQ_DMA_OPTION_H_
