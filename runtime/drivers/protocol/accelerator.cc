#include "runtime/drivers/protocol/accelerator.h"

#include <cstdio>

#include "runtime/drivers/protocol/registers.h"

namespace loom::runtime {

namespace {

std::string Hex64(uint64_t v) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(v));
  return buf;
}

std::string VersionText(uint32_t v) {
  return std::to_string(v >> 16 & 0xff) + "." + std::to_string(v >> 8 & 0xff) + "." +
         std::to_string(v & 0xff);
}

// TOKENS holds one byte per queue, in isa::Queue order.
std::string TokenCounts(uint32_t tokens, bool only_nonzero) {
  std::string s;
  for (int q = 0; q < isa::kNumQueues; ++q) {
    const uint32_t n = tokens >> (8 * q) & 0xff;
    if (only_nonzero && n == 0) continue;
    if (!s.empty()) s += ", ";
    s += std::string(isa::QueueName(static_cast<isa::Queue>(q))) + " " + std::to_string(n);
  }
  return s;
}

}  // namespace

Status Accelerator::Read64(uint32_t lo, uint64_t* value) {
  uint32_t l = 0, h = 0;
  LOOM_RETURN_IF_ERROR(regs_->Read32(lo, &l));
  LOOM_RETURN_IF_ERROR(regs_->Read32(lo + 4, &h));
  *value = uint64_t{h} << 32 | l;
  return Status::Ok();
}

Status Accelerator::Open(RegisterTransport* regs, const HwConfig& config, const char* device) {
  regs_ = nullptr;
  running_ = false;
  counters_ = DeviceCounters{};
  device_ = device;
  LOOM_RETURN_IF_ERROR(isa::Layout::Create(config, &layout_).WithContext("config " + config.name));
  uint32_t version = 0;
  uint64_t hash = 0;
  regs_ = regs;
  Status s = regs_->Read32(reg::kVersion, &version);
  if (s.ok()) s = Read64(reg::kConfigHashLo, &hash);
  if (!s.ok()) {
    regs_ = nullptr;
    return s.WithContext(Where() + "reading VERSION and CONFIG_HASH at open");
  }
  if (version >> 16 != reg::kExpectedVersion >> 16) {
    regs_ = nullptr;
    return FailedPrecondition(
        Where() + "the accelerator reports VERSION " + VersionText(version) + " (0x" +
        Hex64(version).substr(8) + "), but this driver speaks major " + "version " +
        std::to_string(reg::kExpectedVersion >> 16) + " (expects " +
        VersionText(reg::kExpectedVersion) + "); load a matching bitstream or update the runtime");
  }
  if (hash != config.CompatibilityHash()) {
    regs_ = nullptr;
    return FailedPrecondition(Where() + "config " + config.name + " has hash " + config.HashHex() +
                              ", but the accelerator reports CONFIG_HASH " + Hex64(hash) +
                              "; it was built for another config, so programs for " + config.name +
                              " cannot run on it");
  }
  config_ = config;
  const Status irq = regs_->EnableInterrupt();
  if (irq.ok()) {
    use_irq_ = true;
  } else if (irq.code() == StatusCode::kUnimplemented) {
    use_irq_ = false;
  } else {
    regs_ = nullptr;
    return irq.WithContext(Where() + "enabling the interrupt");
  }
  return Status::Ok();
}

