#include "runtime/drivers/tsim/tsim_driver.h"

#include <utility>

#include "runtime/drivers/protocol/protocol_driver.h"
#include "runtime/drivers/sim/sim_driver.h"
#include "runtime/drivers/tsim/tsim_transport.h"

namespace loom::runtime {
namespace {

// The protocol driver over the tsim transports, plus what only a simulator has: the instruction
// timeline from the RTL's trace port, and a check that the RTL kept the AXI rules.
class TsimDriver final : public ProtocolDriver {
 public:
  TsimDriver() : ProtocolDriver("tsim", nullptr) {}
  ~TsimDriver() override { Close(); }

  void Annotate(const std::string& label) override { recorder_.Annotate(label); }
  Status TraceJson(std::string* out) override {
    if (!is_open()) return FailedPrecondition("tsim device is not open");
    return recorder_.TraceJson(name(), out);
  }
  Status InsnTimeline(std::vector<InsnTiming>* out) override {
    if (!is_open()) return FailedPrecondition("tsim device is not open");
    return recorder_.InsnTimeline(name(), out);
  }

 protected:
  Status OpenTransports(const DriverOptions& options, Transports* out) override {
    TsimOptions o;
    LOOM_RETURN_IF_ERROR(ParseTsimDeviceArgs(options.device_args, &o));
    std::shared_ptr<tsim::Harness> harness;
    // Whole pages, as the simulator drivers size their DRAM.
    const uint64_t bytes = (options.memory_bytes + 4095) / 4096 * 4096;
    LOOM_RETURN_IF_ERROR(CreateTsimHarness(options.config, bytes, options.waves, &harness));
    auto regs = std::make_unique<TsimRegisters>(harness, options.config, options.wall_timeout_ms);
    regs->set_trace(options.trace || options.timeline);
    regs_ = regs.get();
    out->regs = std::move(regs);
    out->dma = std::make_unique<TsimDma>(harness, o.stale_cache);
    return Status::Ok();
  }
  Status OnOpen(const DriverOptions& options) override {
    recorder_ = RunRecorder();
    recorder_.Open(options);
    title_ = "tsim, RTL " + options.config.name;
    return Status::Ok();
  }
  void OnClose() override { regs_ = nullptr; }

  Status OnRunEnd(Status outcome) override {
    regs_->FinishTrace(&program_, &events_);
    if (outcome.ok() && !regs_->harness().bus().error().empty()) {
      return Internal("the RTL broke an AXI rule: " + regs_->harness().bus().error());
    }
    if (outcome.ok() && recorder_.recording()) {
      DeviceCounters c;
      LOOM_RETURN_IF_ERROR(ReadCounters(&c));
      recorder_.Record(title_, program_, events_, c.cycles);
    }
    return outcome;
  }

 private:
  TsimRegisters* regs_ = nullptr;  // owned by the transports, valid while open
  RunRecorder recorder_;
  std::string title_;  // the trace's name for this device, built at Open, not per run
  std::vector<isa::Insn> program_;
  std::vector<sim::TraceEvent> events_;
};

}  // namespace

Status ParseTsimDeviceArgs(const std::string& args, TsimOptions* out) {
  *out = TsimOptions();
  if (args.empty() || args == "stale-cache") return Status::Ok();
  if (args == "coherent") {
    out->stale_cache = false;
    return Status::Ok();
  }
  return InvalidArgument("tsim: unknown device argument '" + args +
                         "' (tsim:stale-cache, the default, or tsim:coherent)");
}

std::unique_ptr<Driver> CreateTsimDriver() { return std::make_unique<TsimDriver>(); }

}  // namespace loom::runtime
