#include "runtime/remote/socket.h"

#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>

namespace loom::runtime::remote {
namespace {

std::string Errno() { return std::strerror(errno); }

Status Deadline(std::string m) { return {StatusCode::kDeadlineExceeded, std::move(m)}; }

std::string HostPort(const std::string& host, uint16_t port) {
  const bool v6 = host.find(':') != std::string::npos;
  return (v6 ? "[" + host + "]" : host) + ":" + std::to_string(port);
}

// Milliseconds left of `timeout_ms` since `start`; -1 for no limit.
int Left(int timeout_ms, std::chrono::steady_clock::time_point start) {
  if (timeout_ms < 0) return -1;
  const auto spent = std::chrono::duration_cast<std::chrono::milliseconds>(
                         std::chrono::steady_clock::now() - start)
                         .count();
  return spent >= timeout_ms ? 0 : static_cast<int>(timeout_ms - spent);
}

struct AddrList {
  addrinfo* head = nullptr;
  ~AddrList() {
    if (head) freeaddrinfo(head);
  }
};

Status Resolve(const std::string& host, uint16_t port, bool passive, AddrList* out) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = passive ? AI_PASSIVE : 0;
  const std::string service = std::to_string(port);
  const int rc =
      getaddrinfo(host.empty() ? nullptr : host.c_str(), service.c_str(), &hints, &out->head);
  if (rc != 0) {
    return NotFound("cannot resolve '" + host + "': " + gai_strerror(rc));
  }
  return Status::Ok();
}

}  // namespace

void Fd::Reset() {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
}

Status ParseHostPort(const std::string& text, std::string* host, uint16_t* port) {
  std::string h, p;
  if (!text.empty() && text[0] == '[') {
    const size_t close = text.find(']');
    if (close == std::string::npos || close + 1 >= text.size() || text[close + 1] != ':') {
      return InvalidArgument("address '" + text + "': expected [IPV6]:PORT");
    }
    h = text.substr(1, close - 1);
    p = text.substr(close + 2);
  } else {
    const size_t colon = text.rfind(':');
    if (colon == std::string::npos) {
      return InvalidArgument("address '" + text + "': expected HOST:PORT (e.g. 0.0.0.0:9090)");
    }
    h = text.substr(0, colon);
    p = text.substr(colon + 1);
    if (h.find(':') != std::string::npos) {
      return InvalidArgument("address '" + text + "': write an IPv6 host in brackets, [::1]:9090");
    }
  }
  if (h.empty()) return InvalidArgument("address '" + text + "' names no host");
  if (p.empty() || p.size() > 5 || p.find_first_not_of("0123456789") != std::string::npos ||
      std::stoul(p) > 65535) {
    return InvalidArgument("address '" + text + "': port '" + p + "' is not a number 0..65535");
  }
  *host = h;
  *port = static_cast<uint16_t>(std::stoul(p));
  return Status::Ok();
}

Status Listen(const std::string& host, uint16_t port, Fd* out, uint16_t* bound) {
  AddrList addrs;
  LOOM_RETURN_IF_ERROR(Resolve(host, port, true, &addrs));
  std::string last = "no address";
  for (addrinfo* a = addrs.head; a != nullptr; a = a->ai_next) {
    Fd fd(::socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol));
    if (!fd.valid()) {
      last = Errno();
      continue;
    }
    const int one = 1;
    (void)::setsockopt(fd.get(), SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (::bind(fd.get(), a->ai_addr, a->ai_addrlen) != 0 || ::listen(fd.get(), 16) != 0) {
      last = Errno();
      continue;
    }
    sockaddr_storage ss{};
    socklen_t len = sizeof ss;
    if (::getsockname(fd.get(), reinterpret_cast<sockaddr*>(&ss), &len) != 0) {
      last = Errno();
      continue;
    }
    *bound = ss.ss_family == AF_INET6 ? ntohs(reinterpret_cast<sockaddr_in6*>(&ss)->sin6_port)
                                      : ntohs(reinterpret_cast<sockaddr_in*>(&ss)->sin_port);
    *out = std::move(fd);
    return Status::Ok();
  }
  return FailedPrecondition("cannot listen on " + HostPort(host, port) + ": " + last);
}

