#include "runtime/drivers/xrt/xrt_driver.h"

#include <cstdlib>
#include <utility>

#include "runtime/drivers/xrt/xrt_transport.h"

namespace loom::runtime {

Status OpenXrtTransports(const DriverOptions& options, Transports* out) {
  xrt::XrtOptions xrt_options;
  LOOM_RETURN_IF_ERROR(
      xrt::ParseXrtDeviceArgs(options.device_args, std::getenv("LOOM_XCLBIN"), &xrt_options));
  std::unique_ptr<xrt::XrtRegisterTransport> regs;
  std::unique_ptr<xrt::XrtDmaTransport> dma;
  LOOM_RETURN_IF_ERROR(xrt::OpenXrtTransportPair(xrt_options, &regs, &dma));
  out->regs = std::move(regs);
  out->dma = std::move(dma);
  return Status::Ok();
}

std::unique_ptr<Driver> CreateXrtDriver() {
  return CreateProtocolDriver("xrt", &OpenXrtTransports);
}

}  // namespace loom::runtime