Status Accelerator::Start(uint64_t insn_addr, uint32_t insn_count, const uint8_t* stream) {
  if (!regs_) return FailedPrecondition(Where() + "the accelerator is not open");
  if (running_) return FailedPrecondition(Where() + "a run is already in flight");
  if (insn_addr % HwConfig::kInsnBytes != 0) {
    return InvalidArgument(Where() + "instruction stream address 0x" + Hex64(insn_addr) +
                           " is not 16-byte aligned");
  }
  uint32_t ctrl = 0;
  LOOM_RETURN_IF_ERROR(regs_->Read32(reg::kCtrl, &ctrl));
  if (!(ctrl & reg::kCtrlIdle)) {
    return FailedPrecondition(Where() + "the accelerator is busy (CTRL 0x" + Hex64(ctrl).substr(8) +
                              "): a previous run never finished");
  }
  LOOM_RETURN_IF_ERROR(regs_->Write32(reg::kInsnAddrLo, static_cast<uint32_t>(insn_addr)));
  LOOM_RETURN_IF_ERROR(regs_->Write32(reg::kInsnAddrHi, static_cast<uint32_t>(insn_addr >> 32)));
  LOOM_RETURN_IF_ERROR(regs_->Write32(reg::kInsnCount, insn_count));
  // The done interrupt is wanted only when something waits for it; a polled device keeps it off.
  LOOM_RETURN_IF_ERROR(regs_->Write32(reg::kGie, use_irq_ ? 1 : 0));
  LOOM_RETURN_IF_ERROR(regs_->Write32(reg::kIer, use_irq_ ? 1 : 0));
  insn_addr_ = insn_addr;
  insn_count_ = insn_count;
  stream_ = stream;
  counters_ = DeviceCounters{};
  LOOM_RETURN_IF_ERROR(regs_->Write32(reg::kCtrl, reg::kCtrlStart));
  running_ = true;
  return Status::Ok();
}

Status Accelerator::WaitDone(uint64_t timeout_ns, bool* done) {
  *done = false;
  const uint64_t start = regs_->NowNanos();
  uint32_t ctrl = 0;
  for (;;) {
    LOOM_RETURN_IF_ERROR(regs_->Read32(reg::kCtrl, &ctrl));
    if (ctrl & reg::kCtrlDone) {
      *done = true;
      return Status::Ok();
    }
    const uint64_t spent = regs_->NowNanos() - start;
    if (spent >= timeout_ns || regs_->ExpiredHostLimitMs() != 0) return Status::Ok();
    if (!use_irq_) {
      regs_->Pause(kPollMicros);
      continue;
    }
    // UIO masks the interrupt after each one it delivers: unmask before every wait. A done that
    // came before the unmask stays pending (level interrupt), and CTRL is read again anyway.
    // (Contexts are added only on failure: a run that succeeds builds no strings.)
    Status s = regs_->EnableInterrupt();
    if (!s.ok()) return s.WithContext(Where() + "re-enabling the interrupt");
    const uint64_t left_ms = (timeout_ns - spent + 999999) / 1000000;
    const int slice = left_ms < static_cast<uint64_t>(kInterruptSliceMs) ? static_cast<int>(left_ms)
                                                                         : kInterruptSliceMs;
    bool fired = false;
    s = regs_->WaitInterrupt(slice, &fired);
    if (!s.ok()) return s.WithContext(Where() + "waiting for the interrupt");
  }
}

Status Accelerator::Wait(uint64_t timeout_ns) {
  if (!regs_) return FailedPrecondition(Where() + "the accelerator is not open");
  if (!running_) return FailedPrecondition(Where() + "nothing was started");
  bool done = false;
  const Status waited = WaitDone(timeout_ns, &done);
  if (!waited.ok()) {
    running_ = false;
    return waited;
  }
  if (!done) {
    Status hang = HangStatus(timeout_ns, regs_->ExpiredHostLimitMs());
    // Back to idle where the transport can do it, so the device stays usable; a board without
    // a reset line stays busy and the next Start says so.
    const Status reset = regs_->ResetAccelerator();
    running_ = false;
    if (!reset.ok() && reset.code() != StatusCode::kUnimplemented) {
      return Status(hang.code(),
                    hang.message() + "; resetting the accelerator failed: " + reset.message());
    }
    return hang;
  }
  running_ = false;
  if (use_irq_) LOOM_RETURN_IF_ERROR(regs_->Write32(reg::kIsr, 1));  // W1C
  LOOM_RETURN_IF_ERROR(ReadCountersFromDevice());
  uint32_t status = 0, insn = 0;
  LOOM_RETURN_IF_ERROR(regs_->Read32(reg::kStatus, &status));
  if (status & reg::kStatusError) {
    LOOM_RETURN_IF_ERROR(regs_->Read32(reg::kErrorInsn, &insn));
    return ErrorStatus(reg::StatusCode(status), insn);
  }
  return Status::Ok();
}