Status Connect(const std::string& host, uint16_t port, int timeout_ms, Fd* out) {
  AddrList addrs;
  LOOM_RETURN_IF_ERROR(Resolve(host, port, false, &addrs));
  std::string last = "no address";
  for (addrinfo* a = addrs.head; a != nullptr; a = a->ai_next) {
    Fd fd(::socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK, a->ai_protocol));
    if (!fd.valid()) {
      last = Errno();
      continue;
    }
    if (::connect(fd.get(), a->ai_addr, a->ai_addrlen) != 0) {
      if (errno != EINPROGRESS) {
        last = Errno();
        continue;
      }
      pollfd p{fd.get(), POLLOUT, 0};
      const int rc = ::poll(&p, 1, timeout_ms);
      int err = 0;
      socklen_t len = sizeof err;
      if (rc == 0) {
        last = "no answer within " + std::to_string(timeout_ms) + " ms";
        continue;
      }
      if (rc < 0 || ::getsockopt(fd.get(), SOL_SOCKET, SO_ERROR, &err, &len) != 0 || err != 0) {
        last = std::strerror(rc < 0 ? errno : err);
        continue;
      }
    }
    const int flags = ::fcntl(fd.get(), F_GETFL);
    (void)::fcntl(fd.get(), F_SETFL, flags & ~O_NONBLOCK);
    SetNoDelay(fd.get());
    const int one = 1;
    (void)::setsockopt(fd.get(), SOL_SOCKET, SO_KEEPALIVE, &one, sizeof one);
    *out = std::move(fd);
    return Status::Ok();
  }
  return FailedPrecondition("cannot connect to " + HostPort(host, port) + ": " + last +
                            " (is `loom-run serve --listen` running there?)");
}

Status ReadFull(int fd, void* data, size_t n, const IoLimits& limits, const char* what) {
  uint8_t* p = static_cast<uint8_t*>(data);
  const auto start = std::chrono::steady_clock::now();
  size_t got = 0;
  while (got < n) {
    pollfd fds[2] = {{fd, POLLIN, 0}, {limits.cancel_fd, POLLIN, 0}};
    const int rc = ::poll(fds, limits.cancel_fd >= 0 ? 2 : 1, Left(limits.timeout_ms, start));
    if (rc < 0) {
      if (errno == EINTR) continue;
      return DataLoss(std::string("reading ") + what + ": " + Errno());
    }
    if (rc == 0) {
      return Deadline("waited " + std::to_string(limits.timeout_ms) + " ms for " + what + " (" +
                      std::to_string(got) + " of " + std::to_string(n) + " bytes came)");
    }
    if (limits.cancel_fd >= 0 && (fds[1].revents & POLLIN)) {
      return FailedPrecondition(std::string("cancelled while waiting for ") + what +
                                " (the server is stopping)");
    }
    const ssize_t r = ::recv(fd, p + got, n - got, 0);
    if (r < 0) {
      if (errno == EINTR || errno == EAGAIN) continue;
      return DataLoss(std::string("reading ") + what + ": " + Errno());
    }
    if (r == 0) {
      return DataLoss(std::string("the peer closed the connection ") +
                      (got == 0 ? "before " : "in the middle of ") + what + " (" +
                      std::to_string(got) + " of " + std::to_string(n) + " bytes came)");
    }
    got += static_cast<size_t>(r);
  }
  return Status::Ok();
}

