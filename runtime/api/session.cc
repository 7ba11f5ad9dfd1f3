#include "runtime/api/session.h"

#ifdef LOOM_HAVE_REMOTE
#include "runtime/remote/client.h"
#endif

namespace loom::runtime {
namespace {

HwConfigLoader g_config_loader = nullptr;

bool IsRemote(const std::string& device) { return device.compare(0, 9, "remote://") == 0; }

// A remote:// device: the package runs on a `loom-run serve` server (docs/remote.md).
Status OpenRemoteSession(std::unique_ptr<Package> package, const SessionOptions& options,
                         std::unique_ptr<Executor>* out) {
#ifdef LOOM_HAVE_REMOTE
  const std::string what = "device '" + options.device + "'";
  if (!options.config.empty()) {
    return InvalidArgument(what + ": a remote server opens the package's own config; leave the " +
                           "config option ('" + options.config + "') out");
  }
  if (!options.waves.empty()) {
    return InvalidArgument(what + ": waveforms are not brought back from a server; run tsim " +
                           "locally for --waves");
  }
  remote::RemoteOptions ro;
  ro.address = options.device.substr(9);
  ro.trace = options.trace;
  ro.timeline = options.timeline;
  ro.timeout_ms = options.timeout_ms;
  ro.wall_timeout_ms = options.wall_timeout_ms;
  ro.max_device_memory = options.max_device_memory;
  return remote::OpenRemote(std::move(package), ro, out);
#else
  (void)package;
  (void)out;
  return Unimplemented("device '" + options.device + "': this runtime was built without the " +
                       "remote device (it needs POSIX sockets, which a bare-metal build lacks)");
#endif
}

Status Open(std::unique_ptr<Package> package, std::unique_ptr<Driver> driver,
            const std::string& device_args, const SessionOptions& options,
            std::unique_ptr<Executor>* out) {
  ExecutorOptions eo;
  eo.device_args = device_args;
  if (!options.config.empty()) {
    if (g_config_loader == nullptr) {
      return Unimplemented("config '" + options.config + "' was asked for, but this runtime " +
                           "reads no config files (a board runtime runs the config its package " +
                           "was built for, " + package->config().name + "); leave the config " +
                           "option out");
    }
    eo.has_device_config = true;
    LOOM_RETURN_IF_ERROR(g_config_loader(options.config, &eo.device_config));
  }
  eo.trace = options.trace;
  eo.timeline = options.timeline;
  eo.timeout_ms = options.timeout_ms;
  eo.wall_timeout_ms = options.wall_timeout_ms;
  eo.waves = options.waves;
  eo.max_device_memory = options.max_device_memory;
  eo.native_code = options.native_code;
  return Executor::Create(std::move(package), std::move(driver), eo, out);
}

}  // namespace

void SetHwConfigLoader(HwConfigLoader loader) { g_config_loader = loader; }

std::string SessionDeviceNames() {
#ifdef LOOM_HAVE_REMOTE
  return DriverNames() + " remote://HOST:PORT[/DEVICE]";
#else
  return DriverNames();
#endif
}

Status OpenSession(std::unique_ptr<Package> package, const SessionOptions& options,
                   std::unique_ptr<Executor>* out) {
  if (IsRemote(options.device)) return OpenRemoteSession(std::move(package), options, out);
  std::unique_ptr<Driver> driver;
  std::string device_args;
  LOOM_RETURN_IF_ERROR(CreateDriver(options.device, &driver, &device_args));
  return Open(std::move(package), std::move(driver), device_args, options, out);
}

Status OpenSessionFile(const std::string& path, const SessionOptions& options,
                       std::unique_ptr<Executor>* out) {
  if (IsRemote(options.device)) {
    std::unique_ptr<Package> package;
    LoadOptions lo;
    lo.max_device_memory = options.max_device_memory;
    LOOM_RETURN_IF_ERROR(Package::LoadFile(path, &package, lo));
    return OpenRemoteSession(std::move(package), options, out);
  }
  // The device first: a device this runtime lacks is reported before any package is read.
  std::unique_ptr<Driver> driver;
  std::string device_args;
  LOOM_RETURN_IF_ERROR(CreateDriver(options.device, &driver, &device_args));
  std::unique_ptr<Package> package;
  LoadOptions lo;
  lo.max_device_memory = options.max_device_memory;
  LOOM_RETURN_IF_ERROR(Package::LoadFile(path, &package, lo));
  return Open(std::move(package), std::move(driver), device_args, options, out);
}

}  // namespace loom::runtime
