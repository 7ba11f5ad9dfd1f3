// Fuzz target for the remote protocol's message parser (what a server reads from any client).
//
// Input: a byte stream of frames, as a client would send them. Each frame header is decoded
// (type and size cap); the body is decoded by its type. A rejection must name the message; an
// accepted message must encode back to exactly the bytes it came from (the encoding is canonical,
// so a decoder that accepted something it does not understand shows up here). A violation is
// printed and the target abort()s.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "runtime/remote/protocol.h"

namespace {

using namespace loom::runtime::remote;

[[noreturn]] void Fail(const char* what, const std::string& detail) {
  std::fprintf(stderr, "remote_protocol_fuzz: %s\n%s\n", what, detail.c_str());
  std::fflush(stderr);
  std::abort();
}

void Same(MessageType t, const uint8_t* body, size_t size, const std::vector<uint8_t>& again) {
  if (again.size() != size || (size && std::memcmp(again.data(), body, size) != 0)) {
    Fail("an accepted message does not encode back to its bytes", MessageName(t));
  }
}

template <typename M>
void Check(MessageType t, const uint8_t* body, size_t size,
           loom::Status (*decode)(const uint8_t*, size_t, M*),
           std::vector<uint8_t> (*encode)(const M&)) {
  M m;
  const loom::Status s = decode(body, size, &m);
  if (!s.ok()) {
    if (s.message().find(MessageName(t)) == std::string::npos &&
        s.message().find("protocol") == std::string::npos) {
      Fail("a rejection does not name the message", s.ToString());
    }
    return;
  }
  Same(t, body, size, encode(m));
}

std::vector<uint8_t> EncodeTraceString(const std::string& s) { return EncodeTrace(s); }

void Body(MessageType t, const uint8_t* body, size_t size) {
  switch (t) {
    case MessageType::kHello:
      return Check<Hello>(t, body, size, DecodeHello, EncodeHello);
    case MessageType::kHelloOk:
      return Check<HelloOk>(t, body, size, DecodeHelloOk, EncodeHelloOk);
    case MessageType::kQueued:
      return Check<Queued>(t, body, size, DecodeQueued, EncodeQueued);
    case MessageType::kError:
      return Check<ErrorReply>(t, body, size, DecodeError, EncodeError);
    case MessageType::kOpen:
      return Check<OpenRequest>(t, body, size, DecodeOpen, EncodeOpen);
    case MessageType::kOpened:
      return Check<Opened>(t, body, size, DecodeOpened, EncodeOpened);
    case MessageType::kRun:
      return Check<RunRequest>(t, body, size, DecodeRun, EncodeRun);
    case MessageType::kResult:
      return Check<RunResult>(t, body, size, DecodeResult, EncodeResult);
    case MessageType::kTrace:
      return Check<std::string>(t, body, size, DecodeTrace, EncodeTraceString);
    case MessageType::kPackage:
      return;  // the package loader's own fuzz target covers it
    default:
      (void)DecodeEmpty(t, size);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  size_t pos = 0;
  while (size - pos >= kFrameHeaderBytes) {
    FrameHeader h;
    const loom::Status s = DecodeFrameHeader(data + pos, &h);
    if (!s.ok()) {
      if (s.message().find("message") == std::string::npos) Fail("header rejection", s.ToString());
      return 0;
    }
    pos += kFrameHeaderBytes;
    if (h.body_bytes > size - pos) return 0;  // a server would wait for the rest
    Body(h.type, data + pos, h.body_bytes);
    pos += h.body_bytes;
  }
  return 0;
}
