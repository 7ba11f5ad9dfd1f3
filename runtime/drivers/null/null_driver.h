// The null driver: the template for a new device. Every call reports Unimplemented, naming the
// call, so a half-written driver fails loudly at the first thing it lacks. Copy this folder,
// rename, and fill in one call at a time against the conformance suite (tests/runtime).
#ifndef LOOM_RUNTIME_DRIVERS_NULL_NULL_DRIVER_H_
#define LOOM_RUNTIME_DRIVERS_NULL_NULL_DRIVER_H_

#include <memory>

#include "runtime/drivers/driver.h"

namespace loom::runtime {

std::unique_ptr<Driver> CreateNullDriver();

}  // namespace loom::runtime

#endif  // LOOM_RUNTIME_DRIVERS_NULL_NULL_DRIVER_H_
