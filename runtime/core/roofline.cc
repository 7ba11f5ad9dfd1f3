#include "runtime/core/roofline.h"

#include <cmath>

namespace loom {

double DramBytesPerCycle(const HwConfig& c) { return c.axi_bytes(); }

double DramWriteBytesPerCycle(const HwConfig& c) {
  const double burst_bytes = static_cast<double>(c.dma_max_burst_beats) * c.axi_bytes();
  return burst_bytes / (static_cast<double>(c.dma_burst_latency) + c.dma_max_burst_beats);
}

double RooflineBound::Ratio(uint64_t measured) const {
  const uint64_t b = cycles();
  return b ? static_cast<double>(measured) / static_cast<double>(b) : 0.0;
}

RooflineBound Roofline(const HwConfig& c, uint64_t macs, uint64_t read_bytes,
                       uint64_t write_bytes) {
  RooflineBound r;
  const uint64_t peak = c.macs_per_cycle();
  if (peak > 0) r.compute_cycles = (macs + peak - 1) / peak;
  auto cycles = [](uint64_t bytes, double rate) -> uint64_t {
    return rate > 0 ? static_cast<uint64_t>(std::ceil(static_cast<double>(bytes) / rate)) : 0;
  };
  const uint64_t reads = cycles(read_bytes, DramBytesPerCycle(c));
  const uint64_t writes = cycles(write_bytes, DramWriteBytesPerCycle(c));
  r.dram_cycles = reads > writes ? reads : writes;
  return r;
}

}  // namespace loom
