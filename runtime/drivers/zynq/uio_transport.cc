#include "runtime/drivers/zynq/uio_transport.h"

#include <dirent.h>
#include <fcntl.h>
#include <poll.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <vector>

#include "runtime/core/checked_math.h"
#include "runtime/drivers/zynq/sysfs.h"

namespace loom::runtime::zynq {
namespace {

// Register windows are a few KiB; anything far larger is a misread attribute, not a window.
constexpr uint64_t kMaxWindowBytes = uint64_t{1} << 30;

std::string Hex(uint64_t v) {
  char buf[24];
  snprintf(buf, sizeof(buf), "0x%llx", static_cast<unsigned long long>(v));
  return buf;
}

// "uio12" -> 12; -1 for other entries.
long UioIndex(const char* entry) {
  if (std::strncmp(entry, "uio", 3) != 0 || entry[3] == '\0') return -1;
  long n = 0;
  for (const char* p = entry + 3; *p; ++p) {
    if (*p < '0' || *p > '9' || n > 1000000) return -1;
    n = n * 10 + (*p - '0');
  }
  return n;
}

}  // namespace

Status FindUioDevice(const UioOptions& options, std::string* device) {
  const std::string cls = UnderRoot(options.root, "/sys/class/uio");
  DIR* dir = opendir(cls.c_str());
  if (dir == nullptr) {
    const int err = errno;
    return OpenError(err, "no UIO device named '" + options.name + "': cannot list " + cls + " (" +
                              OpenHint(err) +
                              (err == ENOENT ? ": this system has no UIO device at all" : "") +
                              "); check that the Loom overlay is applied and uio_pdrv_genirq is "
                              "loaded with of_id=generic-uio (docs/boards.md)");
  }
  std::vector<long> indices;
  while (const dirent* e = readdir(dir)) {
    const long n = UioIndex(e->d_name);
    if (n >= 0) indices.push_back(n);
  }
  closedir(dir);
  std::sort(indices.begin(), indices.end());
  std::string seen;
  for (long n : indices) {
    const std::string dev = "uio" + std::to_string(n);
    std::string name;
    const Status s = ReadAttribute(cls + "/" + dev + "/name", "UIO device name", &name);
    if (!s.ok()) {
      seen += (seen.empty() ? "" : ", ") + dev + " (unreadable name)";
      continue;
    }
    if (name == options.name) {
      *device = dev;
      return Status::Ok();
    }
    seen += (seen.empty() ? "" : ", ") + dev + " '" + name + "'";
  }
  return NotFound("no UIO device named '" + options.name + "' in " + cls +
                  " (found: " + (seen.empty() ? std::string("none") : seen) +
                  "); check that the Loom overlay is applied and uio_pdrv_genirq is loaded with "
                  "of_id=generic-uio");
}

Status UioTransport::Open(const UioOptions& options, std::unique_ptr<UioTransport>* out) {
  std::string dev;
  LOOM_RETURN_IF_ERROR(FindUioDevice(options, &dev));
  const std::string map = UnderRoot(options.root, "/sys/class/uio/" + dev + "/maps/map0");
  std::unique_ptr<UioTransport> t(new UioTransport());
  LOOM_RETURN_IF_ERROR(ReadAttributeU64(map + "/addr", "UIO map0 address", true, &t->phys_addr_));
  LOOM_RETURN_IF_ERROR(ReadAttributeU64(map + "/size", "UIO map0 size", true, &t->size_));
  if (t->size_ < 4 || t->size_ > kMaxWindowBytes || t->size_ % 4 != 0) {
    return InvalidArgument("UIO map0 size " + Hex(t->size_) + " in " + map +
                           "/size is not a register window (expected a multiple of 4 bytes, at "
                           "most 1 GiB); check the overlay's reg property");
  }
  t->device_path_ = UnderRoot(options.root, "/dev/" + dev);
  t->fd_ = open(t->device_path_.c_str(), O_RDWR | O_SYNC | O_CLOEXEC);
  if (t->fd_ < 0) {
    const int err = errno;
    return OpenError(err, "cannot open UIO device " + t->device_path_ + ": " + OpenHint(err) +
                              (err == ENOENT ? " (is devtmpfs/udev creating /dev/uioN?)" : ""));
  }
  // A real /dev/uioN is a character device; a regular file stands in for it in tests, and there a
  // short file would fault on access instead of failing here.
  struct stat st;
  if (fstat(t->fd_, &st) == 0 && S_ISREG(st.st_mode) &&
      static_cast<uint64_t>(st.st_size) < t->size_) {
    return DataLoss("UIO device " + t->device_path_ + " holds " + std::to_string(st.st_size) +
                    " bytes, less than the " + std::to_string(t->size_) + "-byte map0 window");
  }
  size_t len;
  if (!CheckedCast(t->size_, &len)) {
    return InvalidArgument("UIO map0 size " + Hex(t->size_) + " does not fit this process");
  }
  // UIO selects map N by the mmap offset N * page size; map0 is offset 0.
  void* p = mmap(nullptr, len, PROT_READ | PROT_WRITE, MAP_SHARED, t->fd_, 0);
  if (p == MAP_FAILED) {
    return FailedPrecondition("cannot map the " + std::to_string(t->size_) +
                              "-byte register window of " + t->device_path_ + ": " +
                              std::strerror(errno));
  }
  t->regs_ = static_cast<volatile uint32_t*>(p);
  *out = std::move(t);
  return Status::Ok();
}

UioTransport::~UioTransport() {
  if (regs_ != nullptr) munmap(const_cast<uint32_t*>(regs_), static_cast<size_t>(size_));
  if (fd_ >= 0) close(fd_);
}

Status UioTransport::CheckOffset(uint32_t offset, const char* op) const {
  if (offset % 4 != 0 || uint64_t{offset} + 4 > size_) {
    return OutOfRange(std::string(op) + " at register offset " + Hex(offset) + " of " +
                      device_path_ + ": not a 4-byte aligned offset inside the " +
                      std::to_string(size_) + "-byte window");
  }
  return Status::Ok();
}

Status UioTransport::Read32(uint32_t offset, uint32_t* value) {
  LOOM_RETURN_IF_ERROR(CheckOffset(offset, "Read32"));
  *value = regs_[offset / 4];
  return Status::Ok();
}

Status UioTransport::Write32(uint32_t offset, uint32_t value) {
  LOOM_RETURN_IF_ERROR(CheckOffset(offset, "Write32"));
  regs_[offset / 4] = value;
  return Status::Ok();
}

Status UioTransport::EnableInterrupt() {
  const uint32_t one = 1;
  ssize_t n;
  do {
    n = write(fd_, &one, sizeof(one));
  } while (n < 0 && errno == EINTR);
  if (n != static_cast<ssize_t>(sizeof(one))) {
    return FailedPrecondition("cannot unmask the interrupt of " + device_path_ + ": " +
                              (n < 0 ? std::strerror(errno) : "short write") +
                              "; does the overlay's loom node have an interrupts property?");
  }
  return Status::Ok();
}

Status UioTransport::WaitInterrupt(int timeout_ms, bool* fired) {
  *fired = false;
  if (timeout_ms < 0) {
    return InvalidArgument("interrupt wait on " + device_path_ + " needs a timeout >= 0 ms, got " +
                           std::to_string(timeout_ms));
  }
  pollfd pfd{fd_, POLLIN, 0};
  const int r = poll(&pfd, 1, timeout_ms);
  // A signal ends the wait early; the caller's loop treats it like a timeout and waits again.
  if (r < 0 && errno == EINTR) return Status::Ok();
  if (r < 0) {
    return FailedPrecondition("poll on " + device_path_ + " failed: " + std::strerror(errno));
  }
  if (r == 0) return Status::Ok();
  if (pfd.revents & (POLLERR | POLLNVAL)) {
    return FailedPrecondition("poll on " + device_path_ +
                              " reported an error; the UIO device has "
                              "no interrupt or went away");
  }
  uint32_t count = 0;
  ssize_t n;
  do {
    n = read(fd_, &count, sizeof(count));
  } while (n < 0 && errno == EINTR);
  if (n != static_cast<ssize_t>(sizeof(count))) {
    return FailedPrecondition("reading the interrupt count from " + device_path_ +
                              " failed: " + (n < 0 ? std::strerror(errno) : "short read"));
  }
  interrupt_count_ = count;
  *fired = true;
  return Status::Ok();
}

}  // namespace loom::runtime::zynq
