#include "runtime/remote/client.h"

#include <cstdio>
#include <cstring>

#include "runtime/package/format.h"
#include "runtime/remote/protocol.h"
#include "runtime/remote/socket.h"

namespace loom::runtime::remote {
namespace {

// What the local side knows of the remote device: its name (the whole device string, for
// messages and reports) and config. Memory and submissions belong to the server.
class RemoteDevice final : public Driver {
 public:
  RemoteDevice(std::string name, bool programs, const HwConfig& config)
      : name_(std::move(name)), programs_(programs), config_(config) {}
  const char* name() const override { return name_.c_str(); }
  bool executes_programs() const override { return programs_; }
  Status Open(const DriverOptions&) override { return Status::Ok(); }
  const HwConfig& config() const override { return config_; }
  Status Allocate(uint64_t, uint64_t, uint64_t*) override { return NotHere(); }
  Status Free(uint64_t) override { return NotHere(); }
  Status CopyIn(uint64_t, const void*, uint64_t) override { return NotHere(); }
  Status CopyOut(void*, uint64_t, uint64_t) override { return NotHere(); }
  Status Submit(uint64_t, uint32_t) override { return NotHere(); }
  Status Wait(uint32_t) override { return NotHere(); }
  Status ReadCounters(DeviceCounters*) override { return NotHere(); }
  void Close() override {}

 private:
  Status NotHere() const {
    return Unimplemented("device " + name_ + " runs whole packages on its server; its memory " +
                         "and instruction streams are not reachable from this host");
  }
  std::string name_;
  bool programs_;
  HwConfig config_;
};

class RemoteExecutor final : public Executor {
 public:
  RemoteExecutor(std::unique_ptr<Package> package, std::string name, Fd fd, const Opened& opened,
                 const RemoteOptions& options)
      : fd_(std::move(fd)), name_(std::move(name)), options_(options) {
    driver_ = std::make_unique<RemoteDevice>(name_, opened.executes_programs, package->config());
    device_programs_ = opened.executes_programs;
    timelines_.resize(package->num_segments());
    package_ = std::move(package);
    ResetProfile();
  }

  ~RemoteExecutor() override {
    if (broken_.ok()) (void)WriteFrame(fd_.get(), MessageType::kBye, {}, 1000);
  }

  Status Run(const std::vector<HostTensor>& inputs, const RunOptions& options,
             std::vector<HostTensor>* outputs) override {
    LOOM_RETURN_IF_ERROR(broken_);
    RunRequest req;
    req.int8_outputs = options.int8_outputs;
    req.inputs = inputs;
    const std::vector<uint8_t> body = EncodeRun(req);
    if (body.size() > kMaxRunMessageBytes) {
      return InvalidArgument("the inputs take " + std::to_string(body.size()) + " bytes, more " +
                             "than one RUN message to " + name_ + " may carry (" +
                             std::to_string(kMaxRunMessageBytes) + "); run fewer stacked inputs");
    }
    LOOM_RETURN_IF_ERROR(
        Broken(WriteFrame(fd_.get(), MessageType::kRun, body, options_.read_timeout_ms)));
    std::vector<uint8_t> reply;
    LOOM_RETURN_IF_ERROR(Expect(MessageType::kResult, -1, &reply));
    RunResult res;
    LOOM_RETURN_IF_ERROR(Broken(DecodeResult(reply.data(), reply.size(), &res)));
    if (res.profile.segments.size() != profile_.segments.size()) {
      return Broken(DataLoss(name_ + " returned counters for " +
                             std::to_string(res.profile.segments.size()) + " segments, the " +
                             "package has " + std::to_string(profile_.segments.size())));
    }
    profile_.inferences += res.profile.inferences;
    for (size_t s = 0; s < profile_.segments.size(); ++s) {
      SegmentProfile& p = profile_.segments[s];
      const SegmentProfile& d = res.profile.segments[s];
      p.on_device = d.on_device;
      p.runs += d.runs;
      p.wall_ns += d.wall_ns;
      p.cycles += d.cycles;
      p.macs += d.macs;
      p.device_macs += d.device_macs;
      p.bytes_loaded += d.bytes_loaded;
      p.bytes_stored += d.bytes_stored;
      p.insns += d.insns;
      for (int m = 0; m < isa::kNumModules; ++m) p.busy[m] += d.busy[m];
      if (options_.timeline) timelines_[s] = std::move(res.timelines[s]);
    }
    *outputs = std::move(res.outputs);
    if (options.progress) options.progress(1, 1);
    return Status::Ok();
  }

