#include "sim/fsim/timing.h"

#include <algorithm>

namespace loom::fsim {

uint64_t TimingModel::TransferCycles(uint64_t addr, uint64_t bytes, uint32_t elem_bytes) const {
  const uint64_t axi = c_.axi_bytes();
  const uint64_t max_burst_bytes = uint64_t{c_.dma_max_burst_beats} * axi;
  uint64_t cycles = 0;
  while (bytes > 0) {
    // A burst ends at the burst-length limit or the next 4 KiB boundary, whichever comes first.
    const uint64_t to_boundary = kAxi4kBoundary - (addr % kAxi4kBoundary);
    const uint64_t first_beat = addr / axi * axi;
    const uint64_t limit = std::min(to_boundary, first_beat + max_burst_bytes - addr);
    const uint64_t n = std::min(bytes, limit);
    const uint64_t beats = (addr + n + axi - 1) / axi - first_beat / axi;
    const uint64_t elems = (n + elem_bytes - 1) / elem_bytes;
    cycles += c_.dma_burst_latency + std::max(beats, elems);
    addr += n;
    bytes -= n;
  }
  return cycles;
}

uint64_t TimingModel::DmaCycles(const isa::Insn& insn, uint32_t elem_bytes) const {
  uint64_t cycles = kIssueCycles;
  if (insn.y_size == 0 || insn.x_size == 0) return cycles;
  const uint64_t row_bytes = uint64_t{insn.x_size} * elem_bytes;
  const uint64_t base = uint64_t{insn.dram_base} * elem_bytes;
  if (insn.x_stride == insn.x_size || insn.y_size == 1) {
    cycles += TransferCycles(base, row_bytes * insn.y_size, elem_bytes);
  } else {
    for (uint32_t y = 0; y < insn.y_size; ++y) {
      cycles += TransferCycles(base + uint64_t{y} * insn.x_stride * elem_bytes, row_bytes,
                               elem_bytes);
    }
  }
  const uint64_t padded = insn.sram_extent();
  cycles += padded - uint64_t{insn.y_size} * insn.x_size;
  return cycles;
}

uint64_t TimingModel::GemmCycles(const isa::Insn& insn, bool epilogue) const {
  const uint64_t iters = uint64_t{insn.loop_out} * insn.loop_in * (insn.uop_end - insn.uop_bgn);
  return kIssueCycles + kGemmPipeline + (epilogue ? 1 : 0) + iters;
}

uint64_t TimingModel::AluCycles(const isa::Insn& insn) const {
  const uint64_t iters = uint64_t{insn.loop_out} * insn.loop_in * (insn.uop_end - insn.uop_bgn);
  // REQUANT reads one ACC operand; its others come from the parameter register's own port.
  const bool one_read = insn.use_imm || insn.alu_op == isa::AluOp::kRequant;
  // RQPARAM writes the parameter buffer in the ALU stage and has no ACC write stage after it.
  const bool no_write =
      insn.alu_op == isa::AluOp::kRqParam || (insn.alu_op == isa::AluOp::kRequant && insn.fuse);
  const uint64_t pipeline = no_write ? kAluPipeline - 1 : kAluPipeline;
  return kIssueCycles + pipeline + iters * (one_read ? 1 : 2);
}

uint32_t TimingModel::FetchBurstInsns() const {
  const uint32_t beats_per_insn = std::max<uint32_t>(1, HwConfig::kInsnBytes / c_.axi_bytes());
  return std::max<uint32_t>(1, c_.dma_max_burst_beats / beats_per_insn);
}

uint64_t TimingModel::FetchBurstCycles(uint32_t count) const {
  const uint64_t beats_per_insn = std::max<uint32_t>(1, HwConfig::kInsnBytes / c_.axi_bytes());
  return c_.dma_burst_latency + beats_per_insn * count;
}

}  // namespace loom::fsim
