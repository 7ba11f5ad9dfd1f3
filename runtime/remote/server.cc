#include "runtime/remote/server.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <thread>

#include "runtime/drivers/driver.h"
#include "runtime/exec/executor.h"
#include "runtime/package/format.h"
#include "runtime/package/package.h"
#include "runtime/remote/protocol.h"

namespace loom::runtime::remote {
namespace {

std::string Hex(uint64_t v) {
  char b[20];
  std::snprintf(b, sizeof b, "%016llx", static_cast<unsigned long long>(v));
  return b;
}

std::string PeerName(const sockaddr_storage& ss) {
  char host[INET6_ADDRSTRLEN] = "?";
  uint16_t port = 0;
  if (ss.ss_family == AF_INET) {
    const auto* a = reinterpret_cast<const sockaddr_in*>(&ss);
    inet_ntop(AF_INET, &a->sin_addr, host, sizeof host);
    port = ntohs(a->sin_port);
    return std::string(host) + ":" + std::to_string(port);
  }
  const auto* a = reinterpret_cast<const sockaddr_in6*>(&ss);
  inet_ntop(AF_INET6, &a->sin6_addr, host, sizeof host);
  port = ntohs(a->sin6_port);
  return "[" + std::string(host) + "]:" + std::to_string(port);
}

// What a refused client may still send before the server closes on it (DrainAndClose).
constexpr size_t kDrainBytes = 1 << 20;
constexpr int kDrainMs = 1000;

Status SendError(int fd, const Status& s, int timeout_ms) {
  ErrorReply e;
  e.code = s.code();
  e.message = s.message();
  return WriteFrame(fd, MessageType::kError, EncodeError(e), timeout_ms);
}

}  // namespace

// One client's conversation. A protocol error (a malformed or unexpected message) is answered
// with ERROR and ends the connection, since the two ends no longer agree on where they are; an
// error of the package, the device or a run is answered with ERROR and the client may go on.
class Server::Connection {
 public:
  Connection(Server* server, Pending* p)
      : s_(server), conn_(&p->fd), fd_(p->fd.get()), peer_(p->peer), id_(p->id) {}

  void Serve() {
    const Status st = Converse();
    if (!st.ok() && !protocol_error_) {
      Log("closed: " + st.message());
    } else if (!st.ok()) {
      s_->counters_.refused++;
      // Best effort: the client may be gone, or may not read.
      (void)SendError(fd_, st, s_->options_.read_timeout_ms);
      Log("refused: " + st.message());
      DrainAndClose(conn_, kDrainBytes, kDrainMs);
    } else {
      Log("closed");
    }
    // exec_ (and its device) is released with this object, whatever state the run left.
  }

 private:
  void Log(const std::string& text) const { s_->Log(id_, peer_, text); }

  IoLimits Wait(int timeout_ms) const { return IoLimits{timeout_ms, s_->stop_pipe_[0]}; }

  Status Protocol(Status st) {
    protocol_error_ = true;
    return st;
  }

  Status Send(MessageType type, const std::vector<uint8_t>& body) {
    return WriteFrame(fd_, type, body, s_->options_.read_timeout_ms);
  }

  Status Converse() {
    FrameHeader h;
    std::vector<uint8_t> body;
    Status st =
        ReadFrame(fd_, Wait(s_->options_.read_timeout_ms), s_->options_.read_timeout_ms, &h, &body);
    if (!st.ok()) return st.code() == StatusCode::kInvalidArgument ? Protocol(st) : st;
    if (h.type != MessageType::kHello) {
      return Protocol(InvalidArgument(std::string("expected HELLO as the first message, got ") +
                                      MessageName(h.type)));
    }
    Hello hello;
    st = DecodeHello(body.data(), body.size(), &hello);
    if (!st.ok()) return Protocol(st);
    HelloOk ok;
    ok.device = s_->options_.device;
    ok.devices = DriverNames();
    LOOM_RETURN_IF_ERROR(Send(MessageType::kHelloOk, EncodeHelloOk(ok)));
    s_->counters_.served++;
    Log("hello (protocol version " + std::to_string(hello.version) + ")");
    for (;;) {
      st = ReadFrame(fd_, Wait(s_->options_.idle_timeout_ms), s_->options_.read_timeout_ms, &h,
                     &body);
      if (!st.ok()) return st.code() == StatusCode::kInvalidArgument ? Protocol(st) : st;
      switch (h.type) {
        case MessageType::kOpen:
          LOOM_RETURN_IF_ERROR(Open(body));
          break;
        case MessageType::kRun:
          LOOM_RETURN_IF_ERROR(Run(body));
          break;
        case MessageType::kTraceRequest:
          LOOM_RETURN_IF_ERROR(Trace(body));
          break;
        case MessageType::kBye:
          return Status::Ok();
        default:
          return Protocol(InvalidArgument(std::string("unexpected ") + MessageName(h.type) +
                                          " message from a client"));
      }
    }
  }

