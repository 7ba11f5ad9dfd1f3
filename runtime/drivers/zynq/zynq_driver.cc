#include "runtime/drivers/zynq/zynq_driver.h"

#include <string>

#include "runtime/drivers/zynq/zynq_device.h"

namespace loom::runtime {

Status OpenZynqTransports(const DriverOptions& options, Transports* out) {
  zynq::ZynqDeviceArgs args;
  LOOM_RETURN_IF_ERROR(zynq::ParseZynqDeviceArgs(options.device_args, &args));
  return zynq::OpenZynqDevice(args, &out->regs, &out->dma);
}

std::unique_ptr<Driver> CreateZynqDriver() {
  return CreateProtocolDriver("zynq", &OpenZynqTransports);
}

}  // namespace loom::runtime
