// Small helpers for the Linux user-space transports: paths under a configurable root (so tests can
// stand a temporary folder in for / with regular files as sysfs attributes and device nodes), and
// bounded reads and writes of sysfs attributes whose errors name the path.
#ifndef LOOM_RUNTIME_DRIVERS_ZYNQ_SYSFS_H_
#define LOOM_RUNTIME_DRIVERS_ZYNQ_SYSFS_H_

#include <cstdint>
#include <string>

#include "runtime/core/status.h"

namespace loom::runtime::zynq {

// `root` + "/" + `rel` with one slash between them; `rel` is absolute-looking ("/sys/...").
std::string UnderRoot(const std::string& root, const std::string& rel);

// Reads a sysfs attribute (at most 4 KiB, as sysfs itself) without its trailing whitespace.
// `what` says what the attribute is for in messages ("UIO device name").
Status ReadAttribute(const std::string& path, const char* what, std::string* value);
// Parses an unsigned 64-bit number: "0x..." is hexadecimal, anything else hexadecimal when `hex`,
// else decimal. kNone on success; otherwise why not, and *value is untouched.
enum class NumberError { kNone, kEmpty, kBadDigit, kOverflow };
NumberError ParseU64(const std::string& text, bool hex, uint64_t* value);
// Parses "0x1f300000", "1f300000" (hex) or, with hex=false, "1048576" or "0x100000".
Status ReadAttributeU64(const std::string& path, const char* what, bool hex, uint64_t* value);
// Writes `text` to an attribute in one write(), as sysfs requires.
Status WriteAttribute(const std::string& path, const char* what, const std::string& text);

// "check that ...": the hint appended when opening a path failed with `err`.
std::string OpenHint(int err);
// kNotFound for ENOENT, kFailedPrecondition otherwise (permissions, busy device).
Status OpenError(int err, std::string message);

}  // namespace loom::runtime::zynq

#endif  // LOOM_RUNTIME_DRIVERS_ZYNQ_SYSFS_H_
