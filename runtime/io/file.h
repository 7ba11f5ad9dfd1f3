// Reading a whole input file with its size checked before a byte is read. Every tool and library
// that takes a path from a user (packages, .npy tensors, ONNX models, textual IR, configs) reads
// through this, so `/dev/zero`, a FIFO, a directory or a multi-GiB file is refused with a message
// naming the path and the limit instead of being read until memory runs out.
//
// Host and Linux boards (POSIX stat); C++17, no exceptions.
#ifndef LOOM_RUNTIME_IO_FILE_H_
#define LOOM_RUNTIME_IO_FILE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "runtime/core/status.h"

namespace loom {

// Default caps, by what the file is. A caller with a better bound passes its own.
inline constexpr uint64_t kMaxPackageFileBytes = uint64_t{2} << 30;  // 2 GiB
inline constexpr uint64_t kMaxTensorFileBytes = uint64_t{4} << 30;   // 4 GiB (.npy)
inline constexpr uint64_t kMaxModelFileBytes = uint64_t{2} << 30;    // protobuf's own limit
inline constexpr uint64_t kMaxTextFileBytes = uint64_t{256} << 20;   // IR text, JSON configs

// Reads `path` into `out`. `what` names the file in messages ("package", "ONNX model"). Errors:
// NotFound (no such file), InvalidArgument (not a regular file, or larger than `max_bytes`),
// DataLoss (a read error, or the file changed size while being read).
Status ReadFileBytes(const std::string& path, const char* what, uint64_t max_bytes,
                     std::vector<uint8_t>* out);
Status ReadFileText(const std::string& path, const char* what, uint64_t max_bytes,
                    std::string* out);

}  // namespace loom

#endif  // LOOM_RUNTIME_IO_FILE_H_