Status WriteFull(int fd, const void* data, size_t n, int timeout_ms) {
  const uint8_t* p = static_cast<const uint8_t*>(data);
  const auto start = std::chrono::steady_clock::now();
  size_t sent = 0;
  while (sent < n) {
    pollfd pfd{fd, POLLOUT, 0};
    const int rc = ::poll(&pfd, 1, Left(timeout_ms, start));
    if (rc < 0) {
      if (errno == EINTR) continue;
      return DataLoss("writing: " + Errno());
    }
    if (rc == 0) {
      return Deadline("the peer took no data for " + std::to_string(timeout_ms) + " ms (" +
                      std::to_string(sent) + " of " + std::to_string(n) + " bytes sent)");
    }
    // MSG_NOSIGNAL: a peer that went away is an error here, not a SIGPIPE that ends the process.
    const ssize_t w = ::send(fd, p + sent, n - sent, MSG_NOSIGNAL);
    if (w < 0) {
      if (errno == EINTR || errno == EAGAIN) continue;
      return DataLoss("writing: " + Errno() + " (the peer went away)");
    }
    sent += static_cast<size_t>(w);
  }
  return Status::Ok();
}

Status ReadFrame(int fd, const IoLimits& wait, int body_timeout_ms, FrameHeader* header,
                 std::vector<uint8_t>* body) {
  uint8_t h[kFrameHeaderBytes];
  LOOM_RETURN_IF_ERROR(ReadFull(fd, h, sizeof h, wait, "a message header"));
  const IoLimits limits{body_timeout_ms, wait.cancel_fd};
  LOOM_RETURN_IF_ERROR(DecodeFrameHeader(h, header));
  constexpr size_t kChunk = 1 << 20;
  body->clear();
  while (body->size() < header->body_bytes) {
    const size_t at = body->size();
    const size_t n = std::min<size_t>(kChunk, header->body_bytes - at);
    body->resize(at + n);
    const std::string what = std::string("the body of a ") + MessageName(header->type) +
                             " message (" + std::to_string(header->body_bytes) + " bytes)";
    LOOM_RETURN_IF_ERROR(ReadFull(fd, body->data() + at, n, limits, what.c_str()));
  }
  return Status::Ok();
}

Status WriteFrame(int fd, MessageType type, const std::vector<uint8_t>& body, int timeout_ms) {
  uint8_t h[kFrameHeaderBytes];
  const uint32_t len = static_cast<uint32_t>(body.size());
  for (int i = 0; i < 4; ++i) h[i] = static_cast<uint8_t>(len >> (8 * i));
  h[4] = static_cast<uint8_t>(type);
  // A small message goes out in one send: header and body as two segments would wait for the
  // peer's delayed ACK.
  if (body.size() <= kMaxSmallMessageBytes) {
    std::vector<uint8_t> frame(h, h + sizeof h);
    frame.insert(frame.end(), body.begin(), body.end());
    return WriteFull(fd, frame.data(), frame.size(), timeout_ms);
  }
  LOOM_RETURN_IF_ERROR(WriteFull(fd, h, sizeof h, timeout_ms));
  return WriteFull(fd, body.data(), body.size(), timeout_ms);
}

void SetNoDelay(int fd) {
  const int one = 1;
  (void)::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
}

void DrainAndClose(Fd* fd, size_t max_bytes, int timeout_ms) {
  if (!fd->valid()) return;
  (void)::shutdown(fd->get(), SHUT_WR);
  const auto start = std::chrono::steady_clock::now();
  uint8_t sink[4096];
  size_t drained = 0;
  while (drained < max_bytes) {
    pollfd p{fd->get(), POLLIN, 0};
    const int rc = ::poll(&p, 1, Left(timeout_ms, start));
    if (rc < 0 && errno == EINTR) continue;
    if (rc <= 0) break;
    const ssize_t r = ::recv(fd->get(), sink, sizeof sink, 0);
    if (r <= 0) break;
    drained += static_cast<size_t>(r);
  }
  fd->Reset();
}

}  // namespace loom::runtime::remote
