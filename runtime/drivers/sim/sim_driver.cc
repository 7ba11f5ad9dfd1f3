#include "runtime/drivers/sim/sim_driver.h"

namespace loom::runtime {

uint64_t DeviceCycles(uint32_t timeout_ms, const HwConfig& config) {
  const double cycles = static_cast<double>(timeout_ms) * 1000.0 * config.clock_mhz;
  // 2^63 cycles is centuries at any clock; the comparison also keeps a NaN clock finite.
  return cycles < 9.2e18 ? static_cast<uint64_t>(cycles) : uint64_t{1} << 63;
}

Status SimDriver::CheckOpen() {
  return dram() ? Status::Ok() : FailedPrecondition(std::string(name()) + " device is not open");
}

Status SimDriver::CheckRange(uint64_t addr, uint64_t bytes) {
  LOOM_RETURN_IF_ERROR(CheckOpen());
  if (!heap_.Contains(addr, bytes)) {
    return OutOfRange(std::string(name()) + ": device range [" + std::to_string(addr) + ", +" +
                      std::to_string(bytes) + ") is not inside an allocation");
  }
  return Status::Ok();
}

Status SimDriver::Allocate(uint64_t bytes, uint64_t align, uint64_t* addr) {
  LOOM_RETURN_IF_ERROR(CheckOpen());
  return heap_.Allocate(bytes, align, addr);
}

Status SimDriver::Free(uint64_t addr) {
  LOOM_RETURN_IF_ERROR(CheckOpen());
  return heap_.Free(addr);
}

Status SimDriver::CopyIn(uint64_t dst, const void* src, uint64_t bytes) {
  LOOM_RETURN_IF_ERROR(CheckRange(dst, bytes));
  return dram()->Write(dst, src, bytes);
}

Status SimDriver::CopyOut(void* dst, uint64_t src, uint64_t bytes) {
  LOOM_RETURN_IF_ERROR(CheckRange(src, bytes));
  return dram()->Read(src, dst, bytes);
}

Status SimDriver::Submit(uint64_t insn_addr, uint32_t insn_count) {
  LOOM_RETURN_IF_ERROR(CheckOpen());
  if (pending_) return FailedPrecondition(std::string(name()) + ": a submission is already in flight");
  if (insn_addr % HwConfig::kInsnBytes != 0 || insn_count == 0 ||
      !heap_.Contains(insn_addr, uint64_t{insn_count} * HwConfig::kInsnBytes)) {
    return InvalidArgument(std::string(name()) + ": instruction stream at " +
                           std::to_string(insn_addr) + " (" + std::to_string(insn_count) +
                           " instructions) is not aligned or not inside an allocation");
  }
  insn_addr_ = insn_addr;
  insn_count_ = insn_count;
  pending_ = true;
  return Status::Ok();
}

Status SimDriver::TakeSubmission(uint64_t* insn_addr, uint32_t* insn_count) {
  LOOM_RETURN_IF_ERROR(CheckOpen());
  if (!pending_) return FailedPrecondition(std::string(name()) + ": nothing submitted");
  pending_ = false;
  *insn_addr = insn_addr_;
  *insn_count = insn_count_;
  return Status::Ok();
}

void RunRecorder::Open(const DriverOptions& options) {
  trace_ = options.trace;
  timeline_ = options.timeline;
  timeline_data_.clear();
  label_.clear();
  trace_builder_ = TraceBuilder();
  trace_builder_.set_clock_mhz(options.config.clock_mhz);
}

Status SimDriver::ReadCounters(DeviceCounters* out) {
  LOOM_RETURN_IF_ERROR(CheckOpen());
  *out = counters_;
  return Status::Ok();
}

void RunRecorder::Record(const std::string& title, const std::vector<isa::Insn>& program,
                         const std::vector<sim::TraceEvent>& events, uint64_t cycles) {
  if (trace_) {
    static const char* const kTracks[] = {"load", "compute", "store"};
    trace_builder_.Begin("loom accelerator (" + title + ")", kTracks, 3);
    for (const sim::TraceEvent& e : events) {
      const bool exec = e.kind == sim::TraceEvent::Kind::kExec;
      const bool known = e.insn < program.size();
      std::string name =
          exec && known ? isa::Mnemonic(program[e.insn]) : sim::TraceEventKindName(e.kind);
      std::string args = "{\"insn\":" + std::to_string(e.insn);
      if (exec && known) {
        args += ",\"text\":\"" + TraceBuilder::Escape(isa::Disassemble(program[e.insn])) + "\"";
      }
      if (e.kind == sim::TraceEvent::Kind::kStallPop ||
          e.kind == sim::TraceEvent::Kind::kStallPush) {
        name += std::string(" ") + isa::QueueName(e.queue);
      }
      if (!label_.empty()) args += ",\"segment\":\"" + TraceBuilder::Escape(label_) + "\"";
      args += "}";
      trace_builder_.Event(static_cast<int>(e.module), name, exec ? "exec" : "stall", e.begin,
                           e.end, args);
    }
    trace_builder_.EndSubmission(label_, cycles);
  }
  if (timeline_) {
    // One record per instruction.
    timeline_data_.assign(program.size(), InsnTiming{});
    for (size_t i = 0; i < program.size(); ++i) timeline_data_[i].module = program[i].module();
    for (const sim::TraceEvent& e : events) {
      if (e.insn >= timeline_data_.size()) continue;
      InsnTiming& t = timeline_data_[e.insn];
      const uint64_t d = e.end - e.begin;
      switch (e.kind) {
        case sim::TraceEvent::Kind::kExec:
          t.begin = e.begin;
          t.end = e.end;
          break;
        case sim::TraceEvent::Kind::kStallFetch:
          t.stall_fetch += d;
          break;
        case sim::TraceEvent::Kind::kStallPop:
          t.stall_pop[static_cast<int>(e.queue)] += d;
          break;
        case sim::TraceEvent::Kind::kStallPush:
          t.stall_push[static_cast<int>(e.queue)] += d;
          break;
        case sim::TraceEvent::Kind::kStallPort:
          t.stall_port += d;
          break;
        case sim::TraceEvent::Kind::kStallFinish:
          t.stall_finish += d;
          break;
      }
    }
  }
  label_.clear();
}

Status RunRecorder::InsnTimeline(const char* device, std::vector<InsnTiming>* out) const {
  if (!timeline_) {
    return FailedPrecondition(std::string(device) + ": the device was opened without a timeline");
  }
  *out = timeline_data_;
  return Status::Ok();
}

Status RunRecorder::TraceJson(const char* device, std::string* out) const {
  if (!trace_) {
    return FailedPrecondition(std::string(device) + ": the device was opened without tracing");
  }
  *out = trace_builder_.Json();
  return Status::Ok();
}

Status SimDriver::InsnTimeline(std::vector<InsnTiming>* out) {
  LOOM_RETURN_IF_ERROR(CheckOpen());
  return recorder_.InsnTimeline(name(), out);
}

Status SimDriver::TraceJson(std::string* out) {
  LOOM_RETURN_IF_ERROR(CheckOpen());
  return recorder_.TraceJson(name(), out);
}

}  // namespace loom::runtime
