// The client side of the remote device: a session whose package runs on a `loom-run serve` server
// (docs/remote.md). Device strings "remote://HOST:PORT[/DEVICE]" reach it through OpenSession
// (runtime/api/session.h), so loom-run, loom run/profile, the C API and Python use it unchanged.
//
// OpenRemote connects, says HELLO (waiting while the server serves clients ahead of this one),
// sends OPEN with the package's hash, uploads the package only when the server has not cached it,
// and returns an Executor: Run sends the inputs and returns the outputs, adding the run's counters
// to profile() and, with timeline, each segment's per-instruction timing to timeline(); TraceJson
// asks the server for the device's timeline. The connection lives as long as the Executor.
#ifndef LOOM_RUNTIME_REMOTE_CLIENT_H_
#define LOOM_RUNTIME_REMOTE_CLIENT_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "runtime/exec/executor.h"

namespace loom::runtime::remote {

inline constexpr char kRemoteScheme[] = "remote://";

struct RemoteOptions {
  std::string address;  // HOST:PORT[/DEVICE], what follows "remote://"
  bool trace = false;
  bool timeline = false;
  uint32_t timeout_ms = 600000;
  uint32_t wall_timeout_ms = kDefaultWallTimeoutMs;
  uint64_t max_device_memory = kDefaultMaxDeviceMemory;
  int connect_timeout_ms = 10000;
  // Every reply but HELLO_OK (which may wait behind other clients) and RESULT (which takes as
  // long as the run) must come within this.
  int read_timeout_ms = 600000;
  // Called with the number of clients ahead when the server queues this one.
  std::function<void(uint32_t)> on_queued;
};

// True for "remote://...".
bool IsRemoteDevice(const std::string& device);

// Splits "HOST:PORT[/DEVICE]"; an empty device means the server's default.
Status ParseRemoteAddress(const std::string& address, std::string* host, uint16_t* port,
                          std::string* device);

Status OpenRemote(std::unique_ptr<Package> package, const RemoteOptions& options,
                  std::unique_ptr<Executor>* out);

}  // namespace loom::runtime::remote

#endif  // LOOM_RUNTIME_REMOTE_CLIENT_H_