  Status Open(const std::vector<uint8_t>& body) {
    OpenRequest req;
    if (Status st = DecodeOpen(body.data(), body.size(), &req); !st.ok()) return Protocol(st);
    exec_.reset();  // a second OPEN replaces the first session
    const std::string device = req.device.empty() ? s_->options_.device : req.device;
    std::unique_ptr<Package> package;
    LoadOptions lo;
    lo.max_device_memory = req.max_device_memory;
    Status st;
    const CachedPackage* cached = s_->FindCached(req.package_hash, req.package_bytes);
    const bool uploaded = cached == nullptr;
    if (uploaded) {
      LOOM_RETURN_IF_ERROR(Send(MessageType::kNeedPackage, {}));
      FrameHeader h;
      std::vector<uint8_t> file;
      st = ReadFrame(fd_, Wait(s_->options_.read_timeout_ms), s_->options_.read_timeout_ms, &h,
                     &file);
      if (!st.ok()) return st.code() == StatusCode::kInvalidArgument ? Protocol(st) : st;
      if (h.type != MessageType::kPackage) {
        return Protocol(InvalidArgument(std::string("expected PACKAGE after NEED_PACKAGE, got ") +
                                        MessageName(h.type)));
      }
      PackageHeader ph;
      st = DecodeHeader(file.data(), file.size(), &ph);
      if (st.ok() && (file.size() != req.package_bytes || ph.checksum != req.package_hash)) {
        st = InvalidArgument("PACKAGE is " + std::to_string(file.size()) + " bytes with hash " +
                             Hex(ph.checksum) + ", OPEN announced " +
                             std::to_string(req.package_bytes) + " bytes with hash " +
                             Hex(req.package_hash));
      }
      if (!st.ok()) return Protocol(st.WithContext("uploaded package"));
      s_->counters_.uploads++;
      // Only a package that loads (checksum, Verifier, every check) enters the cache, so a bad
      // upload cannot stand in for a good package of the same announced hash.
      st = Package::LoadMemory(file.data(), file.size(), &package, lo);
      if (st.ok()) s_->AddCached(req.package_hash, std::move(file));
    } else {
      s_->counters_.cache_hits++;
      st = Package::LoadMemory(cached->bytes.data(), cached->bytes.size(), &package, lo);
    }
    std::unique_ptr<Driver> driver;
    ExecutorOptions eo;
    if (st.ok()) st = CreateDriver(device, &driver, &eo.device_args);
    if (st.ok()) {
      eo.trace = req.trace;
      eo.timeline = req.timeline;
      eo.timeout_ms = req.timeout_ms;
      eo.wall_timeout_ms = req.wall_timeout_ms;
      eo.max_device_memory = req.max_device_memory;
      st = Executor::Create(std::move(package), std::move(driver), eo, &exec_);
    }
    const std::string what = "open package " + Hex(req.package_hash) + " (" +
                             std::to_string(req.package_bytes) + " bytes, " +
                             (uploaded ? "uploaded" : "cached") + ") on " + device;
    if (!st.ok()) {
      Log(what + ": " + st.message());
      exec_.reset();
      return SendError(fd_, st, s_->options_.read_timeout_ms);
    }
    Log(what);
    timeline_ = req.timeline;
    runs_ = 0;
    Opened o;
    o.uploaded = uploaded;
    o.executes_programs = exec_->driver().executes_programs();
    o.device = device;
    o.config_hash = exec_->driver().config().CompatibilityHash();
    return Send(MessageType::kOpened, EncodeOpened(o));
  }

