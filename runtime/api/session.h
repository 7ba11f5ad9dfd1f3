// Opening a package on a named device in one call: what loom-run, the C API and the host tool
// share. Part of the runtime a board links (loom_runtime), so it knows only the drivers that are
// registered (runtime/drivers/driver.h) and reads no config files itself.
#ifndef LOOM_RUNTIME_API_SESSION_H_
#define LOOM_RUNTIME_API_SESSION_H_

#include <memory>
#include <string>

#include "runtime/exec/executor.h"

namespace loom::runtime {

struct SessionOptions {
  // A device string, NAME[:ARGS] (CreateDriver): "fsim", "zynq:dma=udmabuf:udmabuf1"; or
  // "remote://HOST:PORT[/NAME[:ARGS]]", a device served by `loom-run serve` (docs/remote.md).
  std::string device = DefaultDeviceName();
  // HwConfig name or path to open the device with instead of the package's; needs a config
  // loader (SetHwConfigLoader). Empty: the package's config.
  std::string config;
  bool trace = false;
  bool timeline = false;  // ExecutorOptions::timeline
  uint32_t timeout_ms = 600000;                      // device time, per submission
  uint32_t wall_timeout_ms = kDefaultWallTimeoutMs;  // simulators: host time, per submission
  std::string waves;  // tsim
  // LoadOptions and ExecutorOptions::max_device_memory (loom-run --max-device-memory).
  uint64_t max_device_memory = kDefaultMaxDeviceMemory;
  bool native_code = true;  // ExecutorOptions::native_code (loom-run --no-native)
};

// Reads a HwConfig by name or path for SessionOptions::config. The runtime a board links has no
// loader: a board runs the config its package was compiled and checked for (the device reports its
// own), and reading JSON config files would pull a JSON parser with exceptions and std::filesystem
// into it. Host builds install runtime/config's reader (RegisterHostRuntime(),
// runtime/api/host_runtime.h). Not thread-safe: set it at start-up.
using HwConfigLoader = Status (*)(const std::string& name_or_path, HwConfig* out);
void SetHwConfigLoader(HwConfigLoader loader);

// The device strings a session takes, for help texts: DriverNames() and, where the runtime has
// the remote device (Linux), "remote://HOST:PORT[/DEVICE]".
std::string SessionDeviceNames();

// Loads (and verifies) the package, opens the device and places the package on it. A remote
// device gets the package (uploaded unless the server has it cached) and runs it there.
Status OpenSession(std::unique_ptr<Package> package, const SessionOptions& options,
                   std::unique_ptr<Executor>* out);
Status OpenSessionFile(const std::string& path, const SessionOptions& options,
                       std::unique_ptr<Executor>* out);

}  // namespace loom::runtime

#endif  // LOOM_RUNTIME_API_SESSION_H_
