// The simulator devices as an optional part of the runtime (library loom_sim_drivers): fsim (the
// C++ simulator) and, when Verilator was found, tsim (the RTL). The runtime a board links does not
// carry them; host tools, tests and the host build of loom-run link this library and call
// RegisterSimulatorDrivers() once at start-up (runtime/api/host_runtime.h does it for them).
#ifndef LOOM_RUNTIME_DRIVERS_SIM_SIM_DRIVERS_H_
#define LOOM_RUNTIME_DRIVERS_SIM_SIM_DRIVERS_H_

#include "runtime/core/status.h"

namespace loom::runtime {

// Registers "fsim", and "tsim" when built, with the driver registry (driver.h). Idempotent.
Status RegisterSimulatorDrivers();

}  // namespace loom::runtime

#endif  // LOOM_RUNTIME_DRIVERS_SIM_SIM_DRIVERS_H_
