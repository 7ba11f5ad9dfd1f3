// Fuzz target for the opencl device string (opencl_device.h, ParseDeviceArgs): any text after
// "opencl:" parses or fails with a message naming the string, and what parses is consistent.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "runtime/drivers/opencl/opencl_device.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string args(reinterpret_cast<const char*>(data), size);
  loom::runtime::opencl::DeviceArgs a;
  const loom::Status s = loom::runtime::opencl::ParseDeviceArgs(args, &a);
  if (!s.ok()) {
    // An error names the device string it refuses.
    if (s.message().find("device 'opencl:") == std::string::npos) std::abort();
    return 0;
  }
  // Names hold no separator or option; options are only set with a value.
  for (const std::string* name : {&a.platform, &a.device}) {
    if (name->find(':') != std::string::npos || name->find('=') != std::string::npos) std::abort();
  }
  if (args.find("binary=") == std::string::npos && !a.binary.empty()) std::abort();
  if (args.find("cache=") == std::string::npos && !a.cache.empty()) std::abort();
  return 0;
}
