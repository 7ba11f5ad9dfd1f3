#include "sim/fsim/timing.h"

#include <algorithm>

namespace loom::fsim {

uint64_t ReadPort::Burst(uint64_t earliest, uint64_t n) {
  const size_t k = count_ % HwConfig::kDmaReadsInFlight;
  uint64_t addr = count_ == 0 ? earliest : std::max(earliest, addr_ + 1);
  if (count_ >= HwConfig::kDmaReadsInFlight) addr = std::max(addr, end_[k] + 1);
  const uint64_t first = std::max(addr + latency_, count_ == 0 ? 0 : last_ + 1);
  ++count_;
  addr_ = addr;
  last_ = first + (n == 0 ? 0 : n - 1);
  end_[k] = last_;
  return last_;
}

template <typename F>
void TimingModel::ForEachBurst(uint64_t addr, uint64_t bytes, uint32_t elem_bytes,
                               F&& burst) const {
  const uint64_t axi = c_.axi_bytes();
  const uint64_t max_burst_bytes = uint64_t{c_.dma_max_burst_beats} * axi;
  while (bytes > 0) {
    // A burst ends at the burst-length limit or the next 4 KiB boundary, whichever comes first.
    const uint64_t to_boundary = kAxi4kBoundary - (addr % kAxi4kBoundary);
    const uint64_t first_beat = addr / axi * axi;
    const uint64_t limit = std::min(to_boundary, first_beat + max_burst_bytes - addr);
    const uint64_t n = std::min(bytes, limit);
    const uint64_t beats = (addr + n + axi - 1) / axi - first_beat / axi;
    const uint64_t elems = (n + elem_bytes - 1) / elem_bytes;
    burst(std::max(beats, elems));
    addr += n;
    bytes -= n;
  }
}

uint64_t TimingModel::DmaCycles(const isa::Insn& insn, uint32_t elem_bytes) const {
  if (insn.opcode == isa::Opcode::kLoad) {
    ReadPort idle(c_.dma_burst_latency);
    return LoadEnd(insn, elem_bytes, 0, &idle);
  }
  uint64_t cycles = kIssueCycles;
  ForEachRow(insn, elem_bytes, [&](uint64_t n) { cycles += c_.dma_burst_latency + n; });
  return cycles;  // a STORE has no padding
}

uint64_t TimingModel::LoadEnd(const isa::Insn& insn, uint32_t elem_bytes, uint64_t start,
                              ReadPort* port) const {
  uint64_t end = start + kIssueCycles;
  ForEachRow(insn, elem_bytes, [&](uint64_t n) { end = port->Burst(start + kIssueCycles, n) + 1; });
  if (insn.y_size == 0 || insn.x_size == 0) return end;
  return end + insn.sram_extent() - uint64_t{insn.y_size} * insn.x_size;  // padding
}

template <typename F>
void TimingModel::ForEachRow(const isa::Insn& insn, uint32_t elem_bytes, F&& burst) const {
  if (insn.y_size == 0 || insn.x_size == 0) return;
  const uint64_t row_bytes = uint64_t{insn.x_size} * elem_bytes;
  const uint64_t base = uint64_t{insn.dram_base} * elem_bytes;
  if (insn.x_stride == insn.x_size || insn.y_size == 1) {
    ForEachBurst(base, row_bytes * insn.y_size, elem_bytes, burst);
  } else {
    for (uint32_t y = 0; y < insn.y_size; ++y) {
      ForEachBurst(base + uint64_t{y} * insn.x_stride * elem_bytes, row_bytes, elem_bytes, burst);
    }
  }
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
