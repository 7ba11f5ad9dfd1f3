#include "runtime/drivers/tsim/tsim_transport.h"

#include <cstring>
#include <utility>

#include "runtime/drivers/protocol/registers.h"

namespace loom::runtime {

Status CreateTsimHarness(const HwConfig& config, uint64_t dram_bytes, const std::string& waves,
                         std::shared_ptr<tsim::Harness>* out) {
  LOOM_RETURN_IF_ERROR(config.Validate().WithContext("config " + config.name));
  const tsim::ModelInfo* model = nullptr;
  LOOM_RETURN_IF_ERROR(tsim::FindModel(config, &model));
  std::unique_ptr<tsim::Harness> h;
  LOOM_RETURN_IF_ERROR(tsim::Harness::Create(*model, dram_bytes, waves, &h));
  *out = std::move(h);
  return Status::Ok();
}

// --- Registers.

TsimRegisters::TsimRegisters(std::shared_ptr<tsim::Harness> harness, const HwConfig& config,
                             uint32_t wall_timeout_ms)
    : harness_(std::move(harness)), config_(config), wall_timeout_ms_(wall_timeout_ms) {
  (void)isa::Layout::Create(config_, &layout_);  // an invalid config fails the protocol's open
  harness_->ctrl().AddPlugin(&tracer_);          // records only while armed
}

TsimRegisters::~TsimRegisters() = default;

uint64_t TsimRegisters::CyclesFor(uint64_t micros) const {
  const double cycles = static_cast<double>(micros) * config_.clock_mhz;
  // 2^63 cycles is centuries at any clock; the comparison also keeps a NaN clock finite.
  return cycles < 9.2e18 ? static_cast<uint64_t>(cycles) : uint64_t{1} << 63;
}

Status TsimRegisters::Read32(uint32_t offset, uint32_t* value) {
  if (offset % 4 != 0 || offset >= 0x100) {
    return OutOfRange("tsim: register offset " + std::to_string(offset) +
                      " is not 4-byte aligned inside the 256-byte window");
  }
  return harness_->regs().Read(offset, value);
}

Status TsimRegisters::Write32(uint32_t offset, uint32_t value) {
  if (offset % 4 != 0 || offset >= 0x100) {
    return OutOfRange("tsim: register offset " + std::to_string(offset) +
                      " is not 4-byte aligned inside the 256-byte window");
  }
  if (offset == reg::kInsnAddrLo) insn_addr_lo_ = value;
  if (offset == reg::kInsnAddrHi) insn_addr_hi_ = value;
  if (offset == reg::kInsnCount) insn_count_ = value;
  const bool start = offset == reg::kCtrl && (value & reg::kCtrlStart);
  if (start && trace_) {
    // The stream as the hardware will fetch it; a stream it will refuse is traced with its
    // undecodable instructions as empty ones, and the run reports the error itself.
    const uint64_t addr = uint64_t{insn_addr_hi_} << 32 | insn_addr_lo_;
    const uint64_t bytes = uint64_t{insn_count_} * HwConfig::kInsnBytes;
    program_.clear();
    if (harness_->dram().Contains(addr, bytes)) {
      program_.assign(insn_count_, isa::Insn{});
      for (uint32_t i = 0; i < insn_count_; ++i) {
        const uint8_t* word = harness_->dram().At(addr + uint64_t{i} * HwConfig::kInsnBytes);
        if (!isa::Decode(layout_, isa::LoadWord(word), &program_[i]).ok()) program_[i] = {};
      }
    }
  }
  LOOM_RETURN_IF_ERROR(harness_->regs().Write(offset, value));
  if (start) {
    deadline_ = sim::Deadline(wall_timeout_ms_);
    // The run starts in the cycle after the START write is taken.
    if (trace_) {
      events_.clear();
      tracer_.Arm(program_, harness_->ctrl().cycle());
      tracing_ = true;
    }
  }
  return Status::Ok();
}

Status TsimRegisters::EnableInterrupt() {
  masked_ = false;
  return Status::Ok();
}

Status TsimRegisters::WaitInterrupt(int timeout_ms, bool* fired) {
  tsim::SimCtrl& ctrl = harness_->ctrl();
  const uint64_t cycles = CyclesFor(uint64_t(timeout_ms < 0 ? 0 : timeout_ms) * 1000);
  if (masked_) {
    // UIO delivers nothing while masked: the time passes, the interrupt stays pending.
    ctrl.StepUntil([] { return false; }, cycles, &deadline_);
    *fired = false;
    return Status::Ok();
  }
  *fired = ctrl.StepUntil([&] { return harness_->irq(); }, cycles, &deadline_);
  if (*fired) masked_ = true;
  return Status::Ok();
}

uint64_t TsimRegisters::NowNanos() {
  return static_cast<uint64_t>(static_cast<double>(harness_->ctrl().cycle()) * 1000.0 /
                               config_.clock_mhz);
}

void TsimRegisters::Pause(uint32_t micros) {
  harness_->ctrl().StepUntil([] { return false; }, CyclesFor(micros), &deadline_);
}

uint32_t TsimRegisters::ExpiredHostLimitMs() {
  return deadline_.Passed() ? static_cast<uint32_t>(deadline_.limit_ms()) : 0;
}

RegisterTransport::SequencerState TsimRegisters::ModuleState(int module) {
  switch (tsim::DecodeSeqTrace(harness_->ctrl().ports().trace, module).state) {
    case tsim::SeqState::kNoInsn:
      return SequencerState::kNoInsn;
    case tsim::SeqState::kExec:
      return SequencerState::kExec;
    case tsim::SeqState::kPopPrev:
      return SequencerState::kPopPrev;
    case tsim::SeqState::kPopNext:
      return SequencerState::kPopNext;
    case tsim::SeqState::kPushPrev:
      return SequencerState::kPushPrev;
    case tsim::SeqState::kPushNext:
      return SequencerState::kPushNext;
  }
  return SequencerState::kUnknown;
}

Status TsimRegisters::ResetAccelerator() {
  if (tracing_) {
    // The timeline up to the hang, before the reset clears the trace port.
    events_ = tracer_.Events();
    tracer_.Disarm();
    tracing_ = false;
  }
  harness_->ctrl().Reset();
  masked_ = false;
  return Status::Ok();
}

void TsimRegisters::FinishTrace(std::vector<isa::Insn>* program,
                                std::vector<sim::TraceEvent>* events) {
  if (tracing_) {
    events_ = tracer_.Events();
    tracer_.Disarm();
    tracing_ = false;
  }
  *program = trace_ ? program_ : std::vector<isa::Insn>{};
  *events = trace_ ? events_ : std::vector<sim::TraceEvent>{};
}

// --- DMA memory.

TsimDma::TsimDma(std::shared_ptr<tsim::Harness> harness, bool stale_cache)
    : harness_(std::move(harness)), stale_cache_(stale_cache) {
  const sim::Dram& dram = harness_->dram();
  heap_.Reset(dram.base(), dram.size());
  if (stale_cache_) shadow_.assign(dram.size(), 0);
}

Status TsimDma::Allocate(uint64_t bytes, uint64_t align, DmaBuffer* buffer) {
  uint64_t addr = 0;
  LOOM_RETURN_IF_ERROR(heap_.Allocate(bytes, align, &addr));
  sim::Dram& dram = harness_->dram();
  buffer->device_address = addr;
  buffer->bytes = bytes;
  buffer->host = stale_cache_ ? static_cast<void*>(shadow_.data() + (addr - dram.base()))
                              : static_cast<void*>(dram.At(addr));
  return Status::Ok();
}

Status TsimDma::Free(const DmaBuffer& buffer) { return heap_.Free(buffer.device_address); }

Status TsimDma::Check(const char* what, const DmaBuffer& buffer, uint64_t offset,
                      uint64_t bytes) const {
  if (offset > buffer.bytes || bytes > buffer.bytes - offset ||
      !heap_.Contains(buffer.device_address + offset, bytes)) {
    return OutOfRange(std::string("tsim: ") + what + " of [" + std::to_string(offset) + ", +" +
                      std::to_string(bytes) + ") of the buffer at device address " +
                      std::to_string(buffer.device_address) + " (" + std::to_string(buffer.bytes) +
                      " bytes): not inside the buffer, or the buffer is not allocated");
  }
  return Status::Ok();
}

Status TsimDma::SyncForDevice(const DmaBuffer& buffer, uint64_t offset, uint64_t bytes) {
  LOOM_RETURN_IF_ERROR(Check("SyncForDevice", buffer, offset, bytes));
  if (!stale_cache_ || bytes == 0) return Status::Ok();
  const uint64_t at = buffer.device_address + offset - harness_->dram().base();
  std::memcpy(harness_->dram().At(buffer.device_address + offset), shadow_.data() + at, bytes);
  return Status::Ok();
}

Status TsimDma::SyncForCpu(const DmaBuffer& buffer, uint64_t offset, uint64_t bytes) {
  LOOM_RETURN_IF_ERROR(Check("SyncForCpu", buffer, offset, bytes));
  if (!stale_cache_ || bytes == 0) return Status::Ok();
  const uint64_t at = buffer.device_address + offset - harness_->dram().base();
  std::memcpy(shadow_.data() + at, harness_->dram().At(buffer.device_address + offset), bytes);
  return Status::Ok();
}

}  // namespace loom::runtime
