#include "runtime/drivers/mmio/mmio_transport.h"

#include <cstdio>
#include <string>

#include "runtime/core/platform.h"

namespace loom::runtime {
namespace {

std::string Hex(uint64_t v) {
  char b[24];
  std::snprintf(b, sizeof b, "0x%llx", static_cast<unsigned long long>(v));
  return b;
}

// Every earlier memory access completes before the next register access starts. On ARM a DMB
// orders normal memory against device memory only as other observers see it; the accelerator is
// started by the register write, so the stronger DSB is what makes the stream and buffers visible.
inline void WriteBarrier() {
#if defined(__arm__) || defined(__aarch64__)
  __asm__ volatile("dsb sy" ::: "memory");
#else
  __atomic_thread_fence(__ATOMIC_SEQ_CST);
#endif
}

}  // namespace

Status MmioRegisters::Check(const char* what, uint32_t offset) const {
  if (offset % 4 == 0 && bytes_ >= 4 && offset <= bytes_ - 4) return Status::Ok();
  return OutOfRange(std::string("mmio: ") + what + " at offset " + Hex(offset) +
                    " is not an aligned 32-bit register inside the window of " +
                    std::to_string(bytes_) + " bytes at " + Hex(base_));
}

Status MmioRegisters::Read32(uint32_t offset, uint32_t* value) {
  LOOM_RETURN_IF_ERROR(Check("read", offset));
  *value = *reinterpret_cast<const volatile uint32_t*>(base_ + offset);
  return Status::Ok();
}

Status MmioRegisters::Write32(uint32_t offset, uint32_t value) {
  LOOM_RETURN_IF_ERROR(Check("write", offset));
  WriteBarrier();
  *reinterpret_cast<volatile uint32_t*>(base_ + offset) = value;
  return Status::Ok();
}

Status MmioRegisters::EnableInterrupt() {
  return Unimplemented("mmio: no interrupt is wired to this transport; the protocol polls");
}

Status MmioRegisters::WaitInterrupt(int /*timeout_ms*/, bool* fired) {
  *fired = false;
  return Unimplemented("mmio: no interrupt is wired to this transport; the protocol polls");
}

uint64_t MmioRegisters::NowNanos() {
  return clock_.now_ns ? clock_.now_ns(clock_.ctx) : MonotonicNanos();
}

void MmioRegisters::Pause(uint32_t micros) {
  if (clock_.pause_us) {
    clock_.pause_us(clock_.ctx, micros);
  } else {
    PauseMicros(micros);
  }
}

StaticDmaMemory::StaticDmaMemory(void* host, uint64_t device_address, uint64_t bytes,
                                 Coherence coherence, DmaCacheOps cache)
    : host_(static_cast<uint8_t*>(host)),
      device_address_(device_address),
      bytes_(bytes),
      coherence_(coherence),
      cache_(cache) {
  heap_.Reset(device_address, bytes);
}

Status StaticDmaMemory::Allocate(uint64_t bytes, uint64_t align, DmaBuffer* buffer) {
  uint64_t addr = 0;
  if (Status s = heap_.Allocate(bytes, align, &addr); !s.ok()) {
    return s.WithContext("mmio: DMA region of " + std::to_string(bytes_) + " bytes at device " +
                         Hex(device_address_));
  }
  buffer->device_address = addr;
  buffer->host = host_ + (addr - device_address_);
  buffer->bytes = bytes;
  return Status::Ok();
}

Status StaticDmaMemory::Free(const DmaBuffer& buffer) {
  return heap_.Free(buffer.device_address).WithContext("mmio: DMA Free");
}

Status StaticDmaMemory::CheckRange(const char* what, const DmaBuffer& buffer, uint64_t offset,
                                   uint64_t bytes) const {
  if (offset <= buffer.bytes && bytes <= buffer.bytes - offset &&
      heap_.Contains(buffer.device_address, buffer.bytes)) {
    return Status::Ok();
  }
  return OutOfRange(std::string("mmio: ") + what + " of [" + std::to_string(offset) + ", +" +
                    std::to_string(bytes) + ") of the buffer at device " +
                    Hex(buffer.device_address) + " (" + std::to_string(buffer.bytes) +
                    " bytes), which is not inside it or not a live allocation");
}

Status StaticDmaMemory::SyncForDevice(const DmaBuffer& buffer, uint64_t offset, uint64_t bytes) {
  LOOM_RETURN_IF_ERROR(CheckRange("SyncForDevice", buffer, offset, bytes));
  if (coherence_ != Coherence::kNonCoherent || bytes == 0) return Status::Ok();
  if (!cache_.clean) {
    return FailedPrecondition("mmio: a non-coherent DMA region needs a cache clean operation");
  }
  cache_.clean(static_cast<const uint8_t*>(buffer.host) + offset, static_cast<size_t>(bytes));
  return Status::Ok();
}

Status StaticDmaMemory::SyncForCpu(const DmaBuffer& buffer, uint64_t offset, uint64_t bytes) {
  LOOM_RETURN_IF_ERROR(CheckRange("SyncForCpu", buffer, offset, bytes));
  if (coherence_ != Coherence::kNonCoherent || bytes == 0) return Status::Ok();
  if (!cache_.invalidate) {
    return FailedPrecondition("mmio: a non-coherent DMA region needs a cache invalidate operation");
  }
  cache_.invalidate(static_cast<uint8_t*>(buffer.host) + offset, static_cast<size_t>(bytes));
  return Status::Ok();
}

}  // namespace loom::runtime
