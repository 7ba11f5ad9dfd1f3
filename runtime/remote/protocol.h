// The remote device's wire protocol (docs/remote.md has a table per message): what `loom-run
// serve` and a `remote://HOST:PORT[/DEVICE]` session say to each other over one TCP connection.
//
// Every message is a frame: a 5-byte header (u32 body length, u8 type), then the body. Integers
// are little-endian, strings and byte blocks carry their length. Each type has a size cap that is
// checked on the header, before any body byte is read or any memory is reserved for it; every
// field of a body is read with bounds checks (wire.h), and count, rank, string and tensor caps
// are checked while decoding. The first message on a connection is HELLO with the magic and the
// protocol version; a mismatch is refused with both versions named.
#ifndef LOOM_RUNTIME_REMOTE_PROTOCOL_H_
#define LOOM_RUNTIME_REMOTE_PROTOCOL_H_

#include <cstdint>
#include <string>
#include <vector>

#include "runtime/core/status.h"
#include "runtime/drivers/driver.h"
#include "runtime/exec/executor.h"

namespace loom::runtime::remote {

inline constexpr char kMagic[8] = {'L', 'O', 'O', 'M', 'R', 'P', 'C', '\0'};
inline constexpr uint16_t kProtocolVersion = 1;
inline constexpr size_t kFrameHeaderBytes = 5;

// Caps. A board has a few hundred MiB of memory; the caps keep one client from taking it all.
inline constexpr uint64_t kMaxSmallMessageBytes = 64 * 1024;   // every message but the four below
inline constexpr uint64_t kMaxPackageBytes = 256ull << 20;     // PACKAGE: one package file
inline constexpr uint64_t kMaxTensorBytes = 256ull << 20;      // one input or output tensor
inline constexpr uint64_t kMaxRunMessageBytes = 512ull << 20;  // RUN, RESULT
inline constexpr uint64_t kMaxTraceBytes = 256ull << 20;       // TRACE
inline constexpr uint32_t kMaxTensors = 256;                   // inputs or outputs per run
inline constexpr uint32_t kMaxRank = 8;
inline constexpr uint32_t kMaxSegments = 4096;
inline constexpr uint32_t kMaxTimelineInsns = 1u << 21;  // per segment
inline constexpr size_t kMaxNameBytes = 1024;            // tensor, segment, device names
inline constexpr size_t kMaxTextBytes = 16 * 1024;       // error messages, device lists

enum class MessageType : uint8_t {
  kHello = 1,          // client -> server, first
  kHelloOk = 2,        // server -> client
  kQueued = 3,         // server -> client: another client is being served
  kError = 4,          // server -> client
  kOpen = 5,           // client -> server: open a package (by hash) on a device
  kNeedPackage = 6,    // server -> client: not cached, send it
  kPackage = 7,        // client -> server: the package file
  kOpened = 8,         // server -> client
  kRun = 9,            // client -> server: inputs
  kResult = 10,        // server -> client: outputs, counters, timelines
  kTraceRequest = 11,  // client -> server
  kTrace = 12,         // server -> client: the device's timeline JSON
  kBye = 13,           // client -> server: closing
};
inline constexpr uint8_t kMaxMessageType = 13;

// "HELLO", "RUN", ...; "unknown" outside the enum.
const char* MessageName(MessageType type);
// The cap on a message body of this type (above).
uint64_t MaxBodyBytes(MessageType type);

struct FrameHeader {
  MessageType type = MessageType::kHello;
  uint32_t body_bytes = 0;
};
// Refuses an unknown type or a body over the type's cap, naming both.
Status DecodeFrameHeader(const uint8_t header[kFrameHeaderBytes], FrameHeader* out);
// A whole frame: header + body.
std::vector<uint8_t> Frame(MessageType type, const std::vector<uint8_t>& body);

struct Hello {
  uint16_t version = kProtocolVersion;
};
struct HelloOk {
  uint16_t version = kProtocolVersion;
  std::string device;   // the server's default device (serve --device)
  std::string devices;  // the devices this server can open, space-separated
};
struct Queued {
  uint32_t ahead = 0;  // clients before this one, the one being served included
};
struct ErrorReply {
  StatusCode code = StatusCode::kInternal;
  std::string message;
};
struct OpenRequest {
  uint64_t package_hash = 0;   // FNV-1a 64 of the package's payload (its header's checksum)
  uint64_t package_bytes = 0;  // the package file's size
  std::string device;          // empty: the server's default
  bool trace = false;
  bool timeline = false;
  uint32_t timeout_ms = 0;
  uint32_t wall_timeout_ms = 0;
  uint64_t max_device_memory = 0;
};
struct Opened {
  bool uploaded = false;  // the package was sent on this connection (else: from the cache)
  bool executes_programs = false;
  std::string device;  // the device string the server opened
  uint64_t config_hash = 0;
};
struct RunRequest {
  bool int8_outputs = false;
  std::vector<HostTensor> inputs;
};
// One run's outputs and what it cost on the device: `profile` holds this run only (the client
// adds it to its session's totals), timelines are per segment (empty unless opened with timeline).
struct RunResult {
  std::vector<HostTensor> outputs;
  Profile profile;
  std::vector<std::vector<InsnTiming>> timelines;
};

// Bodies. Encode never fails (the writer checks nothing: a message over its cap is refused by
// the reader, and the sender checks sizes it does not control, such as outputs, before sending).
std::vector<uint8_t> EncodeHello(const Hello& m);
std::vector<uint8_t> EncodeHelloOk(const HelloOk& m);
std::vector<uint8_t> EncodeQueued(const Queued& m);
std::vector<uint8_t> EncodeError(const ErrorReply& m);
std::vector<uint8_t> EncodeOpen(const OpenRequest& m);
std::vector<uint8_t> EncodeOpened(const Opened& m);
std::vector<uint8_t> EncodeRun(const RunRequest& m);
std::vector<uint8_t> EncodeResult(const RunResult& m);
std::vector<uint8_t> EncodeTrace(const std::string& json);

// Decoders refuse wrong magic, wrong version (naming both), truncated fields, trailing bytes and
// every cap, with InvalidArgument naming the message and field.
Status DecodeHello(const uint8_t* body, size_t size, Hello* out);
Status DecodeHelloOk(const uint8_t* body, size_t size, HelloOk* out);
Status DecodeQueued(const uint8_t* body, size_t size, Queued* out);
Status DecodeError(const uint8_t* body, size_t size, ErrorReply* out);
Status DecodeOpen(const uint8_t* body, size_t size, OpenRequest* out);
Status DecodeOpened(const uint8_t* body, size_t size, Opened* out);
Status DecodeRun(const uint8_t* body, size_t size, RunRequest* out);
Status DecodeResult(const uint8_t* body, size_t size, RunResult* out);
Status DecodeTrace(const uint8_t* body, size_t size, std::string* json);
// NEED_PACKAGE, TRACE_REQUEST and BYE have empty bodies.
Status DecodeEmpty(MessageType type, size_t size);

}  // namespace loom::runtime::remote

#endif  // LOOM_RUNTIME_REMOTE_PROTOCOL_H_