  Status TraceJson(std::string* out) override {
    LOOM_RETURN_IF_ERROR(broken_);
    LOOM_RETURN_IF_ERROR(
        Broken(WriteFrame(fd_.get(), MessageType::kTraceRequest, {}, options_.read_timeout_ms)));
    std::vector<uint8_t> reply;
    LOOM_RETURN_IF_ERROR(Expect(MessageType::kTrace, options_.read_timeout_ms, &reply));
    return Broken(DecodeTrace(reply.data(), reply.size(), out));
  }

  // Reads the reply `want` or the server's ERROR (returned as its status; the connection stays
  // usable). Anything else breaks the connection.
  Status Expect(MessageType want, int timeout_ms, std::vector<uint8_t>* body) {
    FrameHeader h;
    LOOM_RETURN_IF_ERROR(
        Broken(ReadFrame(fd_.get(), IoLimits{timeout_ms, -1}, options_.read_timeout_ms, &h, body)));
    if (h.type == want) return Status::Ok();
    if (h.type == MessageType::kError) {
      ErrorReply e;
      LOOM_RETURN_IF_ERROR(Broken(DecodeError(body->data(), body->size(), &e)));
      return Status(e.code, e.message).WithContext(name_);
    }
    return Broken(
        DataLoss(std::string("expected ") + MessageName(want) + ", got " + MessageName(h.type)));
  }

 private:
  // A failure of the connection itself: later calls report it rather than talk out of step.
  Status Broken(Status s) {
    if (!s.ok()) broken_ = s.WithContext(name_);
    return broken_;
  }

