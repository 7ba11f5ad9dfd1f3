#include "sim/tsim/device.h"

#include <cstdio>
#include <utility>

#include "sim/tsim/registers.h"

namespace loom::tsim {

namespace {

std::string Hex64(uint64_t v) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(v));
  return buf;
}

const char* const kQueueNames[isa::kNumQueues] = {"load->compute", "compute->load",
                                                  "compute->store", "store->compute"};

// TOKENS holds one byte per queue, in isa::Queue order.
std::string TokenCounts(uint32_t tokens, bool only_nonzero) {
  std::string s;
  for (int q = 0; q < isa::kNumQueues; ++q) {
    const uint32_t n = tokens >> (8 * q) & 0xff;
    if (only_nonzero && n == 0) continue;
    if (!s.empty()) s += ", ";
    s += std::string(kQueueNames[q]) + " " + std::to_string(n);
  }
  return s;
}

}  // namespace

Device::Device(const HwConfig& config, std::unique_ptr<Harness> harness)
    : config_(config), harness_(std::move(harness)) {
  (void)isa::Layout::Create(config_, &layout_);  // validated in Create
  harness_->ctrl().AddPlugin(&tracer_);           // records only while armed
}

Status Device::Create(const HwConfig& config, uint64_t dram_bytes, std::unique_ptr<Device>* out,
                      const DeviceOptions& options) {
  LOOM_RETURN_IF_ERROR(config.Validate().WithContext("config " + config.name));
  const ModelInfo* model = nullptr;
  LOOM_RETURN_IF_ERROR(FindModel(config, &model));
  std::unique_ptr<Harness> harness;
  LOOM_RETURN_IF_ERROR(Harness::Create(*model, dram_bytes, options.waves, &harness));
  // The driver's check: the hardware says which config it was built for.
  uint64_t hash = 0;
  uint32_t version = 0;
  LOOM_RETURN_IF_ERROR(harness->Read64(reg::kConfigHashLo, &hash));
  LOOM_RETURN_IF_ERROR(harness->regs().Read(reg::kVersion, &version));
  if (hash != config.CompatibilityHash()) {
    return FailedPrecondition("config " + config.name + " has hash " + config.HashHex() +
                              ", but the RTL model '" + model->name + "' reports CONFIG_HASH " +
                              Hex64(hash) + "; programs for this config cannot run on it");
  }
  if (version >> 16 != reg::kExpectedVersion >> 16) {
    return FailedPrecondition("RTL VERSION " + std::to_string(version >> 16) + "." +
                              std::to_string(version >> 8 & 0xff) +
                              " is not the major version this driver speaks (" +
                              std::to_string(reg::kExpectedVersion >> 16) + ")");
  }
  out->reset(new Device(config, std::move(harness)));
  return Status::Ok();
}

Status Device::DecodeAt(const RunOptions& options, uint32_t index, isa::Insn* insn) {
  const uint64_t addr = options.insn_addr + uint64_t{index} * HwConfig::kInsnBytes;
  if (index >= options.insn_count || !dram().Contains(addr, HwConfig::kInsnBytes)) {
    return OutOfRange("instruction " + std::to_string(index) + " is not in the DRAM model");
  }
  return isa::Decode(layout_, isa::LoadWord(dram().At(addr)), insn);
}

std::string Device::Describe(const RunOptions& options, uint32_t index) {
  isa::Insn insn;
  const Status s = DecodeAt(options, index, &insn);
  if (s.code() == StatusCode::kOutOfRange) return "?";
  return s.ok() ? isa::Disassemble(insn) : "undecodable: " + s.message();
}

void Device::ReadProgram(const RunOptions& options) {
  // A stream the hardware will refuse is not traced, or traced with its undecodable instructions
  // as empty ones: the run reports the error itself.
  program_.clear();
  const uint64_t bytes = uint64_t{options.insn_count} * HwConfig::kInsnBytes;
  if (!dram().Contains(options.insn_addr, bytes)) return;
  program_.assign(options.insn_count, isa::Insn{});
  for (uint32_t i = 0; i < options.insn_count; ++i) {
    if (!DecodeAt(options, i, &program_[i]).ok()) program_[i] = isa::Insn{};
  }
}

