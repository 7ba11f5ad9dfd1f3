// The RTL model driven by the accelerator protocol, for tests and tools that place programs at
// fixed DRAM addresses (sim/programs) instead of allocating device memory through a Driver: the
// tsim register transport and the protocol (Accelerator) over one harness, whose DRAM model the
// caller fills directly. Runs go through exactly the code the tsim device and the boards run.
//
//   std::unique_ptr<TsimBench> bench;
//   LOOM_RETURN_IF_ERROR(TsimBench::Create(config, dram_bytes, &bench));
//   LOOM_RETURN_IF_ERROR(bench->dram().Write(addr, bytes, n));
//   DeviceCounters counters;
//   LOOM_RETURN_IF_ERROR(bench->Run({insn_addr, insn_count}, &counters));
#ifndef LOOM_RUNTIME_DRIVERS_TSIM_TSIM_BENCH_H_
#define LOOM_RUNTIME_DRIVERS_TSIM_TSIM_BENCH_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "runtime/drivers/protocol/accelerator.h"
#include "runtime/drivers/tsim/tsim_transport.h"

namespace loom::runtime {

struct TsimRunOptions {
  uint64_t insn_addr = 0;              // DRAM byte address of the first instruction
  uint32_t insn_count = 0;             // instructions in the stream; the last must be FINISH
  uint64_t timeout_cycles = 50000000;  // device time, in accelerator cycles, before a hang
  // Host time before the run counts as hung, whatever the cycle count (0: no limit): the RTL
  // model simulates a few hundred thousand cycles per second.
  uint32_t wall_timeout_ms = 0;
  bool trace = false;  // record the instruction timeline (program(), trace())
};

class TsimBench {
 public:
  // Builds the model for `config` and opens the protocol on it (VERSION, CONFIG_HASH).
  static Status Create(const HwConfig& config, uint64_t dram_bytes, std::unique_ptr<TsimBench>* out,
                       const std::string& waves = "");

  const HwConfig& config() const { return accel_.config(); }
  sim::Dram& dram() { return harness_->dram(); }
  tsim::Harness& harness() { return *harness_; }
  TsimRegisters& regs() { return *regs_; }

  // One run through the protocol; the stream's words in the DRAM model are the host copy its
  // messages decode.
  Status Run(const TsimRunOptions& options, DeviceCounters* counters);

  // After a run with TsimRunOptions::trace: the stream as decoded from DRAM, and its timeline in
  // fsim's form, cycles counted from the START write.
  const std::vector<isa::Insn>& program() const { return program_; }
  const std::vector<sim::TraceEvent>& trace() const { return trace_; }

 private:
  std::shared_ptr<tsim::Harness> harness_;
  std::unique_ptr<TsimRegisters> regs_;
  Accelerator accel_;
  std::vector<isa::Insn> program_;
  std::vector<sim::TraceEvent> trace_;
};

}  // namespace loom::runtime

#endif  // LOOM_RUNTIME_DRIVERS_TSIM_TSIM_BENCH_H_
