#include "runtime/drivers/fsim/fsim_driver.h"

#include <memory>
#include <string>

#include "runtime/drivers/sim/sim_driver.h"
#include "sim/fsim/fsim.h"

namespace loom::runtime {
namespace {

// fsim's DRAM starts at a non-zero physical address, as on a board, so a program that was not
// linked (region-relative addresses) fails instead of silently reading the wrong bytes.
constexpr uint64_t kDramBase = 0x10000000;

DeviceCounters CountersOf(const fsim::Stats& s) {
  DeviceCounters c;
  c.cycles = s.cycles;
  c.macs = s.macs;
  c.bytes_loaded = s.total_bytes_loaded();
  c.bytes_stored = s.bytes_stored;
  c.insns = s.insns;
  for (int m = 0; m < isa::kNumModules; ++m) {
    c.busy[m] = s.module[m].busy;
    c.module_insns[m] = s.module[m].insns;
  }
  return c;
}

class FsimDriver final : public SimDriver {
 public:
  const char* name() const override { return "fsim"; }

  Status Open(const DriverOptions& options) override {
    if (sim_) return FailedPrecondition("fsim device is already open");
    LOOM_RETURN_IF_ERROR(CheckNoDeviceArgs("fsim", options));
    LOOM_RETURN_IF_ERROR(options.config.Validate());
    const uint64_t bytes = (options.memory_bytes + 4095) / 4096 * 4096;
    sim_ = std::make_unique<fsim::Simulator>(options.config, bytes, kDramBase);
    ResetHeap();
    OpenRecording(options);
    title_ = "fsim, " + options.config.name;
    wall_timeout_ms_ = options.wall_timeout_ms;
    return Status::Ok();
  }
  const HwConfig& config() const override { return sim_ ? sim_->config() : empty_; }

  // fsim reports deadlocks at once; the limits stop programs that are merely long (a GEMM at its
  // largest loop counts runs for hours on the host). Device time is counted as tsim counts it.
  Status Wait(uint32_t timeout_ms) override {
    fsim::RunOptions run;
    LOOM_RETURN_IF_ERROR(TakeSubmission(&run.insn_addr, &run.insn_count));
    run.max_cycles = DeviceCycles(timeout_ms, sim_->config());
    run.wall_ms = wall_timeout_ms_;
    run.trace = recording();
    fsim::Stats stats;
    ClearCounters();
    LOOM_RETURN_IF_ERROR(sim_->Run(run, &stats));
    SetCounters(CountersOf(stats));
    RecordRun(title_, sim_->program(), sim_->trace(), stats.cycles);
    return Status::Ok();
  }
  void Close() override {
    sim_.reset();
    ClearSubmission();
    ClearCounters();
  }

 protected:
  sim::Dram* dram() override { return sim_ ? &sim_->dram() : nullptr; }

 private:
  HwConfig empty_;
  std::unique_ptr<fsim::Simulator> sim_;
  std::string title_;  // the trace's name for this device, built at Open, not per run
  uint32_t wall_timeout_ms_ = 0;
};

}  // namespace

std::unique_ptr<Driver> CreateFsimDriver() { return std::make_unique<FsimDriver>(); }

}  // namespace loom::runtime
