// HwConfig: the accelerator's parameters, the one contract every part of Loom reads (compiler,
// simulators, runtime, and the RTL through a generated SystemVerilog package).
//
// The struct holds only the primary fields written in a config file; everything else (element
// sizes, buffer depths, index widths) is derived by the accessors below, so there is exactly one
// place that knows how a depth follows from a size.
#ifndef LOOM_RUNTIME_CORE_HW_CONFIG_H_
#define LOOM_RUNTIME_CORE_HW_CONFIG_H_

#include <cstdint>
#include <string>

#include "runtime/core/status.h"

namespace loom {

struct HwConfig {
  std::string name;  // e.g. "1x16x16"; not part of the hash

  // GEMM core shape: per cycle, a (batch x block_in) input tile times a (block_out x block_in)
  // weight tile accumulates into a (batch x block_out) accumulator tile.
  uint32_t batch = 1;
  uint32_t block_in = 16;
  uint32_t block_out = 16;

  // Data widths in bits. This generation supports int8 inputs/weights/outputs and int32 accumulators.
  uint32_t inp_bits = 8;
  uint32_t wgt_bits = 8;
  uint32_t acc_bits = 32;
  uint32_t out_bits = 8;

  // On-chip buffer sizes in bytes (powers of two). The out buffer has the acc buffer's depth.
  uint32_t uop_buffer_bytes = 32 * 1024;
  uint32_t inp_buffer_bytes = 32 * 1024;
  uint32_t wgt_buffer_bytes = 256 * 1024;
  uint32_t acc_buffer_bytes = 128 * 1024;

  // Token queue capacity (each of the four queues); a push to a full queue stalls the pusher.
  uint32_t token_queue_depth = 32;
  // Per-module instruction queue capacity between fetch and load/compute/store.
  uint32_t cmd_queue_depth = 32;

  // Memory system and clock: these only change timing, never results (see CompatibilityHash).
  uint32_t axi_data_bits = 64;
  uint32_t dma_burst_latency = 32;  // cycles from a burst request to its first data beat
  uint32_t dma_max_burst_beats = 256;
  double clock_mhz = 100.0;

  // --- derived ---
  static constexpr uint32_t kUopBytes = 4;
  static constexpr uint32_t kInsnBytes = 16;
  // Read bursts the accelerator keeps in flight on its AXI read port: a LOAD issues the next
  // burst's address while earlier bursts' data still come back (in order), so the burst latency
  // is paid once per run of bursts instead of once per burst. Four cover the latency of every
  // shipped config's rows; Zynq's HP ports accept 8 reads, ZynqMP's and Alveo's more.
  static constexpr uint32_t kDmaReadsInFlight = 4;
  // The RTL's in-flight FIFOs wrap their pointers at this depth (loom_dma_rd, loom_axi_rd_arb).
  static_assert((kDmaReadsInFlight & (kDmaReadsInFlight - 1)) == 0 && kDmaReadsInFlight > 0,
                "kDmaReadsInFlight must be a power of two");

  uint32_t inp_elem_bytes() const { return batch * block_in * inp_bits / 8; }
  uint32_t wgt_elem_bytes() const { return block_out * block_in * wgt_bits / 8; }
  uint32_t acc_elem_bytes() const { return batch * block_out * acc_bits / 8; }
  uint32_t out_elem_bytes() const { return batch * block_out * out_bits / 8; }

  uint32_t uop_depth() const { return uop_buffer_bytes / kUopBytes; }
  uint32_t inp_depth() const { return inp_buffer_bytes / inp_elem_bytes(); }
  uint32_t wgt_depth() const { return wgt_buffer_bytes / wgt_elem_bytes(); }
  uint32_t acc_depth() const { return acc_buffer_bytes / acc_elem_bytes(); }
  uint32_t out_depth() const { return acc_depth(); }
  uint32_t out_buffer_bytes() const { return out_depth() * out_elem_bytes(); }

  // Index widths: log2 of each depth (depths are powers of two).
  uint32_t uop_idx_bits() const { return Log2(uop_depth()); }
  uint32_t inp_idx_bits() const { return Log2(inp_depth()); }
  uint32_t wgt_idx_bits() const { return Log2(wgt_depth()); }
  uint32_t acc_idx_bits() const { return Log2(acc_depth()); }

  uint32_t axi_bytes() const { return axi_data_bits / 8; }
  // Peak multiply-accumulates per cycle of the GEMM core.
  uint64_t macs_per_cycle() const { return uint64_t{batch} * block_in * block_out; }

  // Field-by-field equality, name included.
  bool operator==(const HwConfig& o) const {
    return name == o.name && batch == o.batch && block_in == o.block_in &&
           block_out == o.block_out && inp_bits == o.inp_bits && wgt_bits == o.wgt_bits &&
           acc_bits == o.acc_bits && out_bits == o.out_bits &&
           uop_buffer_bytes == o.uop_buffer_bytes && inp_buffer_bytes == o.inp_buffer_bytes &&
           wgt_buffer_bytes == o.wgt_buffer_bytes && acc_buffer_bytes == o.acc_buffer_bytes &&
           token_queue_depth == o.token_queue_depth && cmd_queue_depth == o.cmd_queue_depth &&
           axi_data_bits == o.axi_data_bits && dma_burst_latency == o.dma_burst_latency &&
           dma_max_burst_beats == o.dma_max_burst_beats && clock_mhz == o.clock_mhz;
  }
  bool operator!=(const HwConfig& o) const { return !(*this == o); }

  // Checks every field and every derived quantity (powers of two, widths, instruction fields that
  // must fit in 128 bits). The message names the field.
  Status Validate() const;

  // Canonical text of the fields that decide what a package means: shape, data widths, buffer
  // sizes, token queue depth. Timing-only fields (clock, AXI width, DMA latency, burst length,
  // command queue depth) are left out, so one package runs on boards that differ only in those.
  std::string CompatibilityKey() const;
  // 64-bit FNV-1a of CompatibilityKey(); stable across hosts and releases.
  uint64_t CompatibilityHash() const;
  // The hash as 16 lowercase hex digits.
  std::string HashHex() const;

  // Smallest r with 2^r >= v.
  static uint32_t Log2(uint32_t v) {
    uint32_t r = 0;
    while ((uint64_t{1} << r) < v) ++r;
    return r;
  }
};

bool IsPowerOfTwo(uint64_t v);

}  // namespace loom

#endif  // LOOM_RUNTIME_CORE_HW_CONFIG_H_
