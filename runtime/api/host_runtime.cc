#include "runtime/api/host_runtime.h"

#include "runtime/api/session.h"
#include "runtime/config/config_file.h"
#include "runtime/drivers/sim/sim_drivers.h"
#include "runtime/include/loom_runtime_host.h"

namespace loom::runtime {

Status RegisterHostRuntime() {
  LOOM_RETURN_IF_ERROR(RegisterSimulatorDrivers());
  SetHwConfigLoader(&LoadHwConfig);
  return Status::Ok();
}

}  // namespace loom::runtime

extern "C" loom_status loom_register_host_runtime(void) {
  return static_cast<loom_status>(loom::runtime::RegisterHostRuntime().code());
}
