// The remote device's server (`loom-run serve`): runs packages that clients send on a device of
// this machine (docs/remote.md). What TVM's RPC server is to VTA on a Pynq.
//
// One client at a time: the calling thread accepts connections and queues them (each queued
// client is told how many are ahead of it; beyond `max_queue` a client is told the server is busy
// and disconnected), one worker thread serves them in order. A connection opens a package on a
// device, runs inputs, and closes; its device is closed with it, so whatever a client does --
// vanish mid-upload or mid-run, send garbage -- the next client finds the device as the server
// opened it. Packages are cached by hash (FNV-1a 64 of the payload, and the size) across
// connections, so a client sends a package once.
//
// No authentication: serve on a trusted network (a lab's board, a CI loopback), like TVM's RPC.
#ifndef LOOM_RUNTIME_REMOTE_SERVER_H_
#define LOOM_RUNTIME_REMOTE_SERVER_H_

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <list>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "runtime/core/status.h"
#include "runtime/remote/socket.h"

namespace loom::runtime::remote {

struct ServeOptions {
  std::string host = "127.0.0.1";
  uint16_t port = 0;           // 0: an ephemeral port (Server::port() says which)
  std::string device = "cpu";  // the device a client gets when it names none
  // A message that has started arriving must finish within this; so must a client's HELLO and
  // every write to a client.
  int read_timeout_ms = 30000;
  // How long a connection may sit between requests before the server drops it.
  int idle_timeout_ms = 600000;
  size_t max_queue = 8;                 // clients waiting behind the one being served
  uint64_t cache_bytes = 512ull << 20;  // packages kept, least recently used dropped first
  bool log = true;                      // one line per connection, open and run on stderr
};

// Counters since the server started (a snapshot).
struct ServerStats {
  uint64_t connections = 0;  // accepted
  uint64_t busy = 0;         // refused with a full queue
  uint64_t served = 0;       // connections that passed HELLO
  uint64_t refused = 0;      // connections dropped for a protocol error (garbage, wrong version)
  uint64_t uploads = 0;      // packages received
  uint64_t cache_hits = 0;   // OPENs served from the cache
  uint64_t runs = 0;         // successful RUNs
  uint64_t run_errors = 0;   // RUNs answered with an error
};

class Server {
 public:
  // Binds and listens (the port is known when this returns); serves nothing until Serve().
  static Status Create(const ServeOptions& options, std::unique_ptr<Server>* out);
  ~Server();
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;

  uint16_t port() const { return port_; }
  // Accepts and serves until Stop(); then refuses the queued clients, lets the one being served
  // finish its current request, and returns.
  Status Serve();
  // Async-signal-safe (one write to a pipe): a SIGINT/SIGTERM handler may call it.
  void Stop();
  ServerStats stats() const;

 private:
  struct CachedPackage {
    uint64_t hash = 0;
    std::vector<uint8_t> bytes;
  };
  struct Pending {
    Fd fd;
    std::string peer;
    uint64_t id = 0;
  };
  struct Counters {
    std::atomic<uint64_t> connections{0}, busy{0}, served{0}, refused{0}, uploads{0}, cache_hits{0},
        runs{0}, run_errors{0};
  };
  class Connection;

  Server() = default;
  void Worker();
  void Log(uint64_t id, const std::string& peer, const std::string& text) const;
  // The cached package of this hash and size, moved to the front; null when absent.
  const CachedPackage* FindCached(uint64_t hash, uint64_t bytes);
  const CachedPackage* AddCached(uint64_t hash, std::vector<uint8_t> bytes);

  ServeOptions options_;
  Fd listen_;
  uint16_t port_ = 0;
  int stop_pipe_[2] = {-1, -1};
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<Pending> queue_;
  bool busy_ = false;  // the worker is serving a connection
  bool stopping_ = false;
  std::list<CachedPackage> cache_;  // the worker's alone
  uint64_t cache_used_ = 0;
  Counters counters_;
};

}  // namespace loom::runtime::remote

#endif  // LOOM_RUNTIME_REMOTE_SERVER_H_
