// The tsim driver: accelerator segments run on the accelerator's RTL under Verilator
// (sim/tsim), driven by the one accelerator protocol every hardware driver runs
// (runtime/drivers/protocol) over tsim's transports (tsim_transport.h): registers through the
// model's AXI-Lite slave, the irq line, device memory in the harness's DRAM model. Only configs
// whose RTL model was built are available (sim/tsim/CMakeLists.txt: 1x8x8, and 1x16x16 unless
// switched off).
//
// Device string: "tsim" or "tsim:stale-cache" models a non-coherent CPU cache (the CPU's view of
// device memory is a separate copy that only the driver's syncs move to and from the DRAM model,
// so a missing flush or invalidate shows up as wrong results); "tsim:coherent" shares one copy.
#ifndef LOOM_RUNTIME_DRIVERS_TSIM_TSIM_DRIVER_H_
#define LOOM_RUNTIME_DRIVERS_TSIM_TSIM_DRIVER_H_

#include <memory>
#include <string>

#include "runtime/drivers/driver.h"

namespace loom::runtime {

std::unique_ptr<Driver> CreateTsimDriver();

// What DriverOptions::device_args selects for tsim.
struct TsimOptions {
  bool stale_cache = true;
};
Status ParseTsimDeviceArgs(const std::string& args, TsimOptions* out);

}  // namespace loom::runtime

#endif  // LOOM_RUNTIME_DRIVERS_TSIM_TSIM_DRIVER_H_
