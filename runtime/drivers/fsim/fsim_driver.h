// The fsim driver: accelerator segments run on sim/fsim (bit-exact functional model with the
// timing model); device memory is fsim's DRAM image, reached only through CopyIn/CopyOut like a
// real card's. Counters come from fsim's statistics; the timeline from its trace.
#ifndef LOOM_RUNTIME_DRIVERS_FSIM_FSIM_DRIVER_H_
#define LOOM_RUNTIME_DRIVERS_FSIM_FSIM_DRIVER_H_

#include <memory>

#include "runtime/drivers/driver.h"

namespace loom::runtime {

std::unique_ptr<Driver> CreateFsimDriver();

}  // namespace loom::runtime

#endif  // LOOM_RUNTIME_DRIVERS_FSIM_FSIM_DRIVER_H_
