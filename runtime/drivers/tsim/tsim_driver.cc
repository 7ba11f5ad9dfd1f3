#include "runtime/drivers/tsim/tsim_driver.h"

#include "runtime/drivers/sim/sim_driver.h"
#include "sim/tsim/device.h"

namespace loom::runtime {
namespace {

DeviceCounters CountersOf(const tsim::Stats& s) {
  DeviceCounters c;
  c.cycles = s.cycles;
  c.macs = s.macs;
  c.bytes_loaded = s.bytes_read;
  c.bytes_stored = s.bytes_written;
  c.insns = s.insns;
  c.busy = s.busy;
  return c;
}

class TsimDriver final : public SimDriver {
 public:
  const char* name() const override { return "tsim"; }

  Status Open(const DriverOptions& options) override {
    if (dev_) return FailedPrecondition("tsim device is already open");
    LOOM_RETURN_IF_ERROR(CheckNoDeviceArgs("tsim", options));
    const uint64_t bytes = (options.memory_bytes + 4095) / 4096 * 4096;
    tsim::DeviceOptions dev_options;
    dev_options.waves = options.waves;
    LOOM_RETURN_IF_ERROR(tsim::Device::Create(options.config, bytes, &dev_, dev_options));
    ResetHeap();
    OpenRecording(options);
    title_ = "tsim, RTL " + dev_->config().name;
    wall_timeout_ms_ = options.wall_timeout_ms;
    return Status::Ok();
  }
  const HwConfig& config() const override { return dev_ ? dev_->config() : empty_; }

  // The timeout is device time: timeout_ms at the config's clock, as cycles of the RTL model; the
  // wall-clock limit bounds the host time simulating them takes.
  Status Wait(uint32_t timeout_ms) override {
    tsim::RunOptions run;
    LOOM_RETURN_IF_ERROR(TakeSubmission(&run.insn_addr, &run.insn_count));
    ClearCounters();
    run.timeout_cycles = DeviceCycles(timeout_ms, dev_->config());
    run.wall_timeout_ms = wall_timeout_ms_;
    run.trace = recording();
    tsim::Stats stats;
    LOOM_RETURN_IF_ERROR(dev_->Run(run, &stats));
    SetCounters(CountersOf(stats));
    RecordRun(title_, dev_->program(), dev_->trace(), stats.cycles);
    return Status::Ok();
  }
  void Close() override {
    dev_.reset();
    ClearSubmission();
    ClearCounters();
  }

 protected:
  sim::Dram* dram() override { return dev_ ? &dev_->dram() : nullptr; }

 private:
  HwConfig empty_;
  std::unique_ptr<tsim::Device> dev_;
  std::string title_;  // the trace's name for this device, built at Open, not per run
  uint32_t wall_timeout_ms_ = 0;
};

}  // namespace

std::unique_ptr<Driver> CreateTsimDriver() { return std::make_unique<TsimDriver>(); }

}  // namespace loom::runtime
