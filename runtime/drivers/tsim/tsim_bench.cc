#include "runtime/drivers/tsim/tsim_bench.h"

#include <utility>

namespace loom::runtime {

Status TsimBench::Create(const HwConfig& config, uint64_t dram_bytes,
                         std::unique_ptr<TsimBench>* out, const std::string& waves) {
  std::unique_ptr<TsimBench> b(new TsimBench());
  LOOM_RETURN_IF_ERROR(CreateTsimHarness(config, dram_bytes, waves, &b->harness_));
  b->regs_ = std::make_unique<TsimRegisters>(b->harness_, config, 0);
  LOOM_RETURN_IF_ERROR(b->accel_.Open(b->regs_.get(), config, "tsim"));
  *out = std::move(b);
  return Status::Ok();
}

Status TsimBench::Run(const TsimRunOptions& options, DeviceCounters* counters) {
  *counters = DeviceCounters{};
  program_.clear();
  trace_.clear();
  regs_->set_wall_timeout_ms(options.wall_timeout_ms);
  regs_->set_trace(options.trace);
  const uint64_t bytes = uint64_t{options.insn_count} * HwConfig::kInsnBytes;
  const uint8_t* stream = options.insn_count != 0 && dram().Contains(options.insn_addr, bytes)
                              ? dram().At(options.insn_addr)
                              : nullptr;
  LOOM_RETURN_IF_ERROR(accel_.Start(options.insn_addr, options.insn_count, stream));
  const double ns = static_cast<double>(options.timeout_cycles) * 1000.0 / config().clock_mhz;
  const Status run = accel_.Wait(ns < 1.8e19 ? static_cast<uint64_t>(ns) : ~uint64_t{0});
  regs_->FinishTrace(&program_, &trace_);
  LOOM_RETURN_IF_ERROR(run);
  if (!harness_->bus().error().empty()) {
    return Internal("the RTL broke an AXI rule: " + harness_->bus().error());
  }
  return accel_.ReadCounters(counters);
}

}  // namespace loom::runtime