Status Accelerator::ReadCountersFromDevice() {
  DeviceCounters c;
  uint32_t v = 0;
  LOOM_RETURN_IF_ERROR(Read64(reg::kCyclesLo, &c.cycles));
  const uint32_t busy[isa::kNumModules] = {reg::kLoadBusy, reg::kComputeBusy, reg::kStoreBusy};
  for (int m = 0; m < isa::kNumModules; ++m) {
    LOOM_RETURN_IF_ERROR(regs_->Read32(busy[m], &v));
    c.busy[m] = v;
  }
  LOOM_RETURN_IF_ERROR(regs_->Read32(reg::kGemmIters, &v));
  c.macs = uint64_t{v} * config_.macs_per_cycle();
  LOOM_RETURN_IF_ERROR(Read64(reg::kBytesReadLo, &c.bytes_loaded));
  LOOM_RETURN_IF_ERROR(Read64(reg::kBytesWrittenLo, &c.bytes_stored));
  LOOM_RETURN_IF_ERROR(regs_->Read32(reg::kFetched, &v));
  c.insns = v;
  c.valid = true;
  counters_ = c;
  return Status::Ok();
}

Status Accelerator::ReadCounters(DeviceCounters* out) {
  if (!regs_) return FailedPrecondition(Where() + "the accelerator is not open");
  *out = counters_;
  return Status::Ok();
}

bool Accelerator::DecodeAt(uint32_t index, isa::Insn* insn, std::string* why) const {
  if (!stream_ || index >= insn_count_) {
    *why = "?";
    return false;
  }
  const Status s =
      isa::Decode(layout_, isa::LoadWord(stream_ + uint64_t{index} * HwConfig::kInsnBytes), insn);
  if (!s.ok()) *why = "undecodable: " + s.message();
  return s.ok();
}

std::string Accelerator::Describe(uint32_t index) const {
  isa::Insn insn;
  std::string why;
  return DecodeAt(index, &insn, &why) ? isa::Disassemble(insn) : why;
}

Status Accelerator::ErrorStatus(uint32_t code, uint32_t insn) {
  const std::string where = Where() + "instruction " + std::to_string(insn);
  uint32_t tokens = 0;
  switch (code) {
    case reg::kErrInvalidInsn:
      // The hardware only says "invalid"; the decoder says why.
      return InvalidArgument(where + ": the accelerator rejected the instruction word (" +
                             Describe(insn) + ")");
    case reg::kErrTokens:
      LOOM_RETURN_IF_ERROR(regs_->Read32(reg::kTokens, &tokens));
      return FailedPrecondition(Where() + "token imbalance at FINISH (instruction " +
                                std::to_string(insn) + "): " + TokenCounts(tokens, true) +
                                " tokens left; every push needs a matching pop");
    case reg::kErrDram:
      return OutOfRange(where + " (" + Describe(insn) +
                        "): the memory system answered a DRAM access with an error (outside "
                        "device memory?)");
    case reg::kErrStream:
      if (insn_count_ == 0) {
        return InvalidArgument(Where() + "empty instruction stream (INSN_COUNT 0, no FINISH)");
      }
      return InvalidArgument(where + " (" + Describe(insn) +
                             "): the stream must end with its only FINISH");
    default:
      return Internal(Where() + "the accelerator reported unknown error code " +
                      std::to_string(code) + " (STATUS[7:4]) at instruction " +
                      std::to_string(insn));
  }
}

