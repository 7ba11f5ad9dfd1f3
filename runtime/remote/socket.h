// TCP for the remote device: addresses, listening, connecting, and whole-frame reads and writes
// with per-call timeouts (POSIX sockets; the runtime builds this only where they exist).
#ifndef LOOM_RUNTIME_REMOTE_SOCKET_H_
#define LOOM_RUNTIME_REMOTE_SOCKET_H_

#include <cstdint>
#include <string>
#include <vector>

#include "runtime/core/status.h"
#include "runtime/remote/protocol.h"

namespace loom::runtime::remote {

// Owns a file descriptor; closes it on destruction.
class Fd {
 public:
  Fd() = default;
  explicit Fd(int fd) : fd_(fd) {}
  ~Fd() { Reset(); }
  Fd(Fd&& o) noexcept : fd_(o.Release()) {}
  Fd& operator=(Fd&& o) noexcept {
    if (this != &o) {
      Reset();
      fd_ = o.Release();
    }
    return *this;
  }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;

  int get() const { return fd_; }
  bool valid() const { return fd_ >= 0; }
  int Release() {
    const int f = fd_;
    fd_ = -1;
    return f;
  }
  void Reset();

 private:
  int fd_ = -1;
};

// "HOST:PORT" or "[V6ADDR]:PORT"; the port 0..65535 (0: any free port, for listening).
Status ParseHostPort(const std::string& text, std::string* host, uint16_t* port);

// Binds and listens; *bound is the port actually bound (the ephemeral one when port is 0).
Status Listen(const std::string& host, uint16_t port, Fd* out, uint16_t* bound);
// Connects within timeout_ms.
Status Connect(const std::string& host, uint16_t port, int timeout_ms, Fd* out);

// Timeouts are in milliseconds; negative: wait for ever. A read also returns, with
// kFailedPrecondition "cancelled", when `cancel_fd` (>= 0) becomes readable: the server's stop
// pipe, so SIGTERM interrupts a connection waiting for its client.
struct IoLimits {
  int timeout_ms = -1;
  int cancel_fd = -1;
};

Status ReadFull(int fd, void* data, size_t n, const IoLimits& limits, const char* what);
Status WriteFull(int fd, const void* data, size_t n, int timeout_ms);

// Reads one frame: the header within `wait` (checked against the type's cap before any body byte
// is read), then the body within body_timeout_ms, grown as bytes arrive so a header that lies
// about its length costs no memory.
Status ReadFrame(int fd, const IoLimits& wait, int body_timeout_ms, FrameHeader* header,
                 std::vector<uint8_t>* body);
Status WriteFrame(int fd, MessageType type, const std::vector<uint8_t>& body, int timeout_ms);

// Sends small writes at once (no Nagle): every message is a request or a reply someone waits for.
void SetNoDelay(int fd);

// Ends a connection whose peer may still be sending (after an ERROR for garbage, or to a client
// turned away): stops writing, then reads and discards until the peer closes, `max_bytes` came or
// `timeout_ms` passed, and closes. Closing with unread bytes would send a reset, and the peer
// could lose the ERROR that was just sent.
void DrainAndClose(Fd* fd, size_t max_bytes, int timeout_ms);

}  // namespace loom::runtime::remote

#endif  // LOOM_RUNTIME_REMOTE_SOCKET_H_
