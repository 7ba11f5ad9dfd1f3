// The roofline bound of a piece of accelerator work: no schedule can finish it in fewer cycles
// than its MACs need on the GEMM core or its DRAM bytes need on the DMA ports. Profiles and the
// tiling benchmark divide measured cycles by this bound to show how far a layer is from the limit.
//
// The DRAM rate is the one fsim's timing model (sim/fsim/timing.h) sustains: full-length bursts,
// issued one at a time, each paying the burst latency before its beats. Loads and stores use
// separate ports (read and write), so the two directions bound the time separately.
#ifndef LOOM_RUNTIME_CORE_ROOFLINE_H_
#define LOOM_RUNTIME_CORE_ROOFLINE_H_

#include <cstdint>

#include "runtime/core/hw_config.h"

namespace loom {

// Bytes per cycle one DMA port moves in back-to-back full bursts.
double DramBytesPerCycle(const HwConfig& config);

struct RooflineBound {
  uint64_t compute_cycles = 0;  // MACs / MACs per cycle
  uint64_t dram_cycles = 0;     // max(read bytes, write bytes) / bytes per cycle
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
