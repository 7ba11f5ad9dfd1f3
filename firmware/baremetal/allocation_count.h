// How many times the image called the heap allocator since reset (newlib_syscalls.cc).
#ifndef LOOM_FIRMWARE_BAREMETAL_ALLOCATION_COUNT_H_
#define LOOM_FIRMWARE_BAREMETAL_ALLOCATION_COUNT_H_

#include <cstdint>

namespace loom::baremetal {

uint32_t AllocationCount();

}  // namespace loom::baremetal

#endif  // LOOM_FIRMWARE_BAREMETAL_ALLOCATION_COUNT_H_
