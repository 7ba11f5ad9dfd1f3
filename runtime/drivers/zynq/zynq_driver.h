// The `zynq` device: the accelerator protocol (protocol/protocol_driver.h) over UIO registers and
// u-dma-buf or /dev/mem DMA memory, for Loom on a Zynq-7000 or ZynqMP board under Linux. Its device
// string is zynq_device.h's; docs/boards.md is the deployment guide.
#ifndef LOOM_RUNTIME_DRIVERS_ZYNQ_ZYNQ_DRIVER_H_
#define LOOM_RUNTIME_DRIVERS_ZYNQ_ZYNQ_DRIVER_H_

#include <memory>

#include "runtime/core/status.h"
#include "runtime/drivers/driver.h"
#include "runtime/drivers/protocol/protocol_driver.h"

namespace loom::runtime {

// Parses options.device_args (ParseZynqDeviceArgs) and opens the transports (OpenZynqDevice).
// Errors say which file or device was missing and what to check, prefixed with the device string.
Status OpenZynqTransports(const DriverOptions& options, Transports* out);

std::unique_ptr<Driver> CreateZynqDriver();

}  // namespace loom::runtime

#endif  // LOOM_RUNTIME_DRIVERS_ZYNQ_ZYNQ_DRIVER_H_
