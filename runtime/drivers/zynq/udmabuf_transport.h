// DMA memory through u-dma-buf (github.com/ikwzm/udmabuf): one physically contiguous region the
// overlay's `udmabuf-loom` node reserves, mapped whole into the process, with the runtime's own
// allocator (DeviceHeap) inside it. Cache maintenance goes through u-dma-buf's sync_for_device /
// sync_for_cpu attributes unless the region is dma-coherent or mapped uncached.
#ifndef LOOM_RUNTIME_DRIVERS_ZYNQ_UDMABUF_TRANSPORT_H_
#define LOOM_RUNTIME_DRIVERS_ZYNQ_UDMABUF_TRANSPORT_H_

#include <cstdint>
#include <memory>
#include <string>

#include "runtime/drivers/protocol/transport.h"
#include "runtime/drivers/zynq/mapped_region.h"

namespace loom::runtime::zynq {

struct UdmabufOptions {
  std::string root = "/";             // sysfs and /dev are looked up under this folder
  std::string name = "udmabuf-loom";  // /dev/<name>, /sys/class/u-dma-buf/<name>
  // The accelerator's DMA address width: 40 on ZynqMP (and 32 on Zynq-7000, whose physical
  // addresses are 32-bit anyway). The region must end at or below 2^address_bits.
  int address_bits = 40;
  // Open with O_SYNC so u-dma-buf maps the region uncached; syncs then become no-ops.
  bool uncached = false;
};

class UdmabufTransport : public DmaTransport {
 public:
  static Status Open(const UdmabufOptions& options, std::unique_ptr<UdmabufTransport>* out);
  UdmabufTransport(const UdmabufTransport&) = delete;
  UdmabufTransport& operator=(const UdmabufTransport&) = delete;

  Coherence coherence() const override { return coherence_; }
  Status Allocate(uint64_t bytes, uint64_t align, DmaBuffer* buffer) override;
  Status Free(const DmaBuffer& buffer) override;
  Status SyncForDevice(const DmaBuffer& buffer, uint64_t offset, uint64_t bytes) override;
  Status SyncForCpu(const DmaBuffer& buffer, uint64_t offset, uint64_t bytes) override;

  uint64_t phys_addr() const { return region_.phys(); }
  uint64_t region_bytes() const { return region_.bytes(); }
  const std::string& device_path() const { return region_.path(); }

 private:
  UdmabufTransport() = default;
  // Checks `buffer` + [offset, offset + bytes) and writes the sync command to `attribute`.
  Status Sync(const DmaBuffer& buffer, uint64_t offset, uint64_t bytes, const char* attribute,
              unsigned direction);

  std::string sysfs_dir_;
  Coherence coherence_ = Coherence::kNonCoherent;
  MappedRegion region_;
};

}  // namespace loom::runtime::zynq

#endif  // LOOM_RUNTIME_DRIVERS_ZYNQ_UDMABUF_TRANSPORT_H_
