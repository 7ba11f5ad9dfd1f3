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
  LOOM_RETURN_IF_ERROR(ReadAttributeU64(t->sysfs_dir_ + "/phys_addr", "u-dma-buf physical address",
                                        true, &t->phys_addr_));
  LOOM_RETURN_IF_ERROR(
      ReadAttributeU64(t->sysfs_dir_ + "/size", "u-dma-buf size", false, &t->size_));
  uint64_t coherent = 0;
  LOOM_RETURN_IF_ERROR(ReadAttributeU64(t->sysfs_dir_ + "/dma_coherent", "u-dma-buf dma_coherent",
                                        false, &coherent));
  if (t->size_ == 0 || t->size_ % kCacheLine != 0) {
    return InvalidArgument("u-dma-buf size " + std::to_string(t->size_) + " in " + t->sysfs_dir_ +
                           "/size is not a positive multiple of " + std::to_string(kCacheLine) +
                           " bytes; check the overlay's size property");
  }
  uint64_t end;
  const bool fits = CheckedAdd(t->phys_addr_, t->size_, &end) &&
                    (options.address_bits == 64 || end <= (uint64_t{1} << options.address_bits));
  if (!fits) {
    return OutOfRange("u-dma-buf region " + Hex(t->phys_addr_) + " + " + Hex(t->size_) + " (" +
                      t->sysfs_dir_ + ") ends above the " + std::to_string(options.address_bits) +
                      "-bit address range the accelerator can reach; reserve the region lower "
                      "(a memory-region below 2^" +
                      std::to_string(options.address_bits) + ")");
  }
  size_t len;
  if (!CheckedCast(t->size_, &len)) {
    return OutOfRange("u-dma-buf size " + std::to_string(t->size_) + " does not fit this process");
  }
  t->device_path_ = UnderRoot(options.root, "/dev/" + options.name);
  t->fd_ = open(t->device_path_.c_str(), O_RDWR | O_CLOEXEC | (options.uncached ? O_SYNC : 0));
  if (t->fd_ < 0) {
    const int err = errno;
    return OpenError(err, "cannot open u-dma-buf device " + t->device_path_ + ": " + OpenHint(err));
  }
  // Tests stand a regular file in for the device; a short one would fault on access.
  if (fstat(t->fd_, &st) == 0 && S_ISREG(st.st_mode) &&
      static_cast<uint64_t>(st.st_size) < t->size_) {
    return DataLoss("u-dma-buf device " + t->device_path_ + " holds " + std::to_string(st.st_size) +
                    " bytes, less than its size attribute (" + std::to_string(t->size_) + ")");
  }
  void* p = mmap(nullptr, len, PROT_READ | PROT_WRITE, MAP_SHARED, t->fd_, 0);
  if (p == MAP_FAILED) {
    return FailedPrecondition("cannot map the " + std::to_string(t->size_) + "-byte region of " +
                              t->device_path_ + ": " + std::strerror(errno));
  }
  t->base_ = static_cast<uint8_t*>(p);
  t->coherence_ = coherent != 0      ? Coherence::kCoherent
                  : options.uncached ? Coherence::kUncached
                                     : Coherence::kNonCoherent;
  t->heap_.Reset(t->phys_addr_, t->size_);
  *out = std::move(t);
  return Status::Ok();
}

UdmabufTransport::~UdmabufTransport() {
  if (base_ != nullptr) munmap(base_, static_cast<size_t>(size_));
  if (fd_ >= 0) close(fd_);
}

Status UdmabufTransport::Allocate(uint64_t bytes, uint64_t align, DmaBuffer* buffer) {
  uint64_t addr;
  LOOM_RETURN_IF_ERROR(heap_.Allocate(bytes, align, &addr).WithContext(device_path_));
  buffer->device_address = addr;
  buffer->host = base_ + (addr - phys_addr_);
  buffer->bytes = bytes;
  return Status::Ok();
}

Status UdmabufTransport::Free(const DmaBuffer& buffer) {
  return heap_.Free(buffer.device_address).WithContext(device_path_);
}

Status UdmabufTransport::Sync(const DmaBuffer& buffer, uint64_t offset, uint64_t bytes,
                              const char* attribute, unsigned direction) {
  uint64_t end, addr;
  if (!CheckedAdd(offset, bytes, &end) || end > buffer.bytes ||
      !CheckedAdd(buffer.device_address, offset, &addr) ||
      !heap_.Contains(addr, bytes ? bytes : 1)) {
    return OutOfRange(std::string(attribute) + " of [" + std::to_string(offset) + ", +" +
                      std::to_string(bytes) + ") on DMA buffer " + Hex(buffer.device_address) +
                      " (" + std::to_string(buffer.bytes) + " bytes) of " + device_path_ +
                      ": not inside a live allocation");
  }
  if (bytes == 0 || coherence_ != Coherence::kNonCoherent) return Status::Ok();
  // Whole cache lines, clamped to the region (its size is a multiple of a line).
  const uint64_t rel = buffer.device_address - phys_addr_ + offset;
  const uint64_t start = rel & ~(kCacheLine - 1);
  uint64_t stop = (rel + bytes + kCacheLine - 1) & ~(kCacheLine - 1);
  if (stop > size_) stop = size_;
  const uint64_t len = stop - start;
  // u-dma-buf's one-write form: the high 32 bits are the offset, the low 32 the size (a multiple of
  // 16) with the direction in bits 3:2 and bit 0 set. It leaves sync_offset/sync_size untouched.
  if (start > 0xFFFFFFFFu || len > 0xFFFFFFF0u) {
    return OutOfRange(std::string(attribute) + " of " + std::to_string(len) + " bytes at offset " +
                      Hex(start) + " in " + device_path_ +
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
