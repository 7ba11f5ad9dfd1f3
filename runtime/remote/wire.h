// Little-endian encoding for the remote protocol (docs/remote.md): every field is written and read
// byte by byte with explicit shifts, so the wire format does not depend on the host's endianness,
// alignment or struct layout, and every read is checked against the bytes that are left.
#ifndef LOOM_RUNTIME_REMOTE_WIRE_H_
#define LOOM_RUNTIME_REMOTE_WIRE_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "runtime/core/status.h"

namespace loom::runtime::remote {

class WireWriter {
 public:
  void U8(uint8_t v) { out_.push_back(v); }
  void U16(uint16_t v) { Le(v, 2); }
  void U32(uint32_t v) { Le(v, 4); }
  void U64(uint64_t v) { Le(v, 8); }
  void I64(int64_t v) { Le(static_cast<uint64_t>(v), 8); }
  void Raw(const void* data, size_t n);
  // u32 length, then the bytes.
  void Str(const std::string& s);
  // u64 length, then the bytes.
  void Blob(const uint8_t* data, uint64_t n);

  std::vector<uint8_t>& bytes() { return out_; }

 private:
  void Le(uint64_t v, int n) {
    for (int i = 0; i < n; ++i) out_.push_back(static_cast<uint8_t>(v >> (8 * i)));
  }
  std::vector<uint8_t> out_;
};

// Reads fields from one message body. `message` names the message in errors ("RUN message: field
// 'input 2 data' needs 4096 bytes at offset 37, 12 are left").
class WireReader {
 public:
  WireReader(const uint8_t* data, size_t size, const char* message)
      : data_(data), size_(size), message_(message) {}

  Status U8(const char* field, uint8_t* v);
  Status U16(const char* field, uint16_t* v);
  Status U32(const char* field, uint32_t* v);
  Status U64(const char* field, uint64_t* v);
  Status I64(const char* field, int64_t* v);
  Status Raw(const char* field, size_t n, const uint8_t** p);
  // A u32-length string of at most `max` bytes.
  Status Str(const char* field, size_t max, std::string* s);
  // A u64-length byte block of at most `max` bytes; points into the message.
  Status Blob(const char* field, uint64_t max, const uint8_t** p, uint64_t* n);
  // InvalidArgument naming the message and the field.
  Status Bad(const std::string& field, const std::string& problem) const;
  // Every byte must have been read.
  Status Done() const;

  size_t left() const { return size_ - pos_; }

 private:
  Status Need(const char* field, uint64_t n) const;
  uint64_t Le(int n);

  const uint8_t* data_;
  size_t size_;
  size_t pos_ = 0;
  const char* message_;
};

}  // namespace loom::runtime::remote

#endif  // LOOM_RUNTIME_REMOTE_WIRE_H_
