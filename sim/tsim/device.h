// tsim: the accelerator's RTL (vta_hw/rtl) under Verilator, driven the way a board driver drives
// the FPGA. It has the shape of fsim's Simulator: a DRAM image to fill, then Run() on an
// instruction stream. Run() touches the model only through the AXI-Lite registers of
// docs/registers.md and the interrupt line; the counters come back in Stats.
//
//   std::unique_ptr<loom::tsim::Device> dev;
//   LOOM_RETURN_IF_ERROR(loom::tsim::Device::Create(config, dram_bytes, &dev));
//   LOOM_RETURN_IF_ERROR(dev->dram().Write(addr, bytes, n));
//   loom::tsim::Stats stats;
//   LOOM_RETURN_IF_ERROR(dev->Run({insn_addr, insn_count, /*timeout_cycles=*/1000000}, &stats));
//
// A run that does not finish in time (a deadlock, or a program longer than the limits) returns
// kDeadlineExceeded naming, per module, the last instruction it completed and the one it is
// executing or waiting on (from *_LAST and the trace port), and the token counts; the model is
// then reset, so the device stays usable. On-chip buffers keep their contents across runs and
// resets, as on hardware.
#ifndef LOOM_SIM_TSIM_DEVICE_H_
#define LOOM_SIM_TSIM_DEVICE_H_

#include <array>
#include <cstdint>
#include <memory>
#include <string>

#include "runtime/core/hw_config.h"
#include "runtime/core/isa.h"
#include "runtime/core/status.h"
#include "sim/common/dram.h"
#include "sim/tsim/harness.h"
#include "sim/tsim/insn_tracer.h"

namespace loom::tsim {

struct RunOptions {
  uint64_t insn_addr = 0;              // DRAM byte address of the first instruction
  uint32_t insn_count = 0;             // instructions in the stream; the last must be FINISH
  uint64_t timeout_cycles = 50000000;  // accelerator cycles before the run counts as hung
  // Host time before the run counts as hung, whatever the cycle count (0: no limit): the RTL
  // model simulates a few hundred thousand cycles per second, so the cycle budget alone can
  // take hours.
  uint64_t wall_timeout_ms = 0;
  bool trace = false;  // record the instruction timeline (Device::trace)
};

// What the accelerator's counters say about the last run.
struct Stats {
  uint64_t cycles = 0;                            // CYCLES: start to done
  std::array<uint64_t, isa::kNumModules> busy{};  // *_BUSY, per isa::Module
  uint64_t gemm_iters = 0;                        // GEMM_ITERS
  uint64_t macs = 0;                              // gemm_iters x batch x block_in x block_out
  uint64_t bytes_read = 0;                        // BYTES_READ (LOADs, not fetch)
  uint64_t bytes_written = 0;                     // BYTES_WRITTEN
  uint64_t insns = 0;                             // FETCHED: instructions dispatched
};

struct DeviceOptions {
  std::string waves;  // FST waveform file of everything from reset on; empty: none
};

class Device {
 public:
  // Builds the RTL model for `config` and checks the hardware's CONFIG_HASH register against
  // the config's compatibility hash; a mismatch is refused, naming both.
  static Status Create(const HwConfig& config, uint64_t dram_bytes, std::unique_ptr<Device>* out,
                       const DeviceOptions& options = {});

  const HwConfig& config() const { return config_; }
  sim::Dram& dram() { return harness_->dram(); }

  // Runs the stream to FINISH. Errors the hardware reports (STATUS) come back as the Status fsim
  // uses for the same problem: invalid instruction and stream errors as kInvalidArgument, token
  // imbalance as kFailedPrecondition, DRAM errors as kOutOfRange; a hang as kDeadlineExceeded.
  Status Run(const RunOptions& options, Stats* stats);

  // Register-level access to the model, for tests and tools.
  Harness& harness() { return *harness_; }

  // After a run with RunOptions::trace: the stream as decoded from DRAM, and its timeline in
  // fsim's form (insn_tracer.h), cycles counted from the START write.
  const std::vector<isa::Insn>& program() const { return program_; }
  const std::vector<sim::TraceEvent>& trace() const { return trace_; }

 private:
  Device(const HwConfig& config, std::unique_ptr<Harness> harness);
  Status ReadStats(Stats* stats);
  // Stream instruction `index`, read back from DRAM.
  Status DecodeAt(const RunOptions& options, uint32_t index, isa::Insn* insn);
  // Decodes the stream into program_ for the tracer.
  void ReadProgram(const RunOptions& options);
  Status ErrorStatus(uint32_t code, uint32_t insn, const RunOptions& options);
  // `cycles`: how many the run simulated; `wall`: whether the wall-clock limit ended it.
  Status HangStatus(const RunOptions& options, uint64_t cycles, bool wall, uint32_t trace_port);
  // What module `m` is doing now: the instruction after `last` (its *_LAST) and the sequencer's
  // state on the trace port.
  std::string ModuleNow(const RunOptions& options, isa::Module m, uint32_t last, uint32_t fetched,
                        uint32_t trace_port);
  // "load.inp sram=0 ..." for stream instruction `index`, read back from DRAM.
  std::string Describe(const RunOptions& options, uint32_t index);

  HwConfig config_;
  isa::Layout layout_;
  std::unique_ptr<Harness> harness_;
  InsnTracer tracer_;
  std::vector<isa::Insn> program_;
  std::vector<sim::TraceEvent> trace_;
};

}  // namespace loom::tsim

#endif  // LOOM_SIM_TSIM_DEVICE_H_