  Status Run(const std::vector<uint8_t>& body) {
    RunRequest req;
    if (Status st = DecodeRun(body.data(), body.size(), &req); !st.ok()) return Protocol(st);
    if (!exec_) {
      s_->counters_.run_errors++;
      return SendError(fd_, FailedPrecondition("RUN before a successful OPEN: no package is open"),
                       s_->options_.read_timeout_ms);
    }
    ++runs_;
    const auto start = std::chrono::steady_clock::now();
    RunResult res;
    RunOptions ro;
    ro.int8_outputs = req.int8_outputs;
    exec_->ResetProfile();
    Status st = exec_->Run(req.inputs, ro, &res.outputs);
    const double ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    std::vector<uint8_t> reply;
    if (st.ok()) {
      res.profile = exec_->profile();
      if (timeline_) {
        for (size_t s = 0; s < exec_->package().num_segments(); ++s) {
          res.timelines.push_back(exec_->timeline(s));
        }
      }
      reply = EncodeResult(res);
      if (reply.size() > kMaxRunMessageBytes) {
        st = OutOfRange("the run's outputs and timelines take " + std::to_string(reply.size()) +
                        " bytes, more than a RESULT message may hold (" +
                        std::to_string(kMaxRunMessageBytes) + ")");
      }
    }
    char line[160];
    if (!st.ok()) {
      s_->counters_.run_errors++;
      std::snprintf(line, sizeof line,
                    "run %llu: error after %.1f ms: ", static_cast<unsigned long long>(runs_), ms);
      Log(line + st.message());
      return SendError(fd_, st, s_->options_.read_timeout_ms);
    }
    s_->counters_.runs++;
    const SegmentProfile total = res.profile.Total();
    std::snprintf(line, sizeof line, "run %llu: %zu input(s), %zu output(s), %llu cycles, %.1f ms",
                  static_cast<unsigned long long>(runs_), req.inputs.size(), res.outputs.size(),
                  static_cast<unsigned long long>(total.cycles), ms);
    Log(line);
    Status sent = Send(MessageType::kResult, reply);
    if (!sent.ok()) return sent.WithContext("the client went away before its result was sent");
    return Status::Ok();
  }

  Status Trace(const std::vector<uint8_t>& body) {
    if (Status st = DecodeEmpty(MessageType::kTraceRequest, body.size()); !st.ok()) {
      return Protocol(st);
    }
    std::string json;
    Status st = exec_ ? exec_->TraceJson(&json)
                      : FailedPrecondition("TRACE_REQUEST before a successful OPEN");
    if (st.ok() && json.size() > kMaxTraceBytes) {
      st = OutOfRange("the trace is " + std::to_string(json.size()) + " bytes, more than a " +
                      "TRACE message may hold (" + std::to_string(kMaxTraceBytes) + ")");
    }
    if (!st.ok()) return SendError(fd_, st, s_->options_.read_timeout_ms);
    return Send(MessageType::kTrace, EncodeTrace(json));
  }

