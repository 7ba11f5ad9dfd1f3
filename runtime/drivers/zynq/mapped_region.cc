#include "runtime/drivers/zynq/mapped_region.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cstdio>

#include "runtime/core/checked_math.h"

namespace loom::runtime::zynq {

MappedRegion::~MappedRegion() {
  if (base_ != nullptr) munmap(base_, static_cast<size_t>(bytes_));
  if (fd_ >= 0) close(fd_);
}

void MappedRegion::TakeMapping(const std::string& path, uint8_t* base, uint64_t phys,
                               uint64_t bytes) {
  path_ = path;
  base_ = base;
  phys_ = phys;
  bytes_ = bytes;
  heap_.Reset(phys, bytes);
}

Status MappedRegion::Allocate(uint64_t bytes, uint64_t align, DmaBuffer* buffer) {
  uint64_t addr;
  LOOM_RETURN_IF_ERROR(heap_.Allocate(bytes, align, &addr).WithContext(path_));
  buffer->device_address = addr;
  buffer->host = base_ + (addr - phys_);
  buffer->bytes = bytes;
  return Status::Ok();
}

Status MappedRegion::Free(const DmaBuffer& buffer) {
  return heap_.Free(buffer.device_address).WithContext(path_);
}

Status MappedRegion::CheckRange(const DmaBuffer& buffer, uint64_t offset, uint64_t bytes,
                                const char* what) const {
  uint64_t end, addr;
  if (CheckedAdd(offset, bytes, &end) && end <= buffer.bytes &&
      CheckedAdd(buffer.device_address, offset, &addr) && heap_.Contains(addr, bytes ? bytes : 1)) {
    return Status::Ok();
  }
  char at[24];
  std::snprintf(at, sizeof(at), "0x%llx", static_cast<unsigned long long>(buffer.device_address));
  return OutOfRange(std::string(what) + " of [" + std::to_string(offset) + ", +" +
                    std::to_string(bytes) + ") on DMA buffer " + at + " (" +
                    std::to_string(buffer.bytes) + " bytes) of " + path_ +
                    ": not inside a live allocation");
}

}  // namespace loom::runtime::zynq
