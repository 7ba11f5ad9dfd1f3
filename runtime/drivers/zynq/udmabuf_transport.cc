#include "runtime/drivers/zynq/udmabuf_transport.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "runtime/core/checked_math.h"
#include "runtime/drivers/zynq/sysfs.h"

namespace loom::runtime::zynq {
namespace {

// Cache maintenance works on whole lines; 64 bytes covers Cortex-A9 (32) and Cortex-A53 (64).
constexpr uint64_t kCacheLine = 64;
// u-dma-buf's DMA directions (sync_direction).
constexpr unsigned kToDevice = 1, kFromDevice = 2;

std::string Hex(uint64_t v) {
  char buf[24];
  snprintf(buf, sizeof(buf), "0x%llx", static_cast<unsigned long long>(v));
  return buf;
}

}  // namespace

Status UdmabufTransport::Open(const UdmabufOptions& options,
                              std::unique_ptr<UdmabufTransport>* out) {
  if (options.address_bits < 32 || options.address_bits > 64) {
    return InvalidArgument("DMA address width " + std::to_string(options.address_bits) +
                           " bits is outside 32..64");
  }
  std::unique_ptr<UdmabufTransport> t(new UdmabufTransport());
  t->sysfs_dir_ = UnderRoot(options.root, "/sys/class/u-dma-buf/" + options.name);
  struct stat st;
  if (stat(t->sysfs_dir_.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) {
    return NotFound("no u-dma-buf device '" + options.name + "': " + t->sysfs_dir_ +
                    " does not exist; check that u-dma-buf.ko is loaded (insmod u-dma-buf.ko) "
                    "before the Loom overlay is applied (docs/boards.md)");
  }
  uint64_t phys = 0, size = 0;
  LOOM_RETURN_IF_ERROR(
      ReadAttributeU64(t->sysfs_dir_ + "/phys_addr", "u-dma-buf physical address", true, &phys));
  LOOM_RETURN_IF_ERROR(ReadAttributeU64(t->sysfs_dir_ + "/size", "u-dma-buf size", false, &size));
  uint64_t coherent = 0;
  LOOM_RETURN_IF_ERROR(ReadAttributeU64(t->sysfs_dir_ + "/dma_coherent", "u-dma-buf dma_coherent",
                                        false, &coherent));
  if (size == 0 || size % kCacheLine != 0) {
    return InvalidArgument("u-dma-buf size " + std::to_string(size) + " in " + t->sysfs_dir_ +
                           "/size is not a positive multiple of " + std::to_string(kCacheLine) +
                           " bytes; check the overlay's size property");
  }
  uint64_t end;
  const bool fits = CheckedAdd(phys, size, &end) &&
                    (options.address_bits == 64 || end <= (uint64_t{1} << options.address_bits));
  if (!fits) {
    return OutOfRange("u-dma-buf region " + Hex(phys) + " + " + Hex(size) + " (" + t->sysfs_dir_ +
                      ") ends above the " + std::to_string(options.address_bits) +
                      "-bit address range the accelerator can reach; reserve the region lower "
                      "(a memory-region below 2^" +
                      std::to_string(options.address_bits) + ")");
  }
  size_t len;
  if (!CheckedCast(size, &len)) {
    return OutOfRange("u-dma-buf size " + std::to_string(size) + " does not fit this process");
  }
  const std::string device_path = UnderRoot(options.root, "/dev/" + options.name);
  const int fd = open(device_path.c_str(), O_RDWR | O_CLOEXEC | (options.uncached ? O_SYNC : 0));
  if (fd < 0) {
    const int err = errno;
    return OpenError(err, "cannot open u-dma-buf device " + device_path + ": " + OpenHint(err));
  }
  t->region_.TakeFd(fd);
  // Tests stand a regular file in for the device; a short one would fault on access.
  if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && static_cast<uint64_t>(st.st_size) < size) {
    return DataLoss("u-dma-buf device " + device_path + " holds " + std::to_string(st.st_size) +
                    " bytes, less than its size attribute (" + std::to_string(size) + ")");
  }
  void* p = mmap(nullptr, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (p == MAP_FAILED) {
    return FailedPrecondition("cannot map the " + std::to_string(size) + "-byte region of " +
                              device_path + ": " + std::strerror(errno));
  }
  t->region_.TakeMapping(device_path, static_cast<uint8_t*>(p), phys, size);
  t->coherence_ = coherent != 0      ? Coherence::kCoherent
                  : options.uncached ? Coherence::kUncached
                                     : Coherence::kNonCoherent;
  *out = std::move(t);
  return Status::Ok();
}

Status UdmabufTransport::Allocate(uint64_t bytes, uint64_t align, DmaBuffer* buffer) {
  return region_.Allocate(bytes, align, buffer);
}

Status UdmabufTransport::Free(const DmaBuffer& buffer) { return region_.Free(buffer); }

Status UdmabufTransport::Sync(const DmaBuffer& buffer, uint64_t offset, uint64_t bytes,
                              const char* attribute, unsigned direction) {
  LOOM_RETURN_IF_ERROR(region_.CheckRange(buffer, offset, bytes, attribute));
  if (bytes == 0 || coherence_ != Coherence::kNonCoherent) return Status::Ok();
  // Whole cache lines, clamped to the region (its size is a multiple of a line).
  const uint64_t rel = buffer.device_address - region_.phys() + offset;
  const uint64_t start = rel & ~(kCacheLine - 1);
  uint64_t stop = (rel + bytes + kCacheLine - 1) & ~(kCacheLine - 1);
  if (stop > region_.bytes()) stop = region_.bytes();
  const uint64_t len = stop - start;
  // u-dma-buf's one-write form: the high 32 bits are the offset, the low 32 the size (a multiple of
  // 16) with the direction in bits 3:2 and bit 0 set. It leaves sync_offset/sync_size untouched.
  if (start > 0xFFFFFFFFu || len > 0xFFFFFFF0u) {
    return OutOfRange(std::string(attribute) + " of " + std::to_string(len) + " bytes at offset " +
                      Hex(start) + " in " + region_.path() +
                      ": u-dma-buf's sync command takes 32-bit offsets and sizes");
  }
  char cmd[32];
  snprintf(cmd, sizeof(cmd), "0x%08X%08X", static_cast<unsigned>(start),
           static_cast<unsigned>(len | (direction << 2) | 1u));
  return WriteAttribute(sysfs_dir_ + "/" + attribute, "u-dma-buf sync command", cmd);
}

Status UdmabufTransport::SyncForDevice(const DmaBuffer& buffer, uint64_t offset, uint64_t bytes) {
  return Sync(buffer, offset, bytes, "sync_for_device", kToDevice);
}

Status UdmabufTransport::SyncForCpu(const DmaBuffer& buffer, uint64_t offset, uint64_t bytes) {
  return Sync(buffer, offset, bytes, "sync_for_cpu", kFromDevice);
}

}  // namespace loom::runtime::zynq