  Server* s_;
  Fd* conn_;
  int fd_;
  std::string peer_;
  uint64_t id_;
  bool protocol_error_ = false;
  bool timeline_ = false;
  uint64_t runs_ = 0;
  std::unique_ptr<Executor> exec_;
};

Status Server::Create(const ServeOptions& options, std::unique_ptr<Server>* out) {
  std::unique_ptr<Server> s(new Server());
  s->options_ = options;
  // The default device must exist here: a typo is reported at start, not to the first client.
  std::unique_ptr<Driver> probe;
  std::string args;
  LOOM_RETURN_IF_ERROR(CreateDriver(options.device, &probe, &args).WithContext("serve --device"));
  if (::pipe2(s->stop_pipe_, O_CLOEXEC | O_NONBLOCK) != 0) {
    return Internal(std::string("cannot create the stop pipe: ") + std::strerror(errno));
  }
  LOOM_RETURN_IF_ERROR(Listen(options.host, options.port, &s->listen_, &s->port_));
  *out = std::move(s);
  return Status::Ok();
}

Server::~Server() {
  for (int fd : stop_pipe_) {
    if (fd >= 0) ::close(fd);
  }
}

void Server::Stop() {
  const char b = 1;
  // Nothing to do on failure: the pipe is full only when a stop is already pending.
  const ssize_t r = ::write(stop_pipe_[1], &b, 1);
  (void)r;
}

ServerStats Server::stats() const {
  ServerStats s;
  s.connections = counters_.connections;
  s.busy = counters_.busy;
  s.served = counters_.served;
  s.refused = counters_.refused;
  s.uploads = counters_.uploads;
  s.cache_hits = counters_.cache_hits;
  s.runs = counters_.runs;
  s.run_errors = counters_.run_errors;
  return s;
}

void Server::Log(uint64_t id, const std::string& peer, const std::string& text) const {
  if (!options_.log) return;
  std::fprintf(stderr, "loom-run serve: [%llu %s] %s\n", static_cast<unsigned long long>(id),
               peer.c_str(), text.c_str());
}

const Server::CachedPackage* Server::FindCached(uint64_t hash, uint64_t bytes) {
  for (auto it = cache_.begin(); it != cache_.end(); ++it) {
    if (it->hash == hash && it->bytes.size() == bytes) {
      cache_.splice(cache_.begin(), cache_, it);
      return &cache_.front();
    }
  }
  return nullptr;
}

const Server::CachedPackage* Server::AddCached(uint64_t hash, std::vector<uint8_t> bytes) {
  cache_used_ += bytes.size();
  cache_.push_front(CachedPackage{hash, std::move(bytes)});
  // Keep the newest even when it alone is over the budget: the connection is about to use it.
  while (cache_used_ > options_.cache_bytes && cache_.size() > 1) {
    cache_used_ -= cache_.back().bytes.size();
    cache_.pop_back();
  }
  return &cache_.front();
}

void Server::Worker() {
  for (;;) {
    Pending p;
    {
      std::unique_lock<std::mutex> lock(mu_);
      cv_.wait(lock, [&] { return stopping_ || !queue_.empty(); });
      if (stopping_) return;
      p = std::move(queue_.front());
      queue_.pop_front();
      busy_ = true;
    }
    Connection(this, &p).Serve();
    p.fd.Reset();
    std::lock_guard<std::mutex> lock(mu_);
    busy_ = false;
  }
}

Status Server::Serve() {
  if (options_.log) {
    std::fprintf(stderr, "loom-run serve: listening on %s:%u, device %s\n", options_.host.c_str(),
                 static_cast<unsigned>(port_), options_.device.c_str());
  }
  std::thread worker([this] { Worker(); });
  uint64_t next_id = 1;
  Status result = Status::Ok();
  for (;;) {
    pollfd fds[2] = {{listen_.get(), POLLIN, 0}, {stop_pipe_[0], POLLIN, 0}};
    if (::poll(fds, 2, -1) < 0) {
      if (errno == EINTR) continue;
      result = Internal(std::string("poll on the listening socket: ") + std::strerror(errno));
      break;
    }
    if (fds[1].revents & POLLIN) break;
    if (!(fds[0].revents & POLLIN)) continue;
    sockaddr_storage ss{};
    socklen_t len = sizeof ss;
    Fd fd(::accept4(listen_.get(), reinterpret_cast<sockaddr*>(&ss), &len, SOCK_CLOEXEC));
    if (!fd.valid()) continue;  // the client gave up between poll and accept, or out of fds
    SetNoDelay(fd.get());
    counters_.connections++;
    Pending p{std::move(fd), PeerName(ss), next_id++};
    std::unique_lock<std::mutex> lock(mu_);
    const size_t ahead = queue_.size() + (busy_ ? 1 : 0);
    if (ahead > 0 && queue_.size() >= options_.max_queue) {
      lock.unlock();
      counters_.busy++;
      (void)SendError(p.fd.get(),
                      FailedPrecondition(
                          "server busy: " + std::to_string(ahead) + " clients ahead, and at most " +
                          std::to_string(options_.max_queue) + " may wait; try again later"),
                      options_.read_timeout_ms);
      Log(p.id, p.peer, "busy: refused, " + std::to_string(ahead) + " ahead");
      DrainAndClose(&p.fd, kDrainBytes, kDrainMs);
      continue;
    }
    if (ahead > 0) {
      Queued q;
      q.ahead = static_cast<uint32_t>(ahead);
      // A client that cannot take 9 bytes now is dropped when its turn comes.
      (void)WriteFrame(p.fd.get(), MessageType::kQueued, EncodeQueued(q), 1000);
      Log(p.id, p.peer, "queued, " + std::to_string(ahead) + " ahead");
    } else {
      Log(p.id, p.peer, "connected");
    }
    queue_.push_back(std::move(p));
    cv_.notify_one();
  }
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
    for (Pending& p : queue_) {
      (void)SendError(p.fd.get(), FailedPrecondition("the server is stopping"), 1000);
      DrainAndClose(&p.fd, kDrainBytes, 100);
    }
    queue_.clear();
  }
  cv_.notify_all();
  worker.join();
  if (options_.log) std::fprintf(stderr, "loom-run serve: stopped\n");
  return result;
}

}  // namespace loom::runtime::remote
