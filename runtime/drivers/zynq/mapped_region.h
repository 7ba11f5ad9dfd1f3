// A physically contiguous DMA region mapped into this process (u-dma-buf, or /dev/mem when asked
// for), with the runtime's allocator inside it: what the DMA transports share. Owns the open
// descriptor and the mapping and releases both when destroyed.
#ifndef LOOM_RUNTIME_DRIVERS_ZYNQ_MAPPED_REGION_H_
#define LOOM_RUNTIME_DRIVERS_ZYNQ_MAPPED_REGION_H_

#include <cstdint>
#include <string>

#include "runtime/drivers/device_heap.h"
#include "runtime/drivers/protocol/transport.h"

namespace loom::runtime::zynq {

class MappedRegion {
 public:
  MappedRegion() = default;
  ~MappedRegion();
  MappedRegion(const MappedRegion&) = delete;
  MappedRegion& operator=(const MappedRegion&) = delete;

  // Takes ownership of an open descriptor (closed by the destructor, also on a failed open).
  void TakeFd(int fd) { fd_ = fd; }
  int fd() const { return fd_; }
  // Takes ownership of a mapping of `bytes` at `base`, which the accelerator sees at `phys`; the
  // allocator then covers all of it. `path` names the region in messages.
  void TakeMapping(const std::string& path, uint8_t* base, uint64_t phys, uint64_t bytes);

  Status Allocate(uint64_t bytes, uint64_t align, DmaBuffer* buffer);
  Status Free(const DmaBuffer& buffer);
  // [offset, offset + bytes) of `buffer` lies inside a live allocation; else OutOfRange naming
  // `what` (the sync attempted), the buffer and the region.
  Status CheckRange(const DmaBuffer& buffer, uint64_t offset, uint64_t bytes,
                    const char* what) const;

  const std::string& path() const { return path_; }
  uint64_t phys() const { return phys_; }
  uint64_t bytes() const { return bytes_; }

 private:
  std::string path_;
  int fd_ = -1;
  uint8_t* base_ = nullptr;
  uint64_t phys_ = 0, bytes_ = 0;
  DeviceHeap heap_;
};

}  // namespace loom::runtime::zynq

#endif  // LOOM_RUNTIME_DRIVERS_ZYNQ_MAPPED_REGION_H_
