// The cpu driver: device memory is host memory, and there is no accelerator. The executor sees
// executes_programs() == false and runs every segment, accelerator segments included, from its
// op-level description with the int8 CPU kernels; no instruction is interpreted.
#ifndef LOOM_RUNTIME_DRIVERS_CPU_CPU_DRIVER_H_
#define LOOM_RUNTIME_DRIVERS_CPU_CPU_DRIVER_H_

#include <memory>

#include "runtime/drivers/driver.h"

namespace loom::runtime {

std::unique_ptr<Driver> CreateCpuDriver();

}  // namespace loom::runtime

#endif  // LOOM_RUNTIME_DRIVERS_CPU_CPU_DRIVER_H_
