// The roofline bound of a piece of accelerator work: no schedule can finish it in fewer cycles
// than its MACs need on the GEMM core or its DRAM bytes need on the DMA ports. Profiles and the
// tiling benchmark divide measured cycles by this bound to show how far a layer is from the limit.
//
// The DRAM rates are the ones fsim's timing model (sim/fsim/timing.h) and the RTL sustain. Reads
// keep HwConfig::kDmaReadsInFlight bursts in flight, which hides the burst latency behind the
// beats of the bursts before: a full bus word per cycle. Writes go one full-length burst at a time,
// each paying the burst latency before its beats. Loads and stores use separate ports (read and
// write), so the two directions bound the time separately.
#ifndef LOOM_RUNTIME_CORE_ROOFLINE_H_
#define LOOM_RUNTIME_CORE_ROOFLINE_H_

#include <cstdint>

#include "runtime/core/hw_config.h"

namespace loom {

// Bytes per cycle the read port moves (bursts in flight) and the write port moves (one full burst
// at a time).
double DramBytesPerCycle(const HwConfig& config);
double DramWriteBytesPerCycle(const HwConfig& config);

struct RooflineBound {
  uint64_t compute_cycles = 0;  // MACs / MACs per cycle
  uint64_t dram_cycles = 0;     // max(read bytes / read rate, write bytes / write rate)
  uint64_t cycles() const { return compute_cycles > dram_cycles ? compute_cycles : dram_cycles; }
  bool dram_bound() const { return dram_cycles > compute_cycles; }
  // measured / bound (>= 1 for any real schedule); 0 when the bound is 0.
  double Ratio(uint64_t measured) const;
};

// `macs`: the work counted as the caller chooses (the model's own MACs for the real-MAC bound);
// `read_bytes` / `write_bytes`: the DRAM traffic no schedule avoids (each input, weight and output
// byte once).
RooflineBound Roofline(const HwConfig& config, uint64_t macs, uint64_t read_bytes,
                       uint64_t write_bytes);

}  // namespace loom

#endif  // LOOM_RUNTIME_CORE_ROOFLINE_H_
