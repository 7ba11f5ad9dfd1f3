#include "runtime/drivers/sim/sim_drivers.h"

#include "runtime/drivers/driver.h"
#include "runtime/drivers/fsim/fsim_driver.h"
#ifdef LOOM_HAVE_TSIM
#include "runtime/drivers/tsim/tsim_driver.h"
#endif

namespace loom::runtime {

Status RegisterSimulatorDrivers() {
  LOOM_RETURN_IF_ERROR(RegisterDriver("fsim", &CreateFsimDriver));
#ifdef LOOM_HAVE_TSIM
  LOOM_RETURN_IF_ERROR(RegisterDriver("tsim", &CreateTsimDriver));
#endif
  return Status::Ok();
}

}  // namespace loom::runtime
