#include "runtime/drivers/tsim/tsim_driver.h"

#include "runtime/drivers/sim/sim_driver.h"
#include "sim/tsim/device.h"

namespace loom::runtime {
namespace {

class TsimDriver final : public SimDriver {
 public:
  const char* name() const override { return "tsim"; }

  Status Open(const DriverOptions& options) override {
    if (dev_) return FailedPrecondition("tsim device is already open");
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
    have_stats_ = false;
    run.timeout_cycles = DeviceCycles(timeout_ms, dev_->config());
    run.wall_timeout_ms = wall_timeout_ms_;
    run.trace = recording();
    LOOM_RETURN_IF_ERROR(dev_->Run(run, &stats_));
    have_stats_ = true;
    RecordRun(title_, dev_->program(), dev_->trace(), stats_.cycles);
    return Status::Ok();
  }
  Status ReadCounters(DeviceCounters* out) override {
    LOOM_RETURN_IF_ERROR(CheckOpen());
    *out = DeviceCounters{};
    if (!have_stats_) return Status::Ok();
    out->valid = true;
    out->cycles = stats_.cycles;
    out->macs = stats_.macs;
    out->bytes_loaded = stats_.bytes_read;
    out->bytes_stored = stats_.bytes_written;
    out->insns = stats_.insns;
    out->busy = stats_.busy;
    return Status::Ok();
  }
  void Close() override {
    dev_.reset();
    ClearSubmission();
    have_stats_ = false;
  }

 protected:
  sim::Dram* dram() override { return dev_ ? &dev_->dram() : nullptr; }

 private:
  HwConfig empty_;
  std::unique_ptr<tsim::Device> dev_;
  bool have_stats_ = false;
  tsim::Stats stats_;
  std::string title_;  // the trace's name for this device, built at Open, not per run
  uint32_t wall_timeout_ms_ = 0;
};

}  // namespace

std::unique_ptr<Driver> CreateTsimDriver() { return std::make_unique<TsimDriver>(); }

}  // namespace loom::runtime
