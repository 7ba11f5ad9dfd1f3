// Finding the OpenCL device a device string names: "opencl[:PLATFORM[:DEVICE]][:key=value...]"
// (docs/runtime.md, "The opencl device"). PLATFORM and DEVICE are a case-insensitive part of the
// name clinfo shows, or an index; empty means the first that matches. Options:
//   binary=PATH  a precompiled kernel (.aocx, .xclbin) instead of building vta.cl from source
//   cache=DIR    where built kernels are cached ("off": no cache)
#ifndef LOOM_RUNTIME_DRIVERS_OPENCL_OPENCL_DEVICE_H_
#define LOOM_RUNTIME_DRIVERS_OPENCL_OPENCL_DEVICE_H_

#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>

#include <string>

#include "runtime/core/status.h"

namespace loom::runtime::opencl {

struct DeviceArgs {
  std::string platform;  // name part or index; empty: any
  std::string device;
  std::string binary;  // precompiled kernel; empty: build from source
  std::string cache;   // binary cache folder; empty: the default; "off": none
};

// Parses what followed "opencl:". Errors name the part that is wrong.
Status ParseDeviceArgs(const std::string& args, DeviceArgs* out);

struct SelectedDevice {
  cl_platform_id platform = nullptr;
  cl_device_id device = nullptr;
  std::string platform_name, device_name;
  std::string platform_version, device_version, driver_version;
  cl_device_type type = 0;
};

// The first device matching `args`. NotFound says which ICD loader configuration and platforms it
// saw (/etc/OpenCL/vendors, OCL_ICD_VENDORS, clGetPlatformIDs) and what they offer.
Status SelectDevice(const DeviceArgs& args, SelectedDevice* out);

// Every platform and device, one line each, as `loom-run devices` prints them; or why there are
// none.
std::string DescribeDevices();

// "CL_OUT_OF_RESOURCES (-5)".
std::string ClErrorName(cl_int err);
// An error from OpenCL call `what`, naming the call and the code.
Status ClError(const std::string& what, cl_int err);

}  // namespace loom::runtime::opencl

#endif  // LOOM_RUNTIME_DRIVERS_OPENCL_OPENCL_DEVICE_H_