Status Device::ReadStats(Stats* stats) {
  AxilMaster& r = harness_->regs();
  uint32_t v = 0;
  *stats = Stats();
  LOOM_RETURN_IF_ERROR(harness_->Read64(reg::kCyclesLo, &stats->cycles));
  const uint32_t busy[isa::kNumModules] = {reg::kLoadBusy, reg::kComputeBusy, reg::kStoreBusy};
  for (int m = 0; m < isa::kNumModules; ++m) {
    LOOM_RETURN_IF_ERROR(r.Read(busy[m], &v));
    stats->busy[m] = v;
  }
  LOOM_RETURN_IF_ERROR(r.Read(reg::kGemmIters, &v));
  stats->gemm_iters = v;
  stats->macs = stats->gemm_iters * config_.macs_per_cycle();
  LOOM_RETURN_IF_ERROR(harness_->Read64(reg::kBytesReadLo, &stats->bytes_read));
  LOOM_RETURN_IF_ERROR(harness_->Read64(reg::kBytesWrittenLo, &stats->bytes_written));
  LOOM_RETURN_IF_ERROR(r.Read(reg::kFetched, &v));
  stats->insns = v;
  return Status::Ok();
}

Status Device::ErrorStatus(uint32_t code, uint32_t insn, const RunOptions& options) {
  const std::string where = "instruction " + std::to_string(insn);
  uint32_t tokens = 0;
  switch (code) {
    case reg::kErrInvalidInsn: {
      // The hardware only says "invalid"; the decoder says why.
      const std::string why = Describe(options, insn);
      return InvalidArgument(where + ": the accelerator rejected the instruction word (" + why +
                             ")");
    }
    case reg::kErrTokens:
      LOOM_RETURN_IF_ERROR(harness_->regs().Read(reg::kTokens, &tokens));
      return FailedPrecondition("token imbalance at FINISH (" + where +
                                "): " + TokenCounts(tokens, true) +
                                " tokens left; every push needs a matching pop");
    case reg::kErrDram:
      return OutOfRange(where + " (" + Describe(options, insn) +
                        "): the memory system answered a DRAM access with an error (outside "
                        "device memory?)");
    case reg::kErrStream:
      if (options.insn_count == 0) return InvalidArgument("empty instruction stream (no FINISH)");
      return InvalidArgument(where + " (" + Describe(options, insn) +
                             "): the stream must end with its only FINISH");
    default:
      return Internal("the accelerator reported unknown error code " + std::to_string(code) +
                      " at " + where);
  }
}

std::string Device::ModuleNow(const RunOptions& options, isa::Module m, uint32_t last,
                              uint32_t fetched, uint32_t trace_port) {
  // Each module takes its instructions in stream order, so the one it holds or waits for is its
  // first after the last it completed.
  uint32_t next = last;
  isa::Insn insn;
  for (; next < options.insn_count; ++next) {
    const Status s = DecodeAt(options, next, &insn);
    if (s.code() == StatusCode::kOutOfRange) return "its next instruction is not in DRAM";
    if (s.ok() && insn.module() == m) break;
  }
  if (next >= options.insn_count) return "no instruction left";
  const std::string at =
      "instruction " + std::to_string(next) + " (" + isa::Disassemble(insn) + ")";
  const SeqState state = DecodeSeqTrace(trace_port, static_cast<int>(m)).state;
  isa::Queue q = isa::Queue::kLoadToCompute;
  const isa::Side side = state == SeqState::kPopPrev || state == SeqState::kPushPrev
                             ? isa::Side::kPrev
                             : isa::Side::kNext;
  switch (state) {
    case SeqState::kExec:
      return "executing " + at;
    case SeqState::kPopPrev:
    case SeqState::kPopNext:
      if (!isa::PopQueue(m, side, &q)) break;
      return at + " waits for a token on " + isa::QueueName(q);
    case SeqState::kPushPrev:
    case SeqState::kPushNext:
      if (!isa::PushQueue(m, side, &q)) break;
      return at + " waits for room on " + isa::QueueName(q);
    case SeqState::kNoInsn:
      return (next < fetched ? "idle before " : "waiting for the fetch of ") + at;
  }
  return "at " + at;
}

