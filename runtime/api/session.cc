#include "runtime/api/session.h"

#include "runtime/config/config_file.h"

namespace loom::runtime {

Status OpenSession(std::unique_ptr<Package> package, const SessionOptions& options,
                   std::unique_ptr<Executor>* out) {
  std::unique_ptr<Driver> driver;
  LOOM_RETURN_IF_ERROR(CreateDriver(options.device, &driver));
  ExecutorOptions eo;
  if (!options.config.empty()) {
    eo.has_device_config = true;
    LOOM_RETURN_IF_ERROR(LoadHwConfig(options.config, &eo.device_config));
  }
  eo.trace = options.trace;
  eo.timeline = options.timeline;
  eo.timeout_ms = options.timeout_ms;
  eo.wall_timeout_ms = options.wall_timeout_ms;
  eo.waves = options.waves;
  return Executor::Create(std::move(package), std::move(driver), eo, out);
}

Status OpenSessionFile(const std::string& path, const SessionOptions& options,
                       std::unique_ptr<Executor>* out) {
  std::unique_ptr<Package> package;
  LOOM_RETURN_IF_ERROR(Package::LoadFile(path, &package));
  return OpenSession(std::move(package), options, out);
}

}  // namespace loom::runtime
