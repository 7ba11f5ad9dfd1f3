#include "runtime/drivers/tsim/tsim_driver.h"

#include "runtime/drivers/device_heap.h"
#include "sim/tsim/device.h"

namespace loom::runtime {
namespace {

class TsimDriver final : public Driver {
 public:
  const char* name() const override { return "tsim"; }
  bool executes_programs() const override { return true; }

  Status Open(const DriverOptions& options) override {
    if (dev_) return FailedPrecondition("tsim device is already open");
    const uint64_t bytes = (options.memory_bytes + 4095) / 4096 * 4096;
    tsim::DeviceOptions dev_options;
    dev_options.waves = options.waves;
    LOOM_RETURN_IF_ERROR(tsim::Device::Create(options.config, bytes, &dev_, dev_options));
    const fsim::Dram& dram = dev_->dram();
    heap_.Reset(dram.base(), dram.size());
    return Status::Ok();
  }
  const HwConfig& config() const override { return dev_ ? dev_->config() : empty_; }

  Status Allocate(uint64_t bytes, uint64_t align, uint64_t* addr) override {
    LOOM_RETURN_IF_ERROR(CheckOpen());
    return heap_.Allocate(bytes, align, addr);
  }
  Status Free(uint64_t addr) override {
    LOOM_RETURN_IF_ERROR(CheckOpen());
    return heap_.Free(addr);
  }
  Status CopyIn(uint64_t dst, const void* src, uint64_t bytes) override {
    LOOM_RETURN_IF_ERROR(CheckRange(dst, bytes));
    return dev_->dram().Write(dst, src, bytes);
  }
  Status CopyOut(void* dst, uint64_t src, uint64_t bytes) override {
    LOOM_RETURN_IF_ERROR(CheckRange(src, bytes));
    return dev_->dram().Read(src, dst, bytes);
  }
  Status Submit(uint64_t insn_addr, uint32_t insn_count) override {
    LOOM_RETURN_IF_ERROR(CheckOpen());
    if (pending_) return FailedPrecondition("tsim: a submission is already in flight");
    if (insn_addr % 16 != 0 || insn_count == 0 ||
        !heap_.Contains(insn_addr, uint64_t{insn_count} * HwConfig::kInsnBytes)) {
      return InvalidArgument("tsim: instruction stream at " + std::to_string(insn_addr) +
                             " is not aligned or not inside an allocation");
    }
    insn_addr_ = insn_addr;
    insn_count_ = insn_count;
    pending_ = true;
    return Status::Ok();
  }
  // The timeout is device time: timeout_ms at the config's clock, as cycles of the RTL model.
  Status Wait(uint32_t timeout_ms) override {
    LOOM_RETURN_IF_ERROR(CheckOpen());
    if (!pending_) return FailedPrecondition("tsim: nothing submitted");
    pending_ = false;
    have_stats_ = false;
    tsim::RunOptions run;
    run.insn_addr = insn_addr_;
    run.insn_count = insn_count_;
    run.timeout_cycles =
        static_cast<uint64_t>(static_cast<double>(timeout_ms) * 1000.0 * dev_->config().clock_mhz);
    LOOM_RETURN_IF_ERROR(dev_->Run(run, &stats_));
    have_stats_ = true;
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
    pending_ = false;
    have_stats_ = false;
  }

 private:
  Status CheckOpen() const {
    return dev_ ? Status::Ok() : FailedPrecondition("tsim device is not open");
  }
  Status CheckRange(uint64_t addr, uint64_t bytes) const {
    LOOM_RETURN_IF_ERROR(CheckOpen());
    if (!heap_.Contains(addr, bytes)) {
      return OutOfRange("tsim: device range [" + std::to_string(addr) + ", +" +
                        std::to_string(bytes) + ") is not inside an allocation");
    }
    return Status::Ok();
  }

  HwConfig empty_;
  std::unique_ptr<tsim::Device> dev_;
  DeviceHeap heap_;
  uint64_t insn_addr_ = 0;
  uint32_t insn_count_ = 0;
  bool pending_ = false;
  bool have_stats_ = false;
  tsim::Stats stats_;
};

}  // namespace

std::unique_ptr<Driver> CreateTsimDriver() { return std::make_unique<TsimDriver>(); }

}  // namespace loom::runtime
