#include "runtime/drivers/fsim/fsim_driver.h"

#include <memory>

#include "runtime/drivers/sim/sim_driver.h"
#include "runtime/drivers/trace_json.h"
#include "sim/fsim/fsim.h"

namespace loom::runtime {
namespace {

// fsim's DRAM starts at a non-zero physical address, as on a board, so a program that was not
// linked (region-relative addresses) fails instead of silently reading the wrong bytes.
constexpr uint64_t kDramBase = 0x10000000;

const char* KindName(fsim::TraceEvent::Kind k) {
  switch (k) {
    case fsim::TraceEvent::Kind::kExec: return "exec";
    case fsim::TraceEvent::Kind::kStallFetch: return "wait fetch";
    case fsim::TraceEvent::Kind::kStallPop: return "wait token";
    case fsim::TraceEvent::Kind::kStallPush: return "wait queue room";
    case fsim::TraceEvent::Kind::kStallPort: return "wait DRAM port";
    case fsim::TraceEvent::Kind::kStallFinish: return "wait drain";
  }
  return "?";
}

class FsimDriver final : public SimDriver {
 public:
  const char* name() const override { return "fsim"; }

  Status Open(const DriverOptions& options) override {
    if (sim_) return FailedPrecondition("fsim device is already open");
    LOOM_RETURN_IF_ERROR(options.config.Validate());
    const uint64_t bytes = (options.memory_bytes + 4095) / 4096 * 4096;
    sim_ = std::make_unique<fsim::Simulator>(options.config, bytes, kDramBase);
    ResetHeap();
    trace_ = options.trace;
    timeline_ = options.timeline;
    trace_builder_ = TraceBuilder();
    trace_builder_.set_clock_mhz(options.config.clock_mhz);
    return Status::Ok();
  }
  const HwConfig& config() const override { return sim_ ? sim_->config() : empty_; }

  // fsim detects deadlocks itself (it never hangs), so the timeout is not needed here.
  Status Wait(uint32_t /*timeout_ms*/) override {
    fsim::RunOptions run;
    LOOM_RETURN_IF_ERROR(TakeSubmission(&run.insn_addr, &run.insn_count));
    run.trace = trace_ || timeline_;
    stats_ = fsim::Stats{};
    have_stats_ = false;
    LOOM_RETURN_IF_ERROR(sim_->Run(run, &stats_));
    have_stats_ = true;
    if (trace_) RecordTrace();
    if (timeline_) RecordTimeline();
    label_.clear();
    return Status::Ok();
  }
  Status ReadCounters(DeviceCounters* out) override {
    LOOM_RETURN_IF_ERROR(CheckOpen());
    *out = DeviceCounters{};
    if (!have_stats_) return Status::Ok();
    out->valid = true;
    out->cycles = stats_.cycles;
    out->macs = stats_.macs;
    out->bytes_loaded = stats_.total_bytes_loaded();
    out->bytes_stored = stats_.bytes_stored;
    out->insns = stats_.insns;
    for (int m = 0; m < isa::kNumModules; ++m) out->busy[m] = stats_.module[m].busy;
    return Status::Ok();
  }
  Status InsnTimeline(std::vector<InsnTiming>* out) override {
    LOOM_RETURN_IF_ERROR(CheckOpen());
    if (!timeline_) return FailedPrecondition("fsim: the device was opened without a timeline");
    *out = timeline_data_;
    return Status::Ok();
  }
  void Annotate(const std::string& label) override { label_ = label; }
  Status TraceJson(std::string* out) override {
    LOOM_RETURN_IF_ERROR(CheckOpen());
    if (!trace_) return FailedPrecondition("fsim: the device was opened without tracing");
    *out = trace_builder_.Json();
    return Status::Ok();
  }
  void Close() override {
    sim_.reset();
    ClearSubmission();
    have_stats_ = false;
  }

 protected:
  fsim::Dram* dram() override { return sim_ ? &sim_->dram() : nullptr; }

 private:
  void RecordTrace() {
    static const char* const kTracks[] = {"load", "compute", "store"};
    trace_builder_.Begin("loom accelerator (fsim, " + sim_->config().name + ")", kTracks, 3);
    const std::vector<isa::Insn>& insns = sim_->program();
    for (const fsim::TraceEvent& e : sim_->trace()) {
      const bool exec = e.kind == fsim::TraceEvent::Kind::kExec;
      std::string name = exec && e.insn < insns.size() ? isa::Mnemonic(insns[e.insn]) : KindName(e.kind);
      std::string args = "{\"insn\":" + std::to_string(e.insn);
      if (exec && e.insn < insns.size()) {
        args += ",\"text\":\"" + TraceBuilder::Escape(isa::Disassemble(insns[e.insn])) + "\"";
      }
      if (e.kind == fsim::TraceEvent::Kind::kStallPop || e.kind == fsim::TraceEvent::Kind::kStallPush) {
        name += std::string(" ") + isa::QueueName(e.queue);
      }
      if (!label_.empty()) args += ",\"segment\":\"" + TraceBuilder::Escape(label_) + "\"";
      args += "}";
      trace_builder_.Event(static_cast<int>(e.module), name, exec ? "exec" : "stall", e.begin,
                           e.end, args);
    }
    trace_builder_.EndSubmission(label_, stats_.cycles);
  }

  // Folds the event list into one record per instruction.
  void RecordTimeline() {
    timeline_data_.assign(sim_->program().size(), InsnTiming{});
    for (size_t i = 0; i < timeline_data_.size(); ++i) {
      timeline_data_[i].module = sim_->program()[i].module();
    }
    for (const fsim::TraceEvent& e : sim_->trace()) {
      if (e.insn >= timeline_data_.size()) continue;
      InsnTiming& t = timeline_data_[e.insn];
      const uint64_t d = e.end - e.begin;
      switch (e.kind) {
        case fsim::TraceEvent::Kind::kExec: t.begin = e.begin; t.end = e.end; break;
        case fsim::TraceEvent::Kind::kStallFetch: t.stall_fetch += d; break;
        case fsim::TraceEvent::Kind::kStallPop: t.stall_pop[static_cast<int>(e.queue)] += d; break;
        case fsim::TraceEvent::Kind::kStallPush: t.stall_push[static_cast<int>(e.queue)] += d; break;
        case fsim::TraceEvent::Kind::kStallPort: t.stall_port += d; break;
        case fsim::TraceEvent::Kind::kStallFinish: t.stall_finish += d; break;
      }
    }
  }

  HwConfig empty_;
  std::unique_ptr<fsim::Simulator> sim_;
  fsim::Stats stats_;
  bool have_stats_ = false;
  bool trace_ = false;
  bool timeline_ = false;
  std::vector<InsnTiming> timeline_data_;
  std::string label_;
  TraceBuilder trace_builder_;
};

}  // namespace

std::unique_ptr<Driver> CreateFsimDriver() { return std::make_unique<FsimDriver>(); }

}  // namespace loom::runtime
