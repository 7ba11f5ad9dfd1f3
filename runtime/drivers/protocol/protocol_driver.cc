#include "runtime/drivers/protocol/protocol_driver.h"

#include <cstring>
#include <utility>

namespace loom::runtime {

std::unique_ptr<Driver> CreateProtocolDriver(const char* name, OpenTransportsFn open) {
  return std::make_unique<ProtocolDriver>(name, open);
}

ProtocolDriver::~ProtocolDriver() { Close(); }

Status ProtocolDriver::OpenTransports(const DriverOptions& options, Transports* out) {
  if (!open_) return Internal(std::string(name_) + ": no transports to open");
  return open_(options, out);
}

Status ProtocolDriver::Open(const DriverOptions& options) {
  if (is_open()) return FailedPrecondition(std::string(name_) + " device is already open");
  Transports t;
  LOOM_RETURN_IF_ERROR(OpenTransports(options, &t));
  if (!t.regs || !t.dma) {
    return Internal(std::string(name_) + ": opening the transports returned no " +
                    (t.regs ? "DMA" : "register") + " transport");
  }
  transports_ = std::move(t);
  Status s = accel_.Open(transports_.regs.get(), options.config, name_);
  if (s.ok()) {
    config_ = options.config;
    s = OnOpen(options);
  }
  if (!s.ok()) {
    Close();
    return s;
  }
  return Status::Ok();
}

void ProtocolDriver::Close() {
  if (transports_.regs || transports_.dma) OnClose();
  if (transports_.dma) {
    for (const auto& [addr, buffer] : buffers_) (void)transports_.dma->Free(buffer);
  }
  buffers_.clear();
  accel_ = Accelerator();
  transports_ = Transports();
  config_ = HwConfig();
}

Status ProtocolDriver::CheckOpen() const {
  return is_open() ? Status::Ok() : FailedPrecondition(std::string(name_) + " device is not open");
}

const DmaBuffer* ProtocolDriver::Find(uint64_t addr, uint64_t bytes) const {
  auto it = buffers_.upper_bound(addr);
  if (it == buffers_.begin()) return nullptr;
  --it;
  const DmaBuffer& b = it->second;
  const uint64_t off = addr - b.device_address;
  if (off > b.bytes || bytes > b.bytes - off) return nullptr;
  return &b;
}

Status ProtocolDriver::RangeError(const char* what, uint64_t addr, uint64_t bytes) const {
  return OutOfRange(std::string(name_) + ": " + what + " device range [" + std::to_string(addr) +
                    ", +" + std::to_string(bytes) + ") is not inside an allocation");
}

Status ProtocolDriver::Allocate(uint64_t bytes, uint64_t align, uint64_t* addr) {
  LOOM_RETURN_IF_ERROR(CheckOpen());
  if (bytes == 0) return InvalidArgument(std::string(name_) + ": allocation of 0 bytes");
  DmaBuffer b;
  LOOM_RETURN_IF_ERROR(transports_.dma->Allocate(bytes, align, &b));
  if (!b.host || b.bytes < bytes) {
    (void)transports_.dma->Free(b);
    return Internal(std::string(name_) +
                    ": the DMA transport returned a buffer without a host "
                    "mapping or smaller than asked");
  }
  buffers_[b.device_address] = b;
  *addr = b.device_address;
  return Status::Ok();
}

Status ProtocolDriver::Free(uint64_t addr) {
  LOOM_RETURN_IF_ERROR(CheckOpen());
  auto it = buffers_.find(addr);
  if (it == buffers_.end()) {
    return InvalidArgument(std::string(name_) + ": Free of " + std::to_string(addr) +
                           ", which is not the start of an allocation");
  }
  const Status s = transports_.dma->Free(it->second);
  buffers_.erase(it);
  return s;
}

Status ProtocolDriver::CopyIn(uint64_t dst, const void* src, uint64_t bytes) {
  LOOM_RETURN_IF_ERROR(CheckOpen());
  const DmaBuffer* b = Find(dst, bytes);
  if (!b) return RangeError("CopyIn to", dst, bytes);
  const uint64_t off = dst - b->device_address;
  if (bytes != 0) std::memcpy(static_cast<uint8_t*>(b->host) + off, src, bytes);
  // The written range, no more: what a non-coherent port must see before the next start.
  return transports_.dma->SyncForDevice(*b, off, bytes);
}

Status ProtocolDriver::CopyOut(void* dst, uint64_t src, uint64_t bytes) {
  LOOM_RETURN_IF_ERROR(CheckOpen());
  const DmaBuffer* b = Find(src, bytes);
  if (!b) return RangeError("CopyOut from", src, bytes);
  const uint64_t off = src - b->device_address;
  LOOM_RETURN_IF_ERROR(transports_.dma->SyncForCpu(*b, off, bytes));
  if (bytes != 0) std::memcpy(dst, static_cast<const uint8_t*>(b->host) + off, bytes);
  return Status::Ok();
}

Status ProtocolDriver::Submit(uint64_t insn_addr, uint32_t insn_count) {
  LOOM_RETURN_IF_ERROR(CheckOpen());
  if (accel_.running()) {
    return FailedPrecondition(std::string(name_) + ": a submission is already in flight");
  }
  const DmaBuffer* b = Find(insn_addr, uint64_t{insn_count} * HwConfig::kInsnBytes);
  if (insn_addr % HwConfig::kInsnBytes != 0 || insn_count == 0 || !b) {
    return InvalidArgument(std::string(name_) + ": instruction stream at " +
                           std::to_string(insn_addr) + " (" + std::to_string(insn_count) +
                           " instructions) is not aligned or not inside an allocation");
  }
  // The host's copy of the stream: what the caller wrote, for the messages of errors and hangs.
  const uint8_t* stream = static_cast<const uint8_t*>(b->host) + (insn_addr - b->device_address);
  LOOM_RETURN_IF_ERROR(accel_.Start(insn_addr, insn_count, stream));
  OnStart(stream, insn_count);
  return Status::Ok();
}

Status ProtocolDriver::Wait(uint32_t timeout_ms) {
  LOOM_RETURN_IF_ERROR(CheckOpen());
  if (!accel_.running()) return FailedPrecondition(std::string(name_) + ": nothing submitted");
  return OnRunEnd(accel_.Wait(uint64_t{timeout_ms} * 1000000));
}

Status ProtocolDriver::ReadCounters(DeviceCounters* out) {
  LOOM_RETURN_IF_ERROR(CheckOpen());
  return accel_.ReadCounters(out);
}

}  // namespace loom::runtime
