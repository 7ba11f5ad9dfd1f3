#include "runtime/api/session.h"

namespace loom::runtime {
namespace {

HwConfigLoader g_config_loader = nullptr;

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
  return Executor::Create(std::move(package), std::move(driver), eo, out);
}

}  // namespace

void SetHwConfigLoader(HwConfigLoader loader) { g_config_loader = loader; }

Status OpenSession(std::unique_ptr<Package> package, const SessionOptions& options,
                   std::unique_ptr<Executor>* out) {
  std::unique_ptr<Driver> driver;
  std::string device_args;
  LOOM_RETURN_IF_ERROR(CreateDriver(options.device, &driver, &device_args));
  return Open(std::move(package), std::move(driver), device_args, options, out);
}

Status OpenSessionFile(const std::string& path, const SessionOptions& options,
                       std::unique_ptr<Executor>* out) {
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
