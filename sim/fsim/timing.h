// fsim's timing model: the cycle cost of each instruction on its module, given the HwConfig. These
// functions are the model's only source of cycle counts (docs/fsim.md explains each term); the
// scheduler in fsim.cc adds token waits, DRAM port contention and fetch.
#ifndef LOOM_SIM_FSIM_TIMING_H_
#define LOOM_SIM_FSIM_TIMING_H_

#include <cstdint>

#include "runtime/core/hw_config.h"
#include "runtime/core/isa.h"

namespace loom::fsim {

struct TimingModel {
  // Fixed costs, in cycles, of the pipelines the RTL has between issuing an instruction and its
  // last write. Kept small and explicit so tsim can calibrate them.
  static constexpr uint64_t kIssueCycles = 1;      // decode + dependency check
  static constexpr uint64_t kGemmPipeline = 4;     // uop read, SRAM read, MAC tree, acc write
  static constexpr uint64_t kAluPipeline = 3;      // uop read, acc read, ALU + acc/out write
  static constexpr uint64_t kAxi4kBoundary = 4096; // AXI bursts may not cross a 4 KiB boundary

  explicit TimingModel(const HwConfig& config) : c_(config) {}

  // DMA cost of a LOAD or STORE: every burst pays the burst latency plus max(data beats, SRAM
  // elements written or read), bursts are issued one at a time; padding costs one cycle per
  // element; contiguous rows (x_stride == x_size) merge into one transfer.
  uint64_t DmaCycles(const isa::Insn& insn, uint32_t elem_bytes) const;
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
  uint64_t TransferCycles(uint64_t addr, uint64_t bytes, uint32_t elem_bytes) const;
  const HwConfig& c_;
};

}  // namespace loom::fsim

#endif  // LOOM_SIM_FSIM_TIMING_H_
