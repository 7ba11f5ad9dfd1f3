// fsim's timing model: the cycle cost of each instruction on its module, given the HwConfig. These
// functions are the model's only source of cycle counts (docs/fsim.md explains each term); the
// scheduler in fsim.cc adds token waits, DRAM port contention and fetch.
#ifndef LOOM_SIM_FSIM_TIMING_H_
#define LOOM_SIM_FSIM_TIMING_H_

#include <cstdint>

#include "runtime/core/hw_config.h"
#include "runtime/core/isa.h"

namespace loom::fsim {

// The accelerator's AXI read port (docs/rtl.md "Read bursts in flight"): up to
// HwConfig::kDmaReadsInFlight bursts in flight, from any LOAD, their data returned in address
// order. Times are absolute cycles.
class ReadPort {
 public:
  explicit ReadPort(uint64_t latency) : latency_(latency) {}
  // A burst of n data cycles whose address may go out at `earliest`: the address goes out a cycle
  // after the previous one and once a slot of the window is free (the cycle after the last beat of
  // the burst that held it); the data start the latency after the address and after the previous
  // burst's data. Returns the burst's last data cycle.
  uint64_t Burst(uint64_t earliest, uint64_t n);

 private:
  const uint64_t latency_;
  uint64_t count_ = 0, addr_ = 0, last_ = 0;
  uint64_t end_[HwConfig::kDmaReadsInFlight] = {};
};

struct TimingModel {
  // Fixed costs, in cycles, of the pipelines the RTL has between issuing an instruction and its
  // last write. Kept small and explicit so tsim can calibrate them.
  static constexpr uint64_t kIssueCycles = 1;      // decode + dependency check
  static constexpr uint64_t kGemmPipeline = 4;     // uop read, SRAM read, MAC tree, acc write
  static constexpr uint64_t kAluPipeline = 3;      // uop read, acc read, ALU + acc/out write
  static constexpr uint64_t kAxi4kBoundary = 4096; // AXI bursts may not cross a 4 KiB boundary

  explicit TimingModel(const HwConfig& config) : c_(config) {}

  // DMA cost of a LOAD or STORE: a burst moves max(data beats, SRAM elements written or read) in
  // as many cycles; contiguous rows (x_stride == x_size) merge into one transfer; padding costs
  // one cycle per element. A STORE's bursts go one at a time, each after the burst latency. A
  // LOAD's are pipelined (HwConfig::kDmaReadsInFlight): a burst's address goes out the cycle
  // after the previous one's, once fewer than that many are in flight, and its data come the
  // burst latency after its address and after the previous burst's data.
  // (For a LOAD this is its time on an idle read port: LoadEnd from cycle 0.)
  uint64_t DmaCycles(const isa::Insn& insn, uint32_t elem_bytes) const;
  // The cycle a LOAD that starts at `start` ends, its bursts queued on `port` behind those of the
  // LOADs before it.
  uint64_t LoadEnd(const isa::Insn& insn, uint32_t elem_bytes, uint64_t start,
                   ReadPort* port) const;
  // GEMM: one micro-op iteration per cycle; with a fused REQUANT's epilogue (docs/isa.md §3.4.2)
  // its OUT writes come one stage later.
  uint64_t GemmCycles(const isa::Insn& insn, bool epilogue = false) const;
  // ALU: one iteration per cycle with an immediate or REQUANT, two with a register operand (the
  // acc buffer has one read port); RQPARAM and a fused REQUANT end a stage early (they write RQP
  // or the epilogue's registers, not ACC).
  uint64_t AluCycles(const isa::Insn& insn) const;
  // Fetch: cycles to read `count` consecutive instructions in one burst.
  uint64_t FetchBurstCycles(uint32_t count) const;
  // Instructions fetched per burst.
  uint32_t FetchBurstInsns() const;

 private:
  // Calls burst(n) for each burst of a transfer, n = max(beats, elements); ForEachRow for each
  // burst of a LOAD's or STORE's rows (one transfer when they are contiguous).
  template <typename F>
  void ForEachBurst(uint64_t addr, uint64_t bytes, uint32_t elem_bytes, F&& burst) const;
  template <typename F>
  void ForEachRow(const isa::Insn& insn, uint32_t elem_bytes, F&& burst) const;
  const HwConfig& c_;
};

}  // namespace loom::fsim

#endif  // LOOM_SIM_FSIM_TIMING_H_
