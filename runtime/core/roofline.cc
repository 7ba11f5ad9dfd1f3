#include "runtime/core/roofline.h"

#include <cmath>

namespace loom {

double DramBytesPerCycle(const HwConfig& c) {
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
  const double rate = DramBytesPerCycle(c);
  const uint64_t bytes = read_bytes > write_bytes ? read_bytes : write_bytes;
  if (rate > 0) r.dram_cycles = static_cast<uint64_t>(std::ceil(static_cast<double>(bytes) / rate));
  return r;
}

}  // namespace loom
