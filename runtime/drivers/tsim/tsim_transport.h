// tsim as a transport of the accelerator protocol (runtime/drivers/protocol): the Verilated RTL's
// AXI-Lite slave and irq line as a RegisterTransport, the harness DRAM as a DmaTransport. The
// protocol that runs on a board is then the code that runs against the RTL here.
//
// Time: the register transport's clock is simulated time, the model's cycles at the config's clock,
// so a wait's timeout is the same number of accelerator cycles on the model as on the board; Pause
// and WaitInterrupt simulate. On top, a host-time (wall-clock) limit per run bounds what simulating
// costs (DriverOptions::wall_timeout_ms); a wait it ends is reported as such.
//
// Interrupt: irq_o of the model. Like UIO, the transport masks the interrupt after each one it
// delivers and EnableInterrupt unmasks it, so a protocol that forgets to re-enable it hangs here.
//
// Memory: with `stale_cache` (the tsim device's default) the CPU's view of every DMA buffer is a
// separate shadow copy, as a non-coherent cache would be: SyncForDevice copies exactly its range
// from the shadow to the DRAM model, SyncForCpu exactly its range back. Data the driver forgot to
// flush is invisible to the RTL, results it forgot to invalidate read stale. Without it the CPU
// view is the DRAM model itself (coherent).
#ifndef LOOM_RUNTIME_DRIVERS_TSIM_TSIM_TRANSPORT_H_
#define LOOM_RUNTIME_DRIVERS_TSIM_TSIM_TRANSPORT_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "runtime/core/hw_config.h"
#include "runtime/core/isa.h"
#include "runtime/core/status.h"
#include "runtime/drivers/device_heap.h"
#include "runtime/drivers/protocol/transport.h"
#include "sim/common/deadline.h"
#include "sim/common/trace_event.h"
#include "sim/tsim/harness.h"
#include "sim/tsim/insn_tracer.h"

namespace loom::runtime {

// Builds the RTL model for `config` (the one with its name, else one with its hash) with
// `dram_bytes` of DRAM; `waves` names an FST file of the whole run, empty for none. The protocol's
// open then checks the model's CONFIG_HASH against the config.
Status CreateTsimHarness(const HwConfig& config, uint64_t dram_bytes, const std::string& waves,
                         std::shared_ptr<tsim::Harness>* out);

class TsimRegisters final : public RegisterTransport {
 public:
  // `config` is what programs are built for (its clock sets simulated time; its layout decodes
  // traced streams). `wall_timeout_ms`: host time one run may take, 0 for no limit.
  TsimRegisters(std::shared_ptr<tsim::Harness> harness, const HwConfig& config,
                uint32_t wall_timeout_ms);
  ~TsimRegisters() override;

  Status Read32(uint32_t offset, uint32_t* value) override;
  // A write of CTRL.start also starts the run's host-time limit and, when tracing, the timeline.
  Status Write32(uint32_t offset, uint32_t value) override;
  Status EnableInterrupt() override;
  Status WaitInterrupt(int timeout_ms, bool* fired) override;
  uint64_t NowNanos() override;
  void Pause(uint32_t micros) override;
  uint32_t ExpiredHostLimitMs() override;
  SequencerState ModuleState(int module) override;
  // The model's reset (a board would pulse the accelerator's reset line).
  Status ResetAccelerator() override;

  tsim::Harness& harness() { return *harness_; }
  void set_wall_timeout_ms(uint32_t ms) { wall_timeout_ms_ = ms; }

  // Records the instruction timeline of each run from its start write on (the stream decoded from
  // the DRAM model, as the hardware fetches it).
  void set_trace(bool on) { trace_ = on; }
  // After a run: ends its recording and returns the decoded stream and the events (empty when not
  // tracing).
  void FinishTrace(std::vector<isa::Insn>* program, std::vector<sim::TraceEvent>* events);

 private:
  uint64_t CyclesFor(uint64_t micros) const;
  void ArmRun();

  std::shared_ptr<tsim::Harness> harness_;
  HwConfig config_;
  isa::Layout layout_;
  uint32_t wall_timeout_ms_ = 0;
  sim::Deadline deadline_;
  bool masked_ = false;  // after an interrupt was delivered, until EnableInterrupt
  uint32_t insn_addr_lo_ = 0, insn_addr_hi_ = 0, insn_count_ = 0;  // as last written
  bool trace_ = false;
  tsim::InsnTracer tracer_;
  bool tracing_ = false;
  std::vector<isa::Insn> program_;
  std::vector<sim::TraceEvent> events_;
};

class TsimDma final : public DmaTransport {
 public:
  // Device memory is the whole DRAM model, handed out by a DeviceHeap.
  TsimDma(std::shared_ptr<tsim::Harness> harness, bool stale_cache);

  Coherence coherence() const override {
    return stale_cache_ ? Coherence::kNonCoherent : Coherence::kCoherent;
  }
  Status Allocate(uint64_t bytes, uint64_t align, DmaBuffer* buffer) override;
  Status Free(const DmaBuffer& buffer) override;
  Status SyncForDevice(const DmaBuffer& buffer, uint64_t offset, uint64_t bytes) override;
  Status SyncForCpu(const DmaBuffer& buffer, uint64_t offset, uint64_t bytes) override;

  bool stale_cache() const { return stale_cache_; }

 private:
  // kOutOfRange unless [offset, offset + bytes) is inside `buffer` and `buffer` is live.
  Status Check(const char* what, const DmaBuffer& buffer, uint64_t offset, uint64_t bytes) const;

  std::shared_ptr<tsim::Harness> harness_;
  bool stale_cache_;
  DeviceHeap heap_;
  std::vector<uint8_t> shadow_;  // the CPU's view in stale-cache mode, indexed like the DRAM
};

}  // namespace loom::runtime

#endif  // LOOM_RUNTIME_DRIVERS_TSIM_TSIM_TRANSPORT_H_
