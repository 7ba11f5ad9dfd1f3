#include "runtime/package/format.h"

#include <cstring>
#include <string>

namespace loom::runtime {
namespace {

void PutU32(uint8_t* p, uint32_t v) {
  for (int i = 0; i < 4; ++i) p[i] = static_cast<uint8_t>(v >> (8 * i));
}
void PutU64(uint8_t* p, uint64_t v) {
  for (int i = 0; i < 8; ++i) p[i] = static_cast<uint8_t>(v >> (8 * i));
}
uint32_t GetU32(const uint8_t* p) {
  uint32_t v = 0;
  for (int i = 3; i >= 0; --i) v = (v << 8) | p[i];
  return v;
}
uint64_t GetU64(const uint8_t* p) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = (v << 8) | p[i];
  return v;
}

}  // namespace

uint64_t Fnv1a64(const uint8_t* data, size_t size) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (size_t i = 0; i < size; ++i) {
    h ^= data[i];
    h *= 0x100000001b3ull;
  }
  return h;
}

void EncodeHeader(const uint8_t* payload, uint64_t payload_bytes, uint8_t out[kHeaderBytes]) {
  std::memcpy(out, kPackageMagic, 8);
  PutU32(out + 8, kHeaderVersion);
  PutU32(out + 12, 0);
  PutU64(out + 16, payload_bytes);
  PutU64(out + 24, Fnv1a64(payload, payload_bytes));
}

Status DecodeHeader(const uint8_t* file, size_t file_bytes, PackageHeader* out) {
  if (file_bytes < kHeaderBytes) {
    return DataLoss(
        "package is {} bytes, shorter than its 32-byte header (truncated or not a "
        "package)",
        file_bytes);
  }
  if (std::memcmp(file, kPackageMagic, 8) != 0) {
    return InvalidArgument("not a Loom package: the file does not start with \"LOOMPKG\\0\"");
  }
  out->version = GetU32(file + 8);
  out->flags = GetU32(file + 12);
  out->payload_bytes = GetU64(file + 16);
  out->checksum = GetU64(file + 24);
  if (out->version != kHeaderVersion) {
    return FailedPrecondition(
        "package header version {} is not supported (this runtime reads version {})", out->version,
        kHeaderVersion);
  }
  if (out->flags != 0) {
    return DataLoss("package header flags are {}, expected 0 (corrupted header)", out->flags);
  }
  const uint64_t have = file_bytes - kHeaderBytes;
  if (out->payload_bytes != have) {
    return DataLoss("package header says {} payload bytes, the file holds {}{}", out->payload_bytes,
                    have, have < out->payload_bytes ? " (truncated)" : " (trailing bytes)");
  }
  return Status::Ok();
}

}  // namespace loom::runtime
