// The driver registry: the core runtime's own drivers plus whatever an optional library registered
// (docs/runtime.md, "Drivers"). A fixed table, no allocation, no static initialisers.
#include <cstring>

#include "runtime/drivers/cpu/cpu_driver.h"
#include "runtime/drivers/driver.h"
#include "runtime/drivers/null/null_driver.h"
#ifdef LOOM_HAVE_XRT_DRIVER
#include "runtime/drivers/xrt/xrt_driver.h"
#endif
#ifdef LOOM_HAVE_ZYNQ
#include "runtime/drivers/zynq/zynq_driver.h"
#endif
#ifdef LOOM_HAVE_OPENCL_DRIVER
#include "runtime/drivers/opencl/opencl_driver.h"
#endif

namespace loom::runtime {
namespace {

struct Entry {
  const char* name;
  DriverFactory create;
};

// Every runtime has these; a hardware driver (zynq, xrt) adds its line here: a board links it.
constexpr Entry kBuiltIn[] = {
    {"cpu", &CreateCpuDriver},
#ifdef LOOM_HAVE_ZYNQ
    {"zynq", &CreateZynqDriver},  // Linux user space: UIO and u-dma-buf (docs/boards.md)
#endif
#ifdef LOOM_HAVE_XRT_DRIVER
    {"xrt", &CreateXrtDriver},  // Alveo (and XRT edge) through XRT's native API (docs/boards.md)
#endif
#ifdef LOOM_HAVE_OPENCL_DRIVER
    {"opencl", &CreateOpenclDriver},  // the ISA as an OpenCL kernel (docs/runtime.md)
#endif
    {"null", &CreateNullDriver},  // last: DriverNames lists the template after the real devices
};

// Devices that only the simulator library (loom_sim_drivers) provides, for the NotFound message.
constexpr const char* kSimulators[] = {"fsim", "tsim"};

Entry g_registered[kMaxDrivers];
size_t g_num_registered = 0;

const Entry* Find(const char* name) {
  for (const Entry& e : kBuiltIn) {
    if (std::strcmp(e.name, name) == 0) return &e;
  }
  for (size_t i = 0; i < g_num_registered; ++i) {
    if (std::strcmp(g_registered[i].name, name) == 0) return &g_registered[i];
  }
  return nullptr;
}

}  // namespace

Status RegisterDriver(const char* name, DriverFactory create) {
  if (name == nullptr || name[0] == '\0' || create == nullptr) {
    return InvalidArgument("RegisterDriver needs a name and a factory");
  }
  if (const Entry* e = Find(name)) {
    if (e->create == create) return Status::Ok();
    return FailedPrecondition("a different driver is already registered as '{}'", name);
  }
  if (g_num_registered == kMaxDrivers) {
    return FailedPrecondition("cannot register driver '{}': the registry holds at most {} drivers",
                              name, kMaxDrivers);
  }
  g_registered[g_num_registered++] = Entry{name, create};
  return Status::Ok();
}

std::string DriverNames() {
  // cpu first (the default a user can always run), registered drivers, the hardware drivers, then
  // the null template.
  std::string names = kBuiltIn[0].name;
  for (size_t i = 0; i < g_num_registered; ++i) names += std::string(" ") + g_registered[i].name;
  for (size_t i = 1; i < sizeof(kBuiltIn) / sizeof(kBuiltIn[0]); ++i) {
    names += std::string(" ") + kBuiltIn[i].name;
  }
  return names;
}

std::string DescribeDevices() {
  // What each name is; a driver registered from outside (a test's) gets no description.
  const struct {
    const char* name;
    const char* what;
  } kWhat[] = {
      {"cpu", "the host CPU: every segment from its op-level description"},
      {"fsim", "the C++ simulator: bit-exact, with the timing model"},
      {"tsim", "the RTL under Verilator"},
      {"zynq", "the accelerator in a Zynq/ZynqMP PL, Linux user space (docs/boards.md)"},
      {"xrt", "the accelerator on an Alveo card (or XRT edge) through XRT (docs/boards.md)"},
      {"opencl", "the ISA as an OpenCL kernel: opencl[:PLATFORM[:DEVICE]] (docs/runtime.md)"},
      {"null", "the template driver: implements nothing"},
  };
  std::string out;
  const std::string names = DriverNames() + " ";
  for (size_t pos = 0, space; (space = names.find(' ', pos)) != std::string::npos;
       pos = space + 1) {
    const std::string name = names.substr(pos, space - pos);
    out += name;
    for (const auto& w : kWhat) {
      if (name == w.name) out += std::string(name.size() < 8 ? 8 - name.size() : 1, ' ') + w.what;
    }
    out += "\n";
#ifdef LOOM_HAVE_OPENCL_DRIVER
    if (name == "opencl") out += DescribeOpenclDevices();
#endif
  }
  return out;
}

const char* DefaultDeviceName() { return Find("fsim") != nullptr ? "fsim" : kBuiltIn[0].name; }

void SplitDeviceString(const std::string& device, std::string* name, std::string* args) {
  const size_t colon = device.find(':');
  *name = device.substr(0, colon);
  *args = colon == std::string::npos ? std::string() : device.substr(colon + 1);
}

Status CheckNoDeviceArgs(const char* device, const DriverOptions& options) {
  if (options.device_args.empty()) return Status::Ok();
  return InvalidArgument("device '{}' takes no arguments, got '{}:{}'; name it alone", device,
                         device, options.device_args);
}

Status CreateDriver(const std::string& device, std::unique_ptr<Driver>* out,
                    std::string* device_args) {
  std::string name, args;
  SplitDeviceString(device, &name, &args);
  if (name.empty()) {
    return InvalidArgument(
        "device string '{}' names no device (expected NAME[:ARGS]); available: {}", device,
        DriverNames());
  }
  if (const Entry* e = Find(name.c_str())) {
    if (device_args != nullptr) {
      *device_args = args;
    } else if (device.find(':') != std::string::npos) {
      return InvalidArgument(
          "device string '{}': arguments after '{}:' cannot be passed on from here; name the "
          "device "
          "alone",
          device, name);
    }
    *out = e->create();
    return Status::Ok();
  }
  for (const char* sim : kSimulators) {
    if (name != sim) continue;
    if (Find("fsim") == nullptr && Find("tsim") == nullptr) {
      return NotFound(
          "device '{}' is a simulator, and this runtime was built without simulators (a board "
          "runtime; host tools link loom_sim_drivers and call RegisterSimulatorDrivers()); "
          "available: {}",
          name, DriverNames());
    }
    return NotFound(
        "device '{}' is not built into this runtime (tsim needs Verilator 5 and zlib at build time "
        "and -DLOOM_DRIVER_TSIM=ON); available: {}",
        name, DriverNames());
  }
  return NotFound("unknown device '{}'; available: {}", name, DriverNames());
}

}  // namespace loom::runtime
