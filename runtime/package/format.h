// The container around a package's FlatBuffer (docs/package.md): a fixed 32-byte header, then the
// payload. The checksum covers every payload byte and the header fields cover themselves (magic,
// version, size), so one flipped byte anywhere in the file is detected before the payload is read.
//
//   offset  size  field
//   0       8     magic "LOOMPKG\0"
//   8       4     header version (little-endian u32), kHeaderVersion
//   12      4     flags (u32), zero in this version
//   16      8     payload bytes (u64)
//   24      8     FNV-1a 64 of the payload (u64)
#ifndef LOOM_RUNTIME_PACKAGE_FORMAT_H_
#define LOOM_RUNTIME_PACKAGE_FORMAT_H_

#include <cstddef>
#include <cstdint>

#include "runtime/core/status.h"

namespace loom::runtime {

inline constexpr char kPackageMagic[8] = {'L', 'O', 'O', 'M', 'P', 'K', 'G', '\0'};
inline constexpr uint32_t kHeaderVersion = 1;
inline constexpr size_t kHeaderBytes = 32;
// The schema version this runtime writes (version_minor) and the majors it reads. Major 2 is a
// package that uses zero points (loom_package.fbs, "Versioning"), which a 1.x reader would misread.
inline constexpr uint16_t kSchemaVersionMajor = 1;
inline constexpr uint16_t kSchemaVersionMajorZeroPoints = 2;
inline constexpr uint16_t kSchemaVersionMinor = 11;

struct PackageHeader {
  uint32_t version = kHeaderVersion;
  uint32_t flags = 0;
  uint64_t payload_bytes = 0;
  uint64_t checksum = 0;
};

uint64_t Fnv1a64(const uint8_t* data, size_t size);

// Writes the 32 header bytes for `payload`.
void EncodeHeader(const uint8_t* payload, uint64_t payload_bytes, uint8_t out[kHeaderBytes]);

// Checks magic, header version, flags and that `file_bytes` is exactly header + payload. Does not
// check the checksum (the caller does, over the payload).
Status DecodeHeader(const uint8_t* file, size_t file_bytes, PackageHeader* out);

}  // namespace loom::runtime

#endif  // LOOM_RUNTIME_PACKAGE_FORMAT_H_
