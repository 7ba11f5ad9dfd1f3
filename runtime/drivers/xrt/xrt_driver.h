// The xrt device (Alveo cards; XRT edge on ZynqMP): the accelerator protocol
// (protocol/protocol_driver.h) over the xrt transports (xrt_transport.h). The device string is
// "xrt[:DEVICE][,xclbin=PATH][,kernel=NAME]" (xrt_transport.h, docs/boards.md).
#ifndef LOOM_RUNTIME_DRIVERS_XRT_XRT_DRIVER_H_
#define LOOM_RUNTIME_DRIVERS_XRT_XRT_DRIVER_H_

#include <memory>

#include "runtime/drivers/driver.h"
#include "runtime/drivers/protocol/protocol_driver.h"

namespace loom::runtime {

// Reads options.device_args and $LOOM_XCLBIN; opens the card, loads the xclbin, finds the kernel.
Status OpenXrtTransports(const DriverOptions& options, Transports* out);

std::unique_ptr<Driver> CreateXrtDriver();

}  // namespace loom::runtime

#endif  // LOOM_RUNTIME_DRIVERS_XRT_XRT_DRIVER_H_