  Fd fd_;
  std::string name_;
  RemoteOptions options_;
  Status broken_;
};

// The conversation up to OPENED; messages are prefixed with the device by the caller.
Status Handshake(int fd, const Package& package, const std::string& device,
                 const RemoteOptions& options, Opened* opened) {
  LOOM_RETURN_IF_ERROR(
      WriteFrame(fd, MessageType::kHello, EncodeHello(Hello{}), options.read_timeout_ms));
  FrameHeader h;
  std::vector<uint8_t> body;
  auto error = [&]() -> Status {
    ErrorReply e;
    LOOM_RETURN_IF_ERROR(DecodeError(body.data(), body.size(), &e));
    return Status(e.code, e.message);
  };
  for (;;) {  // QUEUED while other clients are served, then HELLO_OK
    LOOM_RETURN_IF_ERROR(ReadFrame(fd, IoLimits{-1, -1}, options.read_timeout_ms, &h, &body));
    if (h.type == MessageType::kQueued) {
      Queued q;
      LOOM_RETURN_IF_ERROR(DecodeQueued(body.data(), body.size(), &q));
      if (options.on_queued) options.on_queued(q.ahead);
      continue;
    }
    if (h.type == MessageType::kError) return error();
    if (h.type != MessageType::kHelloOk) {
      return DataLoss(std::string("expected HELLO_OK, got ") + MessageName(h.type));
    }
    HelloOk ok;
    LOOM_RETURN_IF_ERROR(DecodeHelloOk(body.data(), body.size(), &ok));
    break;
  }
  std::vector<uint8_t> file(kHeaderBytes + package.payload_bytes());
  EncodeHeader(package.payload(), package.payload_bytes(), file.data());
  if (package.payload_bytes()) {
    std::memcpy(file.data() + kHeaderBytes, package.payload(), package.payload_bytes());
  }
  if (file.size() > kMaxPackageBytes) {
    return InvalidArgument("the package is " + std::to_string(file.size()) + " bytes, more than " +
                           "a remote device takes (" + std::to_string(kMaxPackageBytes) + ")");
  }
  OpenRequest req;
  req.package_hash = Fnv1a64(package.payload(), package.payload_bytes());
  req.package_bytes = file.size();
  req.device = device;
  req.trace = options.trace;
  req.timeline = options.timeline;
  req.timeout_ms = options.timeout_ms;
  req.wall_timeout_ms = options.wall_timeout_ms;
  req.max_device_memory = options.max_device_memory;
  LOOM_RETURN_IF_ERROR(
      WriteFrame(fd, MessageType::kOpen, EncodeOpen(req), options.read_timeout_ms));
  const IoLimits wait{options.read_timeout_ms, -1};
  LOOM_RETURN_IF_ERROR(ReadFrame(fd, wait, options.read_timeout_ms, &h, &body));
  if (h.type == MessageType::kNeedPackage) {
    LOOM_RETURN_IF_ERROR(DecodeEmpty(h.type, body.size()));
    LOOM_RETURN_IF_ERROR(WriteFrame(fd, MessageType::kPackage, file, options.read_timeout_ms));
    LOOM_RETURN_IF_ERROR(ReadFrame(fd, wait, options.read_timeout_ms, &h, &body));
  }
  if (h.type == MessageType::kError) return error();
  if (h.type != MessageType::kOpened) {
    return DataLoss(std::string("expected OPENED, got ") + MessageName(h.type));
  }
  LOOM_RETURN_IF_ERROR(DecodeOpened(body.data(), body.size(), opened));
  if (opened->config_hash != package.config().CompatibilityHash()) {
    char hex[20];
    std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(opened->config_hash));
    return FailedPrecondition(std::string("the server opened a device of config hash ") + hex +
                              " for a package built for " + package.config().name + " (hash " +
                              package.config().HashHex() + ")");
  }
  return Status::Ok();
}

}  // namespace

bool IsRemoteDevice(const std::string& device) {
  return device.compare(0, std::strlen(kRemoteScheme), kRemoteScheme) == 0;
}

Status ParseRemoteAddress(const std::string& address, std::string* host, uint16_t* port,
                          std::string* device) {
  // The host:port part has no '/', so the first one starts the device (whose arguments may hold
  // more: zynq paths).
  const size_t slash = address.find('/');
  const std::string hp = address.substr(0, slash);
  *device = slash == std::string::npos ? std::string() : address.substr(slash + 1);
  if (slash != std::string::npos && device->empty()) {
    return InvalidArgument("device string 'remote://" + address + "' ends in '/': name the " +
                           "server's device after it (remote://HOST:PORT/fsim) or drop the '/'");
  }
  return ParseHostPort(hp, host, port)
      .WithContext("device string 'remote://" + address +
                   "' (expected remote://HOST:PORT[/DEVICE])");
}

Status OpenRemote(std::unique_ptr<Package> package, const RemoteOptions& options,
                  std::unique_ptr<Executor>* out) {
  std::string host, device;
  uint16_t port = 0;
  LOOM_RETURN_IF_ERROR(ParseRemoteAddress(options.address, &host, &port, &device));
  if (port == 0) {
    return InvalidArgument("device string 'remote://" + options.address + "' needs the server's " +
                           "port (loom-run serve prints it), not 0");
  }
  const std::string name = kRemoteScheme + options.address;
  Fd fd;
  LOOM_RETURN_IF_ERROR(Connect(host, port, options.connect_timeout_ms, &fd).WithContext(name));
  Opened opened;
  LOOM_RETURN_IF_ERROR(Handshake(fd.get(), *package, device, options, &opened).WithContext(name));
  out->reset(new RemoteExecutor(std::move(package), name, std::move(fd), opened, options));
  return Status::Ok();
}

}  // namespace loom::runtime::remote
