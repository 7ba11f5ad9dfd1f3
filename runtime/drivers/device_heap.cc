#include "runtime/drivers/device_heap.h"

#include <string>

namespace loom::runtime {

void DeviceHeap::Reset(uint64_t base, uint64_t bytes) {
  base_ = base;
  size_ = bytes;
  live_.clear();
}

Status DeviceHeap::Allocate(uint64_t bytes, uint64_t align, uint64_t* addr) {
  if (align == 0 || (align & (align - 1)) != 0) {
    return InvalidArgument("alignment {} is not a power of two", align);
  }
  const uint64_t need = bytes ? bytes : 1;  // distinct addresses for empty allocations
  uint64_t cursor = base_;
  auto fits = [&](uint64_t start, uint64_t limit) {
    const uint64_t a = (start + align - 1) & ~(align - 1);
    return a >= start && a <= limit && need <= limit - a ? a : UINT64_MAX;
  };
  for (auto it = live_.begin();; ++it) {
    const uint64_t limit = it == live_.end() ? base_ + size_ : it->first;
    const uint64_t a = fits(cursor, limit);
    if (a != UINT64_MAX) {
      live_[a] = need;
      *addr = a;
      return Status::Ok();
    }
    if (it == live_.end()) break;
    cursor = it->first + it->second;
  }
  return OutOfRange("device memory exhausted: cannot allocate {} bytes (aligned to {}) in {} bytes",
                    bytes, align, size_);
}

Status DeviceHeap::Free(uint64_t addr) {
  if (live_.erase(addr) == 0) {
    return InvalidArgument("device address {} was not allocated", addr);
  }
  return Status::Ok();
}

bool DeviceHeap::Contains(uint64_t addr, uint64_t bytes) const {
  auto it = live_.upper_bound(addr);
  if (it == live_.begin()) return false;
  --it;
  return addr >= it->first && bytes <= it->second && addr - it->first <= it->second - bytes;
}

}  // namespace loom::runtime
