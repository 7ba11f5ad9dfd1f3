// The opencl driver: the accelerator's ISA as an OpenCL kernel (vta.cl) on any OpenCL device
// (docs/runtime.md, "The opencl device"). Device memory is one device buffer handed out by a
// DeviceHeap at fsim's addresses; copies are clEnqueueWrite/ReadBuffer; a submission runs as
// kernel launches that each do a bounded amount of work, so Wait's timeouts hold without
// cancelling a kernel. Counters: instructions (per module), MACs and DMA bytes; the device models
// no time, so DeviceCounters::timed is false and cycles and busy are zero.
#ifndef LOOM_RUNTIME_DRIVERS_OPENCL_OPENCL_DRIVER_H_
#define LOOM_RUNTIME_DRIVERS_OPENCL_OPENCL_DRIVER_H_

#include <memory>
#include <string>

#include "runtime/drivers/driver.h"

namespace loom::runtime {

std::unique_ptr<Driver> CreateOpenclDriver();

// The OpenCL platforms and devices this machine offers, one per line, for `loom-run devices`; or
// what the ICD loader saw when there are none.
std::string DescribeOpenclDevices();

}  // namespace loom::runtime

#endif  // LOOM_RUNTIME_DRIVERS_OPENCL_OPENCL_DRIVER_H_
