#include "runtime/drivers/zynq/dma_option.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "runtime/core/checked_math.h"
#include "runtime/drivers/zynq/sysfs.h"

namespace loom::runtime::zynq {
namespace {

constexpr uint64_t kPage = 4096;

// "0x..." hexadecimal, else decimal.
bool ParseNumber(const std::string& s, uint64_t* out) {
  return ParseU64(s, /*hex=*/false, out) == NumberError::kNone;
}

std::string Hex(uint64_t v) {
  char buf[24];
  snprintf(buf, sizeof(buf), "0x%llx", static_cast<unsigned long long>(v));
  return buf;
}

}  // namespace

Status ParseDmaOption(const std::string& text, DmaOption* option) {
  DmaOption o;
  if (text == "udmabuf") {
    *option = o;
    return Status::Ok();
  }
  if (text.rfind("udmabuf:", 0) == 0) {
    o.udmabuf_name = text.substr(8);
    if (o.udmabuf_name.empty() || o.udmabuf_name.find('/') != std::string::npos ||
        o.udmabuf_name[0] == '.') {
      return InvalidArgument("dma=" + text + ": the u-dma-buf name must be a plain device name");
    }
    *option = o;
    return Status::Ok();
  }
  if (text.rfind("devmem:", 0) == 0) {
    const std::string rest = text.substr(7);
    const size_t colon = rest.find(':');
    if (colon == std::string::npos || !ParseNumber(rest.substr(0, colon), &o.devmem_addr) ||
        !ParseNumber(rest.substr(colon + 1), &o.devmem_bytes)) {
      return InvalidArgument("dma=" + text +
                             ": expected devmem:ADDR:SIZE with decimal or 0x-hex "
                             "numbers");
    }
    if (o.devmem_bytes == 0 || o.devmem_addr % kPage != 0 || o.devmem_bytes % kPage != 0) {
      return InvalidArgument("dma=" + text + ": ADDR and SIZE must be non-zero multiples of 4096");
    }
    o.kind = DmaOption::Kind::kDevmem;
    *option = o;
    return Status::Ok();
  }
  return InvalidArgument("dma=" + text + ": expected udmabuf, udmabuf:NAME or devmem:ADDR:SIZE");
}

Status DevmemTransport::Open(const std::string& root, uint64_t addr, uint64_t bytes,
                             int address_bits, std::unique_ptr<DevmemTransport>* out) {
  if (address_bits < 32 || address_bits > 64) {
    return InvalidArgument("DMA address width " + std::to_string(address_bits) +
                           " bits is outside 32..64");
  }
  uint64_t end;
  if (bytes == 0 || addr % kPage != 0 || bytes % kPage != 0 || !CheckedAdd(addr, bytes, &end) ||
      (address_bits < 64 && end > (uint64_t{1} << address_bits))) {
    return OutOfRange("/dev/mem DMA range " + Hex(addr) + " + " + Hex(bytes) +
                      " is not page-aligned or ends above the " + std::to_string(address_bits) +
                      "-bit address range the accelerator can reach");
  }
  size_t len;
  off_t off;
  if (!CheckedCast(bytes, &len) || !CheckedCast(addr, &off)) {
    return OutOfRange("/dev/mem DMA range " + Hex(addr) + " + " + Hex(bytes) +
                      " does not fit this process");
  }
  std::unique_ptr<DevmemTransport> t(new DevmemTransport());
  const std::string path = UnderRoot(root, "/dev/mem");
  const int fd = open(path.c_str(), O_RDWR | O_SYNC | O_CLOEXEC);
  if (fd < 0) {
    const int err = errno;
    return OpenError(err, "cannot open " + path + " for dma=devmem: " + OpenHint(err));
  }
  t->region_.TakeFd(fd);
  void* p = mmap(nullptr, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, off);
  if (p == MAP_FAILED) {
    return FailedPrecondition("cannot map " + Hex(addr) + " + " + Hex(bytes) + " of " + path +
                              ": " + std::strerror(errno) +
                              " (a kernel with CONFIG_STRICT_DEVMEM refuses RAM it manages)");
  }
  t->region_.TakeMapping(path, static_cast<uint8_t*>(p), addr, bytes);
  *out = std::move(t);
  return Status::Ok();
}

Status DevmemTransport::Allocate(uint64_t bytes, uint64_t align, DmaBuffer* buffer) {
  return region_.Allocate(bytes, align, buffer);
}

Status DevmemTransport::Free(const DmaBuffer& buffer) { return region_.Free(buffer); }

// Uncached mapping: nothing to clean or invalidate, but a bad range is still the caller's bug.
Status DevmemTransport::SyncForDevice(const DmaBuffer& buffer, uint64_t offset, uint64_t bytes) {
  return region_.CheckRange(buffer, offset, bytes, "sync for device");
}

Status DevmemTransport::SyncForCpu(const DmaBuffer& buffer, uint64_t offset, uint64_t bytes) {
  return region_.CheckRange(buffer, offset, bytes, "sync for cpu");
}

}  // namespace loom::runtime::zynq
