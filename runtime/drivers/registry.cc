// The drivers built into this runtime. A new driver adds one line here and one library in
// CMakeLists.txt; the executor never changes.
#include "runtime/drivers/cpu/cpu_driver.h"
#include "runtime/drivers/driver.h"
#include "runtime/drivers/fsim/fsim_driver.h"
#include "runtime/drivers/null/null_driver.h"
#ifdef LOOM_HAVE_TSIM
#include "runtime/drivers/tsim/tsim_driver.h"
#endif

namespace loom::runtime {
namespace {

struct Entry {
  const char* name;
  std::unique_ptr<Driver> (*create)();
};
constexpr Entry kDrivers[] = {
    {"cpu", &CreateCpuDriver},
    {"fsim", &CreateFsimDriver},
#ifdef LOOM_HAVE_TSIM
    {"tsim", &CreateTsimDriver},
#endif
    {"null", &CreateNullDriver},
};

}  // namespace

std::string DriverNames() {
  std::string names;
  for (const Entry& e : kDrivers) names += (names.empty() ? "" : " ") + std::string(e.name);
  return names;
}

Status CreateDriver(const std::string& name, std::unique_ptr<Driver>* out) {
  for (const Entry& e : kDrivers) {
    if (name == e.name) {
      *out = e.create();
      return Status::Ok();
    }
  }
  if (name == "tsim") {
    return NotFound("device 'tsim' is not built into this runtime (needs Verilator 5 and zlib at "
                    "build time); available: " + DriverNames());
  }
  return NotFound("unknown device '" + name + "'; available: " + DriverNames());
}

}  // namespace loom::runtime
