// Opening a package on a named device in one call: what loom-run, the C API and the host tool
// share. Lives beside the C API because it links every driver (and so the simulators).
#ifndef LOOM_RUNTIME_API_SESSION_H_
#define LOOM_RUNTIME_API_SESSION_H_

#include <memory>
#include <string>

#include "runtime/exec/executor.h"

namespace loom::runtime {

struct SessionOptions {
  std::string device = "fsim";  // a CreateDriver name
  std::string config;           // HwConfig name or path for the device; empty: the package's
  bool trace = false;
  bool timeline = false;  // ExecutorOptions::timeline
  uint32_t timeout_ms = 600000;                      // device time, per submission
  uint32_t wall_timeout_ms = kDefaultWallTimeoutMs;  // simulators: host time, per submission
  std::string waves;  // tsim
};

// Loads (and verifies) the package, opens the device and places the package on it.
Status OpenSession(std::unique_ptr<Package> package, const SessionOptions& options,
                   std::unique_ptr<Executor>* out);
Status OpenSessionFile(const std::string& path, const SessionOptions& options,
                       std::unique_ptr<Executor>* out);

}  // namespace loom::runtime

#endif  // LOOM_RUNTIME_API_SESSION_H_
