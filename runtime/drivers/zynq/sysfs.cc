#include "runtime/drivers/zynq/sysfs.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <utility>

namespace loom::runtime::zynq {

// The runtime builds without exceptions and RTTI; a change of flags must fail the build here rather
// than slip through (tests/zynq checks the same from the test side).
#if defined(__cpp_exceptions) || defined(__GXX_RTTI)
#error "runtime/drivers/zynq must be built with -fno-exceptions -fno-rtti"
#endif

std::string UnderRoot(const std::string& root, const std::string& rel) {
  std::string r = root.empty() ? "/" : root;
  while (r.size() > 1 && r.back() == '/') r.pop_back();
  size_t skip = 0;
  while (skip < rel.size() && rel[skip] == '/') ++skip;
  return r == "/" ? "/" + rel.substr(skip) : r + "/" + rel.substr(skip);
}

std::string OpenHint(int err) {
  if (err == EACCES || err == EPERM) return "permission denied: run as root or grant access";
  if (err == ENOENT) return "it does not exist";
  return std::strerror(err);
}

Status OpenError(int err, std::string message) {
  return err == ENOENT ? NotFound(std::move(message)) : FailedPrecondition(std::move(message));
}

Status ReadAttribute(const std::string& path, const char* what, std::string* value) {
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    const int err = errno;
    return OpenError(err,
                     std::string("cannot read ") + what + " from " + path + ": " + OpenHint(err));
  }
  char buf[4096];
  size_t got = 0;
  while (got < sizeof(buf)) {
    const ssize_t n = read(fd, buf + got, sizeof(buf) - got);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      const int err = errno;
      close(fd);
      return FailedPrecondition(std::string("cannot read ") + what + " from " + path + ": " +
                                std::strerror(err));
    }
    if (n == 0) break;
    got += static_cast<size_t>(n);
  }
  close(fd);
  if (got == sizeof(buf)) {
    return DataLoss(std::string(what) + " in " + path +
                    " is longer than 4 KiB; not a sysfs attribute");
  }
  while (got > 0 && (buf[got - 1] == '\n' || buf[got - 1] == ' ' || buf[got - 1] == '\r' ||
                     buf[got - 1] == '\t' || buf[got - 1] == '\0')) {
    --got;
  }
  value->assign(buf, got);
  return Status::Ok();
}

NumberError ParseU64(const std::string& text, bool hex, uint64_t* value) {
  size_t i = 0;
  unsigned base = hex ? 16 : 10;
  if (text.size() > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X')) {
    i = 2;
    base = 16;
  }
  if (i == text.size()) return NumberError::kEmpty;
  uint64_t v = 0;
  for (; i < text.size(); ++i) {
    const char c = text[i];
    unsigned d;
    if (c >= '0' && c <= '9') {
      d = static_cast<unsigned>(c - '0');
    } else if (base == 16 && c >= 'a' && c <= 'f') {
      d = static_cast<unsigned>(c - 'a' + 10);
    } else if (base == 16 && c >= 'A' && c <= 'F') {
      d = static_cast<unsigned>(c - 'A' + 10);
    } else {
      return NumberError::kBadDigit;
    }
    if (v > (UINT64_MAX - d) / base) return NumberError::kOverflow;
    v = v * base + d;
  }
  *value = v;
  return NumberError::kNone;
}

Status ReadAttributeU64(const std::string& path, const char* what, bool hex, uint64_t* value) {
  std::string text;
  LOOM_RETURN_IF_ERROR(ReadAttribute(path, what, &text));
  const bool hexadecimal = hex || (text.size() > 2 && text[0] == '0' && (text[1] | 0x20) == 'x');
  const std::string kind = hexadecimal ? "hexadecimal" : "decimal";
  switch (ParseU64(text, hex, value)) {
    case NumberError::kNone:
      return Status::Ok();
    case NumberError::kEmpty:
      return DataLoss(std::string(what) + " in " + path + " is empty; expected a " + kind +
                      " number");
    case NumberError::kBadDigit:
      return DataLoss(std::string(what) + " in " + path + " is '" + text + "'; expected a " + kind +
                      " number");
    case NumberError::kOverflow:
      return DataLoss(std::string(what) + " in " + path + " ('" + text + "') overflows 64 bits");
  }
  return Internal("unreachable");
}

Status WriteAttribute(const std::string& path, const char* what, const std::string& text) {
  const int fd = open(path.c_str(), O_WRONLY | O_TRUNC | O_CLOEXEC);
  if (fd < 0) {
    const int err = errno;
    return OpenError(err,
                     std::string("cannot write ") + what + " to " + path + ": " + OpenHint(err));
  }
  ssize_t n;
  do {
    n = write(fd, text.data(), text.size());
  } while (n < 0 && errno == EINTR);
  const int err = errno;
  close(fd);
  if (n < 0) {
    return FailedPrecondition(std::string("writing '") + text + "' (" + what + ") to " + path +
                              " failed: " + std::strerror(err));
  }
  if (static_cast<size_t>(n) != text.size()) {
    return DataLoss(std::string("short write of ") + what + " to " + path);
  }
  return Status::Ok();
}

}  // namespace loom::runtime::zynq
