// The cpu driver: device memory is host memory, and there is no accelerator. The executor sees
// executes_programs() == false and runs every segment, accelerator segments included, from its
// op-level description with the int8 CPU kernels; no instruction is interpreted.
#ifndef LOOM_RUNTIME_DRIVERS_CPU_CPU_DRIVER_H_
#define LOOM_RUNTIME_DRIVERS_CPU_CPU_DRIVER_H_

#include <cstdint>
#include <memory>

#include "runtime/drivers/driver.h"

namespace loom::runtime {

// Device memory is a vector sized at Open (DriverOptions::memory_bytes).
std::unique_ptr<Driver> CreateCpuDriver();

// Device memory is the caller's `bytes` at `memory` (a bare-metal image's linker-script region),
// which must outlive the driver; Open refuses a package that needs more (kOutOfRange naming both
// sizes) and the driver never allocates device memory from the heap.
std::unique_ptr<Driver> CreateCpuDriverOver(uint8_t* memory, uint64_t bytes);

}  // namespace loom::runtime

#endif  // LOOM_RUNTIME_DRIVERS_CPU_CPU_DRIVER_H_