Status Device::HangStatus(const RunOptions& options, uint64_t cycles, bool wall,
                          uint32_t trace_port) {
  AxilMaster& r = harness_->regs();
  const char* const names[isa::kNumModules] = {"load", "compute", "store"};
  const uint32_t last_regs[isa::kNumModules] = {reg::kLoadLast, reg::kComputeLast, reg::kStoreLast};
  std::string msg =
      wall ? "no FINISH within the wall-clock limit of " + std::to_string(options.wall_timeout_ms) +
                 " ms (" + std::to_string(cycles) +
                 " cycles simulated): the program deadlocks, or runs longer than the limit allows."
           : "no FINISH within " + std::to_string(options.timeout_cycles) +
                 " cycles: the program deadlocks, or needs a longer timeout.";
  uint32_t tokens = 0, fetched = 0;
  LOOM_RETURN_IF_ERROR(r.Read(reg::kTokens, &tokens));
  LOOM_RETURN_IF_ERROR(r.Read(reg::kFetched, &fetched));
  for (int m = 0; m < isa::kNumModules; ++m) {
    uint32_t last = 0;
    LOOM_RETURN_IF_ERROR(r.Read(last_regs[m], &last));
    msg += std::string(" ") + names[m] + ": ";
    msg += last == 0 ? std::string("no instruction completed")
                     : "last completed instruction " + std::to_string(last - 1) + " (" +
                           Describe(options, last - 1) + ")";
    msg += ", now " + ModuleNow(options, static_cast<isa::Module>(m), last, fetched, trace_port);
    msg += ";";
  }
  msg += " tokens: " + TokenCounts(tokens, false) + "; " + std::to_string(fetched) + " of " +
         std::to_string(options.insn_count) + " instructions dispatched";
  return Status(StatusCode::kDeadlineExceeded, msg);
}

Status Device::Run(const RunOptions& options, Stats* stats) {
  *stats = Stats();
  if (options.insn_addr % HwConfig::kInsnBytes != 0) {
    return InvalidArgument("instruction stream address " + std::to_string(options.insn_addr) +
                           " is not 16-byte aligned");
  }
  AxilMaster& r = harness_->regs();
  SimCtrl& ctrl = harness_->ctrl();
  LOOM_RETURN_IF_ERROR(r.Write(reg::kInsnAddrLo, static_cast<uint32_t>(options.insn_addr)));
  LOOM_RETURN_IF_ERROR(r.Write(reg::kInsnAddrHi, static_cast<uint32_t>(options.insn_addr >> 32)));
  LOOM_RETURN_IF_ERROR(r.Write(reg::kInsnCount, options.insn_count));
  LOOM_RETURN_IF_ERROR(r.Write(reg::kGie, 1));
  LOOM_RETURN_IF_ERROR(r.Write(reg::kIer, 1));
  uint32_t ctrl_reg = 0;
  LOOM_RETURN_IF_ERROR(r.Read(reg::kCtrl, &ctrl_reg));
  if (!(ctrl_reg & reg::kCtrlIdle)) return FailedPrecondition("the accelerator is busy");
  program_.clear();
  trace_.clear();
  if (options.trace) ReadProgram(options);
  LOOM_RETURN_IF_ERROR(r.Write(reg::kCtrl, reg::kCtrlStart));
  // The run starts in the cycle after the START write is taken.
  if (options.trace) tracer_.Arm(program_, ctrl.cycle());

  // Wait for the interrupt, as a driver would (it is raised when done is set).
  const uint64_t first = ctrl.cycle();
  sim::Deadline deadline(options.wall_timeout_ms);
  const bool done =
      ctrl.StepUntil([&] { return harness_->irq(); }, options.timeout_cycles, &deadline);
  if (options.trace) {
    trace_ = tracer_.Events();
    tracer_.Disarm();
  }
  if (!done) {
    // The trace port before the register reads below clock the model on.
    const uint32_t trace_port = ctrl.ports().trace;
    const uint64_t cycles = ctrl.cycle() - first;
    Status hang = HangStatus(options, cycles, cycles < options.timeout_cycles, trace_port);
    ctrl.Reset();  // a real driver would reset the accelerator through its reset line
    return hang;
  }
  LOOM_RETURN_IF_ERROR(r.Write(reg::kIsr, 1));
  if (!harness_->bus().error().empty()) {
    return Internal("the RTL broke an AXI rule: " + harness_->bus().error());
  }
  LOOM_RETURN_IF_ERROR(ReadStats(stats));
  uint32_t status = 0, insn = 0;
  LOOM_RETURN_IF_ERROR(r.Read(reg::kStatus, &status));
  if (status & reg::kStatusError) {
    LOOM_RETURN_IF_ERROR(r.Read(reg::kErrorInsn, &insn));
    return ErrorStatus(reg::StatusCode(status), insn, options);
  }
  return Status::Ok();
}

}  // namespace loom::tsim
