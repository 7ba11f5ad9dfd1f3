// An AXI4 slave backed by the simulators' shared DRAM model (sim/common, the class fsim runs on),
// with the timing fsim's model assumes (docs/fsim.md): the first data beat of a read burst comes
// `latency` cycles after its address handshake, then one beat per cycle while the master is
// ready; the response of a write burst comes `latency` cycles after its last data beat.
//
// It also checks what the RTL promises about its bus use (docs/rtl.md): INCR bursts of full-width
// beats, aligned, at most 256 beats, never crossing 4 KiB, at most HwConfig::kDmaReadsInFlight
// read bursts and one write burst outstanding. The first violation is kept in error(). An access
// outside DRAM gets SLVERR (and a write writes nothing).
#ifndef LOOM_SIM_TSIM_AXI_DRAM_H_
#define LOOM_SIM_TSIM_AXI_DRAM_H_

#include <array>
#include <cstdint>
#include <string>

#include "runtime/core/hw_config.h"
#include "sim/common/dram.h"
#include "sim/common/ring.h"
#include "sim/tsim/sim_ctrl.h"

namespace loom::tsim {

class AxiDram : public SimPlugin {
 public:
  AxiDram(sim::Dram& dram, uint32_t axi_bytes, uint32_t latency);

  void Reset(Ports* ports) override;
  void Sample(const Ports& ports, uint64_t cycle) override;
  void Drive(Ports* ports, uint64_t cycle) override;

  // Random back-pressure, for tests of the master's handshakes: each cycle the address and
  // write-data channels refuse with probability `percent` %, and a read beat or write response
  // that could be offered is held back with the same probability (once offered it stays, as AXI
  // requires). 0 turns it off; timing then is as described above.
  void SetStalls(uint32_t percent, uint32_t seed);

  // The first AXI rule the master broke, or "".
  const std::string& error() const { return error_; }
  uint64_t read_bursts() const { return read_bursts_; }
  uint64_t write_bursts() const { return write_bursts_; }

 private:
  struct Burst {
    uint64_t addr = 0;
    uint32_t beats = 0;
    uint32_t done = 0;   // beats transferred so far
    uint64_t ready = 0;  // read: cycle of the first beat
    bool in_range = true;
  };
  struct Response {
    uint64_t ready = 0;  // cycle the response is valid
    uint32_t resp = 0;
  };
  struct Beat {
    std::array<uint32_t, kMaxAxiWords> data;
    std::array<uint32_t, kMaxAxiWords / 8> strb;
    bool last;
  };

  // Records the first broken rule. Takes a plain string so that the checks, made on every beat,
  // build no text unless one fails.
  void Check(bool ok, const char* what, uint64_t cycle);
  Burst Accept(uint64_t addr, uint32_t len, uint32_t size, uint32_t burst, const char* kind,
               uint64_t cycle);
  void WriteBeat(const Beat& beat, uint64_t cycle);

  sim::Dram& dram_;
  const uint32_t axi_bytes_;
  const uint32_t latency_;
  // Rings reserved at construction for what the rules allow (one burst each way, its beats), so
  // a run allocates nothing; a master that breaks the rules still gets served (and reported).
  sim::Ring<Burst> reads_;
  sim::Ring<Burst> writes_;        // address accepted, data not complete
  sim::Ring<Beat> early_beats_;    // data that came before its address
  sim::Ring<Response> responses_;  // write responses
  bool Stall();

  std::string error_;
  uint32_t stall_percent_ = 0;
  uint64_t rng_ = 0;
  uint64_t read_bursts_ = 0;
  uint64_t write_bursts_ = 0;
};

}  // namespace loom::tsim

#endif  // LOOM_SIM_TSIM_AXI_DRAM_H_
