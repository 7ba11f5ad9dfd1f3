// First-fit allocator over a device address range, for drivers whose device memory is one
// contiguous window (simulators, a reserved CMA region). Allocations are few and large (arena,
// constants, programs), so a sorted map is plenty.
#ifndef LOOM_RUNTIME_DRIVERS_DEVICE_HEAP_H_
#define LOOM_RUNTIME_DRIVERS_DEVICE_HEAP_H_

#include <cstdint>
#include <map>

#include "runtime/core/status.h"

namespace loom::runtime {

class DeviceHeap {
 public:
  void Reset(uint64_t base, uint64_t bytes);
  Status Allocate(uint64_t bytes, uint64_t align, uint64_t* addr);
  Status Free(uint64_t addr);
  // True if [addr, addr + bytes) lies inside one live allocation.
  bool Contains(uint64_t addr, uint64_t bytes) const;

 private:
  uint64_t base_ = 0, size_ = 0;
  std::map<uint64_t, uint64_t> live_;  // address -> bytes
};

}  // namespace loom::runtime

#endif  // LOOM_RUNTIME_DRIVERS_DEVICE_HEAP_H_
