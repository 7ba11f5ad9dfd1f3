// What the host build of the runtime adds to the runtime a board links (library
// loom_runtime_host): the simulator devices fsim and tsim (runtime/drivers/sim/sim_drivers.h) and
// hardware configs read by name or path (runtime/config) for SessionOptions::config, `--config`
// and loom_options.config. Host tools, tests and the host loom-run call RegisterHostRuntime() once
// at start-up; C programs call loom_register_host_runtime() (runtime/include/loom_runtime_host.h).
#ifndef LOOM_RUNTIME_API_HOST_RUNTIME_H_
#define LOOM_RUNTIME_API_HOST_RUNTIME_H_

#include "runtime/core/status.h"

namespace loom::runtime {

// Idempotent. Not thread-safe: call it before opening devices from other threads.
Status RegisterHostRuntime();

}  // namespace loom::runtime

#endif  // LOOM_RUNTIME_API_HOST_RUNTIME_H_
