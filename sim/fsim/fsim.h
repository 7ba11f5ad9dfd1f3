// fsim: the functional simulator of the accelerator, with a timing model.
//
// It fetches an instruction stream from its DRAM model, runs every instruction bit-exactly per
// docs/isa.md, and schedules the load, compute and store modules concurrently: each runs its
// instructions in order, waits on dependency tokens through bounded queues, and shares the DRAM
// read port. A program that can never finish is reported as a deadlock naming the blocked
// instructions, never a hang. Timing terms are documented in docs/fsim.md.
#ifndef LOOM_SIM_FSIM_FSIM_H_
#define LOOM_SIM_FSIM_FSIM_H_

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "runtime/core/hw_config.h"
#include "runtime/core/isa.h"
#include "sim/common/dram.h"
#include "sim/common/trace_event.h"
#include "sim/fsim/machine.h"

namespace loom::fsim {

// Per-module cycle accounting. busy + the stall terms + idle at the end = total cycles.
struct ModuleStats {
  uint64_t insns = 0;
  uint64_t busy = 0;            // cycles executing instructions
  uint64_t stall_fetch = 0;     // waiting for the next instruction to be fetched
  std::array<uint64_t, isa::kNumQueues> stall_pop{};   // waiting for a token, per queue
  std::array<uint64_t, isa::kNumQueues> stall_push{};  // waiting for room in a full queue
  uint64_t stall_port = 0;      // waiting for the shared DRAM port
  uint64_t stall_finish = 0;    // FINISH waiting for load and store to drain
  uint64_t stalls() const;
};

struct Stats {
  uint64_t cycles = 0;
  uint64_t insns = 0;
  std::array<ModuleStats, isa::kNumModules> module{};
  std::array<uint64_t, 5> bytes_loaded{};  // per isa::Buffer (uop, wgt, inp, acc; out unused)
  uint64_t bytes_stored = 0;
  uint64_t bytes_fetched = 0;  // instruction stream
  uint64_t macs = 0;
  uint64_t alu_lanes = 0;
  uint64_t peak_macs_per_cycle = 0;

  uint64_t total_bytes_loaded() const;
  // MACs / (cycles x peak MACs per cycle): how much of the GEMM core's peak the run used.
  double gemm_utilization() const;
};

struct RunOptions {
  uint64_t insn_addr = 0;   // DRAM byte address of the first instruction
  uint32_t insn_count = 0;  // instructions in the stream; the last must be FINISH
  bool trace = false;       // record a sim::TraceEvent timeline
  // Skip the functional execution: DRAM and buffers are untouched and only cycles and statistics
  // are computed. The compiler's cost model uses this to time candidate schedules.
  bool timing_only = false;
  // Limits; a run that reaches one stops with kDeadlineExceeded naming where each module stood.
  // Device time: no instruction may end after cycle `max_cycles` (checked before it runs, so a
  // GEMM of a billion cycles is refused at once). Host time: `wall_ms` milliseconds (0: none),
  // checked between instructions and inside long GEMM and ALU loops.
  uint64_t max_cycles = UINT64_MAX;
  uint64_t wall_ms = 0;
};

// The scheduler's per-run bookkeeping (fsim.cc), kept across runs so that a repeated run of a
// program the simulator has seen before allocates nothing.
struct SchedulerState;

class Simulator {
 public:
  // `config` must have passed Validate(); use Create() to validate and construct in one step.
  Simulator(const HwConfig& config, uint64_t dram_bytes, uint64_t dram_base = 0);
  ~Simulator();
  Simulator(const Simulator&) = delete;
  Simulator& operator=(const Simulator&) = delete;
  static Status Create(const HwConfig& config, uint64_t dram_bytes,
                       std::unique_ptr<Simulator>* out);

  const HwConfig& config() const { return config_; }
  const isa::Layout& layout() const { return layout_; }
  sim::Dram& dram() { return dram_; }
  const Machine& machine() const { return machine_; }

  // Runs the stream to FINISH. On-chip buffers keep their contents between runs, as on hardware.
  // Allocates only to grow its bookkeeping (and the trace, when on) past what earlier runs used.
  // Errors: a malformed instruction (its index), a deadlock (each blocked module with its
  // instruction and queue), tokens left in a queue at FINISH, an access outside DRAM or a buffer,
  // a limit of RunOptions reached (kDeadlineExceeded). After an error the buffers hold whatever
  // the instructions that ran left in them.
  Status Run(const RunOptions& options, Stats* stats);

  // The timeline of the last run with options.trace set.
  const std::vector<sim::TraceEvent>& trace() const { return trace_; }
  // The decoded instructions of the last run.
  const std::vector<isa::Insn>& program() const { return program_; }

 private:
  HwConfig config_;
  isa::Layout layout_;
  sim::Dram dram_;
  Machine machine_;
  std::vector<sim::TraceEvent> trace_;
  std::vector<isa::Insn> program_;
  std::unique_ptr<SchedulerState> sched_;
};

// A multi-line human-readable cycle report.
std::string FormatReport(const Stats& stats, const HwConfig& config);
// Statistics as a JSON object (cycles, macs, gemm_utilization, bytes_loaded, bytes_stored, ...).
std::string StatsToJson(const Stats& stats, const HwConfig& config);
// The timeline in Chrome/Perfetto trace-event JSON: one track per module, timestamps in
// microseconds at the config's clock, cycle numbers in each event's args.
std::string TraceToJson(const std::vector<sim::TraceEvent>& trace,
                        const std::vector<isa::Insn>& insns, const HwConfig& config);

}  // namespace loom::fsim

#endif  // LOOM_SIM_FSIM_FSIM_H_
