#include "runtime/remote/protocol.h"

#include <cstring>

#include "runtime/remote/wire.h"

namespace loom::runtime::remote {
namespace {

// Tensor dtypes on the wire: the two a session exchanges.
constexpr uint8_t kWireF32 = 1;
constexpr uint8_t kWireI8 = 2;

void PutTensor(WireWriter& w, const HostTensor& t) {
  w.Str(t.name);
  w.U8(t.type == DType::kI8 ? kWireI8 : kWireF32);
  w.U8(static_cast<uint8_t>(t.shape.size()));
  for (int64_t d : t.shape) w.I64(d);
  w.Blob(t.data.data(), t.data.size());
}

Status GetTensors(WireReader& r, const char* what, std::vector<HostTensor>* out) {
  uint32_t n = 0;
  LOOM_RETURN_IF_ERROR(r.U32("tensor count", &n));
  if (n > kMaxTensors) {
    return r.Bad("tensor count", "is " + std::to_string(n) + ", more than the limit of " +
                                     std::to_string(kMaxTensors));
  }
  out->assign(n, HostTensor{});
  for (uint32_t i = 0; i < n; ++i) {
    HostTensor& t = (*out)[i];
    const std::string field = std::string(what) + " " + std::to_string(i);
    LOOM_RETURN_IF_ERROR(r.Str("tensor name", kMaxNameBytes, &t.name));
    uint8_t type = 0, rank = 0;
    LOOM_RETURN_IF_ERROR(r.U8("tensor dtype", &type));
    if (type != kWireF32 && type != kWireI8) {
      return r.Bad(field + " dtype", "is " + std::to_string(type) + " (1: float32, 2: int8)");
    }
    t.type = type == kWireI8 ? DType::kI8 : DType::kF32;
    LOOM_RETURN_IF_ERROR(r.U8("tensor rank", &rank));
    if (rank > kMaxRank) {
      return r.Bad(field + " rank", "is " + std::to_string(rank) + ", more than the limit of " +
                                        std::to_string(kMaxRank));
    }
    t.shape.assign(rank, 0);
    for (uint8_t d = 0; d < rank; ++d) {
      LOOM_RETURN_IF_ERROR(r.I64("tensor dimension", &t.shape[d]));
      if (t.shape[d] < 0) {
        return r.Bad(field + " dimension " + std::to_string(d),
                     "is negative (" + std::to_string(t.shape[d]) + ")");
      }
    }
    const uint8_t* p = nullptr;
    uint64_t bytes = 0;
    LOOM_RETURN_IF_ERROR(r.Blob("tensor data", kMaxTensorBytes, &p, &bytes));
    t.data.assign(p, p + bytes);
  }
  return Status::Ok();
}

void PutMagic(WireWriter& w, uint16_t version) {
  w.Raw(kMagic, sizeof kMagic);
  w.U16(version);
}

// `peer` speaks the version in the message, `self` is this side ("client", "server").
Status GetMagic(WireReader& r, const char* peer, const char* self, uint16_t* version) {
  const uint8_t* m = nullptr;
  LOOM_RETURN_IF_ERROR(r.Raw("magic", sizeof kMagic, &m));
  if (std::memcmp(m, kMagic, sizeof kMagic) != 0) {
    return InvalidArgument(std::string("the ") + peer + " does not speak the Loom remote " +
                           "protocol (wrong magic in its first message; is it a loom-run " +
                           "serve / remote:// session?)");
  }
  LOOM_RETURN_IF_ERROR(r.U16("version", version));
  if (*version != kProtocolVersion) {
    return FailedPrecondition(std::string("the ") + peer + " speaks Loom remote protocol version " +
                              std::to_string(*version) + ", this " + self + " speaks version " +
                              std::to_string(kProtocolVersion) +
                              "; use a loom-run and a loom of the same release on both ends");
  }
  return Status::Ok();
}

uint8_t Flags(bool a, bool b) { return static_cast<uint8_t>((a ? 1 : 0) | (b ? 2 : 0)); }

Status GetFlags(WireReader& r, uint8_t known, uint8_t* flags) {
  LOOM_RETURN_IF_ERROR(r.U8("flags", flags));
  if (*flags & ~known)
    return r.Bad("flags", "has unknown bits set (" + std::to_string(*flags) + ")");
  return Status::Ok();
}

}  // namespace

const char* MessageName(MessageType type) {
  switch (type) {
    case MessageType::kHello:
      return "HELLO";
    case MessageType::kHelloOk:
      return "HELLO_OK";
    case MessageType::kQueued:
      return "QUEUED";
    case MessageType::kError:
      return "ERROR";
    case MessageType::kOpen:
      return "OPEN";
    case MessageType::kNeedPackage:
      return "NEED_PACKAGE";
    case MessageType::kPackage:
      return "PACKAGE";
    case MessageType::kOpened:
      return "OPENED";
    case MessageType::kRun:
      return "RUN";
    case MessageType::kResult:
      return "RESULT";
    case MessageType::kTraceRequest:
      return "TRACE_REQUEST";
    case MessageType::kTrace:
      return "TRACE";
    case MessageType::kBye:
      return "BYE";
  }
  return "unknown";
}

uint64_t MaxBodyBytes(MessageType type) {
  switch (type) {
    case MessageType::kPackage:
      return kMaxPackageBytes;
    case MessageType::kRun:
    case MessageType::kResult:
      return kMaxRunMessageBytes;
    case MessageType::kTrace:
      return kMaxTraceBytes + 4;
    default:
      return kMaxSmallMessageBytes;
  }
}

Status DecodeFrameHeader(const uint8_t header[kFrameHeaderBytes], FrameHeader* out) {
  const uint32_t len = static_cast<uint32_t>(header[0]) | static_cast<uint32_t>(header[1]) << 8 |
                       static_cast<uint32_t>(header[2]) << 16 |
                       static_cast<uint32_t>(header[3]) << 24;
  const uint8_t type = header[4];
  if (type == 0 || type > kMaxMessageType) {
    return InvalidArgument("unknown message type " + std::to_string(type) + " (body of " +
                           std::to_string(len) + " bytes); not a Loom remote peer, or a newer one");
  }
  const MessageType t = static_cast<MessageType>(type);
  if (len > MaxBodyBytes(t)) {
    return InvalidArgument(std::string(MessageName(t)) + " message of " + std::to_string(len) +
                           " bytes is over its limit of " + std::to_string(MaxBodyBytes(t)) +
                           " bytes");
  }
  out->type = t;
  out->body_bytes = len;
  return Status::Ok();
}

std::vector<uint8_t> Frame(MessageType type, const std::vector<uint8_t>& body) {
  WireWriter w;
  w.U32(static_cast<uint32_t>(body.size()));
  w.U8(static_cast<uint8_t>(type));
  w.Raw(body.data(), body.size());
  return std::move(w.bytes());
}

std::vector<uint8_t> EncodeHello(const Hello& m) {
  WireWriter w;
  PutMagic(w, m.version);
  return std::move(w.bytes());
}

std::vector<uint8_t> EncodeHelloOk(const HelloOk& m) {
  WireWriter w;
  PutMagic(w, m.version);
  w.Str(m.device);
  w.Str(m.devices);
  return std::move(w.bytes());
}

std::vector<uint8_t> EncodeQueued(const Queued& m) {
  WireWriter w;
  w.U32(m.ahead);
  return std::move(w.bytes());
}

std::vector<uint8_t> EncodeError(const ErrorReply& m) {
  WireWriter w;
  w.U8(static_cast<uint8_t>(m.code));
  // An error message is cut rather than break the reader's cap.
  w.Str(m.message.size() > kMaxTextBytes ? m.message.substr(0, kMaxTextBytes) : m.message);
  return std::move(w.bytes());
}

std::vector<uint8_t> EncodeOpen(const OpenRequest& m) {
  WireWriter w;
  w.U64(m.package_hash);
  w.U64(m.package_bytes);
  w.Str(m.device);
  w.U8(Flags(m.trace, m.timeline));
  w.U32(m.timeout_ms);
  w.U32(m.wall_timeout_ms);
  w.U64(m.max_device_memory);
  return std::move(w.bytes());
}

std::vector<uint8_t> EncodeOpened(const Opened& m) {
  WireWriter w;
  w.U8(Flags(m.uploaded, m.executes_programs));
  w.Str(m.device);
  w.U64(m.config_hash);
  return std::move(w.bytes());
}

std::vector<uint8_t> EncodeRun(const RunRequest& m) {
  WireWriter w;
  w.U8(Flags(m.int8_outputs, false));
  w.U32(static_cast<uint32_t>(m.inputs.size()));
  for (const HostTensor& t : m.inputs) PutTensor(w, t);
  return std::move(w.bytes());
}

std::vector<uint8_t> EncodeResult(const RunResult& m) {
  WireWriter w;
  w.U32(static_cast<uint32_t>(m.outputs.size()));
  for (const HostTensor& t : m.outputs) PutTensor(w, t);
  w.U64(m.profile.inferences);
  w.U32(static_cast<uint32_t>(m.profile.segments.size()));
  for (size_t s = 0; s < m.profile.segments.size(); ++s) {
    const SegmentProfile& p = m.profile.segments[s];
    w.Str(p.name);
    w.U8(Flags(p.accel, p.on_device));
    for (uint64_t v :
         {p.runs, p.wall_ns, p.cycles, p.macs, p.bytes_loaded, p.bytes_stored, p.insns}) {
      w.U64(v);
    }
    for (uint64_t b : p.busy) w.U64(b);
    const std::vector<InsnTiming> none;
    const std::vector<InsnTiming>& tl = s < m.timelines.size() ? m.timelines[s] : none;
    w.U32(static_cast<uint32_t>(tl.size()));
    for (const InsnTiming& t : tl) {
      w.U8(static_cast<uint8_t>(t.module));
      w.U64(t.begin);
      w.U64(t.end);
      for (uint64_t v : t.stall_pop) w.U64(v);
      for (uint64_t v : t.stall_push) w.U64(v);
      w.U64(t.stall_port);
      w.U64(t.stall_fetch);
      w.U64(t.stall_finish);
    }
  }
  return std::move(w.bytes());
}

std::vector<uint8_t> EncodeTrace(const std::string& json) {
  WireWriter w;
  w.Str(json);
  return std::move(w.bytes());
}

Status DecodeHello(const uint8_t* body, size_t size, Hello* out) {
  WireReader r(body, size, "HELLO");
  LOOM_RETURN_IF_ERROR(GetMagic(r, "client", "server", &out->version));
  return r.Done();
}

Status DecodeHelloOk(const uint8_t* body, size_t size, HelloOk* out) {
  WireReader r(body, size, "HELLO_OK");
  LOOM_RETURN_IF_ERROR(GetMagic(r, "server", "client", &out->version));
  LOOM_RETURN_IF_ERROR(r.Str("device", kMaxNameBytes, &out->device));
  LOOM_RETURN_IF_ERROR(r.Str("devices", kMaxTextBytes, &out->devices));
  return r.Done();
}

Status DecodeQueued(const uint8_t* body, size_t size, Queued* out) {
  WireReader r(body, size, "QUEUED");
  LOOM_RETURN_IF_ERROR(r.U32("ahead", &out->ahead));
  return r.Done();
}

Status DecodeError(const uint8_t* body, size_t size, ErrorReply* out) {
  WireReader r(body, size, "ERROR");
  uint8_t code = 0;
  LOOM_RETURN_IF_ERROR(r.U8("code", &code));
  if (code == 0 || code > static_cast<uint8_t>(StatusCode::kDeadlineExceeded)) {
    return r.Bad("code", "is " + std::to_string(code) + ", not an error code (1..9)");
  }
  out->code = static_cast<StatusCode>(code);
  LOOM_RETURN_IF_ERROR(r.Str("message", kMaxTextBytes, &out->message));
  return r.Done();
}

Status DecodeOpen(const uint8_t* body, size_t size, OpenRequest* out) {
  WireReader r(body, size, "OPEN");
  LOOM_RETURN_IF_ERROR(r.U64("package hash", &out->package_hash));
  LOOM_RETURN_IF_ERROR(r.U64("package bytes", &out->package_bytes));
  if (out->package_bytes > kMaxPackageBytes) {
    return r.Bad("package bytes", "is " + std::to_string(out->package_bytes) +
                                      ", more than the limit of " +
                                      std::to_string(kMaxPackageBytes));
  }
  LOOM_RETURN_IF_ERROR(r.Str("device", kMaxNameBytes, &out->device));
  uint8_t flags = 0;
  LOOM_RETURN_IF_ERROR(GetFlags(r, 3, &flags));
  out->trace = flags & 1;
  out->timeline = flags & 2;
  LOOM_RETURN_IF_ERROR(r.U32("timeout ms", &out->timeout_ms));
  LOOM_RETURN_IF_ERROR(r.U32("wall timeout ms", &out->wall_timeout_ms));
  LOOM_RETURN_IF_ERROR(r.U64("max device memory", &out->max_device_memory));
  return r.Done();
}

Status DecodeOpened(const uint8_t* body, size_t size, Opened* out) {
  WireReader r(body, size, "OPENED");
  uint8_t flags = 0;
  LOOM_RETURN_IF_ERROR(GetFlags(r, 3, &flags));
  out->uploaded = flags & 1;
  out->executes_programs = flags & 2;
  LOOM_RETURN_IF_ERROR(r.Str("device", kMaxNameBytes, &out->device));
  LOOM_RETURN_IF_ERROR(r.U64("config hash", &out->config_hash));
  return r.Done();
}

Status DecodeRun(const uint8_t* body, size_t size, RunRequest* out) {
  WireReader r(body, size, "RUN");
  uint8_t flags = 0;
  LOOM_RETURN_IF_ERROR(GetFlags(r, 1, &flags));
  out->int8_outputs = flags & 1;
  LOOM_RETURN_IF_ERROR(GetTensors(r, "input", &out->inputs));
  return r.Done();
}

Status DecodeResult(const uint8_t* body, size_t size, RunResult* out) {
  WireReader r(body, size, "RESULT");
  LOOM_RETURN_IF_ERROR(GetTensors(r, "output", &out->outputs));
  LOOM_RETURN_IF_ERROR(r.U64("inferences", &out->profile.inferences));
  uint32_t n = 0;
  LOOM_RETURN_IF_ERROR(r.U32("segment count", &n));
  if (n > kMaxSegments) {
    return r.Bad("segment count", "is " + std::to_string(n) + ", more than the limit of " +
                                      std::to_string(kMaxSegments));
  }
  out->profile.segments.assign(n, SegmentProfile{});
  out->timelines.assign(n, {});
  for (uint32_t s = 0; s < n; ++s) {
    SegmentProfile& p = out->profile.segments[s];
    LOOM_RETURN_IF_ERROR(r.Str("segment name", kMaxNameBytes, &p.name));
    uint8_t flags = 0;
    LOOM_RETURN_IF_ERROR(GetFlags(r, 3, &flags));
    p.accel = flags & 1;
    p.on_device = flags & 2;
    for (uint64_t* v :
         {&p.runs, &p.wall_ns, &p.cycles, &p.macs, &p.bytes_loaded, &p.bytes_stored, &p.insns}) {
      LOOM_RETURN_IF_ERROR(r.U64("segment counter", v));
    }
    // Not on the wire: one segment's MACs are all the device's when it ran in device cycles.
    p.device_macs = p.cycles != 0 ? p.macs : 0;
    for (uint64_t& b : p.busy) LOOM_RETURN_IF_ERROR(r.U64("segment busy cycles", &b));
    uint32_t insns = 0;
    LOOM_RETURN_IF_ERROR(r.U32("timeline length", &insns));
    // Each entry is 1 + 8 * 13 bytes: a count beyond what is left is refused before reserving.
    constexpr size_t kEntryBytes = 1 + 8 * (5 + 2 * isa::kNumQueues);
    if (insns > kMaxTimelineInsns || insns > r.left() / kEntryBytes) {
      return r.Bad("timeline length", "is " + std::to_string(insns) + " (segment " +
                                          std::to_string(s) + "), more than the message holds " +
                                          "or the limit of " + std::to_string(kMaxTimelineInsns));
    }
    std::vector<InsnTiming>& tl = out->timelines[s];
    tl.assign(insns, InsnTiming{});
    for (InsnTiming& t : tl) {
      uint8_t module = 0;
      LOOM_RETURN_IF_ERROR(r.U8("timeline module", &module));
      if (module >= isa::kNumModules) {
        return r.Bad("timeline module", "is " + std::to_string(module) + " (0..2)");
      }
      t.module = static_cast<isa::Module>(module);
      LOOM_RETURN_IF_ERROR(r.U64("timeline begin", &t.begin));
      LOOM_RETURN_IF_ERROR(r.U64("timeline end", &t.end));
      for (uint64_t& v : t.stall_pop) LOOM_RETURN_IF_ERROR(r.U64("timeline stall", &v));
      for (uint64_t& v : t.stall_push) LOOM_RETURN_IF_ERROR(r.U64("timeline stall", &v));
      LOOM_RETURN_IF_ERROR(r.U64("timeline stall", &t.stall_port));
      LOOM_RETURN_IF_ERROR(r.U64("timeline stall", &t.stall_fetch));
      LOOM_RETURN_IF_ERROR(r.U64("timeline stall", &t.stall_finish));
    }
  }
  return r.Done();
}

Status DecodeTrace(const uint8_t* body, size_t size, std::string* json) {
  WireReader r(body, size, "TRACE");
  LOOM_RETURN_IF_ERROR(r.Str("json", kMaxTraceBytes, json));
  return r.Done();
}

Status DecodeEmpty(MessageType type, size_t size) {
  if (size == 0) return Status::Ok();
  return InvalidArgument(std::string(MessageName(type)) + " message must be empty, it has " +
                         std::to_string(size) + " bytes");
}

}  // namespace loom::runtime::remote
