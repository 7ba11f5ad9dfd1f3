// The tsim driver: accelerator segments run on the accelerator's RTL under Verilator
// (sim/tsim). The model is programmed only through its AXI-Lite register map
// (docs/registers.md) by tsim::Device::Run, exactly as a board driver would; device memory is the
// harness's DRAM model behind its AXI4 port. Only configs whose RTL model was built are available
// (sim/tsim/CMakeLists.txt: 1x8x8, and 1x16x16 unless switched off).
#ifndef LOOM_RUNTIME_DRIVERS_TSIM_TSIM_DRIVER_H_
#define LOOM_RUNTIME_DRIVERS_TSIM_TSIM_DRIVER_H_

#include <memory>

#include "runtime/drivers/driver.h"

namespace loom::runtime {

std::unique_ptr<Driver> CreateTsimDriver();

}  // namespace loom::runtime

#endif  // LOOM_RUNTIME_DRIVERS_TSIM_TSIM_DRIVER_H_