std::string Accelerator::ModuleNow(isa::Module m, uint32_t last, uint32_t fetched,
                                   RegisterTransport::SequencerState state) const {
  using State = RegisterTransport::SequencerState;
  // Each module takes its instructions in stream order, so the one it holds or waits for is its
  // first after the last it completed.
  uint32_t next = last;
  isa::Insn insn;
  std::string why;
  for (; next < insn_count_; ++next) {
    if (!stream_) return "its next instruction is unknown (no host copy of the stream)";
    if (DecodeAt(next, &insn, &why) && insn.module() == m) break;
  }
  if (next >= insn_count_) return "no instruction left";
  const std::string at =
      "instruction " + std::to_string(next) + " (" + isa::Disassemble(insn) + ")";
  isa::Queue q = isa::Queue::kLoadToCompute;
  const isa::Side side =
      state == State::kPopPrev || state == State::kPushPrev ? isa::Side::kPrev : isa::Side::kNext;
  switch (state) {
    case State::kExec:
      return "executing " + at;
    case State::kPopPrev:
    case State::kPopNext:
      if (!isa::PopQueue(m, side, &q)) break;
      return at + " waits for a token on " + isa::QueueName(q);
    case State::kPushPrev:
    case State::kPushNext:
      if (!isa::PushQueue(m, side, &q)) break;
      return at + " waits for room on " + isa::QueueName(q);
    case State::kNoInsn:
      return (next < fetched ? "idle before " : "waiting for the fetch of ") + at;
    case State::kUnknown:
      return (next < fetched ? "at " : "next to fetch: ") + at;
  }
  return "at " + at;
}

Status Accelerator::HangStatus(uint64_t timeout_ns, uint32_t host_limit_ms) {
  // The sequencers' states first: register reads may let the device run on.
  RegisterTransport::SequencerState states[isa::kNumModules];
  for (int m = 0; m < isa::kNumModules; ++m) states[m] = regs_->ModuleState(m);
  const uint32_t last_regs[isa::kNumModules] = {reg::kLoadLast, reg::kComputeLast, reg::kStoreLast};
  uint32_t tokens = 0, fetched = 0;
  uint64_t cycles = 0;
  LOOM_RETURN_IF_ERROR(regs_->Read32(reg::kTokens, &tokens));
  LOOM_RETURN_IF_ERROR(regs_->Read32(reg::kFetched, &fetched));
  LOOM_RETURN_IF_ERROR(Read64(reg::kCyclesLo, &cycles));
  std::string msg = Where();
  if (host_limit_ms != 0) {
    msg += "no FINISH within the wall-clock limit of " + std::to_string(host_limit_ms) + " ms (" +
           std::to_string(cycles) +
           " cycles simulated): the program deadlocks, or runs longer than the limit allows.";
  } else {
    const uint64_t ms = timeout_ns / 1000000;
    msg += "no FINISH within " +
           (ms * 1000000 == timeout_ns ? std::to_string(ms) + " ms"
                                       : std::to_string(timeout_ns) + " ns") +
           " of device time (CYCLES " + std::to_string(cycles) +
           "): the program deadlocks, or needs a longer timeout.";
  }
  for (int m = 0; m < isa::kNumModules; ++m) {
    uint32_t last = 0;
    LOOM_RETURN_IF_ERROR(regs_->Read32(last_regs[m], &last));
    msg += std::string(" ") + isa::ModuleName(static_cast<isa::Module>(m)) + ": ";
    msg += last == 0 ? std::string("no instruction completed")
                     : "last completed instruction " + std::to_string(last - 1) + " (" +
                           Describe(last - 1) + ")";
    msg += ", now " + ModuleNow(static_cast<isa::Module>(m), last, fetched, states[m]) + ";";
  }
  msg += " tokens: " + TokenCounts(tokens, false) + "; " + std::to_string(fetched) + " of " +
         std::to_string(insn_count_) + " instructions dispatched (FETCHED)";
  return Status(StatusCode::kDeadlineExceeded, msg);
}

}  // namespace loom::runtime
