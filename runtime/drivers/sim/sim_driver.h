// What the two simulator drivers (fsim, tsim) share: device memory is the simulator's DRAM model,
// handed out by a DeviceHeap; copies are checked against live allocations; a submission is checked
// and kept until Wait() runs the simulator; and a run's instruction events (sim::TraceEvent, which
// both simulators produce) become the Perfetto trace and the per-instruction timeline; the counters
// of the last completed run are what ReadCounters reports. A driver supplies the DRAM (null while
// closed), its name, the run itself and the mapping of its simulator's statistics to counters.
#ifndef LOOM_RUNTIME_DRIVERS_SIM_SIM_DRIVER_H_
#define LOOM_RUNTIME_DRIVERS_SIM_SIM_DRIVER_H_

#include <cstdint>
#include <string>
#include <vector>

#include "runtime/drivers/device_heap.h"
#include "runtime/drivers/driver.h"
#include "runtime/drivers/trace_json.h"
#include "sim/common/dram.h"
#include "sim/common/trace_event.h"

namespace loom::runtime {

// `timeout_ms` of device time as cycles at the config's clock (Driver::Wait's timeout).
uint64_t DeviceCycles(uint32_t timeout_ms, const HwConfig& config);

// A device's instruction timeline: each run's events (sim::TraceEvent, which both simulators
// produce) folded into the Perfetto trace (DriverOptions::trace) and the per-instruction timeline
// of the last run (DriverOptions::timeline). Shared by the simulator drivers and tsim's protocol
// driver.
class RunRecorder {
 public:
  // At Open: which records to keep.
  void Open(const DriverOptions& options);
  // Whether the simulator should record instruction events for the next run.
  bool recording() const { return trace_ || timeline_; }
  void Annotate(const std::string& label) { label_ = label; }
  // After a run: folds its events into the trace and the timeline. `title` names the device in
  // the trace ("fsim, 1x16x16").
  void Record(const std::string& title, const std::vector<isa::Insn>& program,
              const std::vector<sim::TraceEvent>& events, uint64_t cycles);
  // `device` names the device in the error when the record was not asked for at Open.
  Status InsnTimeline(const char* device, std::vector<InsnTiming>* out) const;
  Status TraceJson(const char* device, std::string* out) const;

 private:
  bool trace_ = false;
  bool timeline_ = false;
  std::vector<InsnTiming> timeline_data_;
  std::string label_;
  TraceBuilder trace_builder_;
};

class SimDriver : public Driver {
 public:
  bool executes_programs() const override { return true; }
  Status Allocate(uint64_t bytes, uint64_t align, uint64_t* addr) override;
  Status Free(uint64_t addr) override;
  Status CopyIn(uint64_t dst, const void* src, uint64_t bytes) override;
  Status CopyOut(void* dst, uint64_t src, uint64_t bytes) override;
  Status Submit(uint64_t insn_addr, uint32_t insn_count) override;
  Status InsnTimeline(std::vector<InsnTiming>* out) override;
  void Annotate(const std::string& label) override { recorder_.Annotate(label); }
  Status TraceJson(std::string* out) override;
  Status ReadCounters(DeviceCounters* out) override;

 protected:
  // The simulator's DRAM, or null when the device is not open.
  virtual sim::Dram* dram() = 0;
  // After Open: the heap covers the whole DRAM.
  void ResetHeap() { heap_.Reset(dram()->base(), dram()->size()); }
  Status CheckOpen();
  // Takes the pending submission for Wait(); FailedPrecondition when there is none.
  Status TakeSubmission(uint64_t* insn_addr, uint32_t* insn_count);
  void ClearSubmission() { pending_ = false; }
  // Before a run and at Close: no completed run to report (ReadCounters gives valid == false).
  void ClearCounters() { counters_ = DeviceCounters{}; }
  // After a completed run: its counters (valid is set here).
  void SetCounters(const DeviceCounters& counters) {
    counters_ = counters;
    counters_.valid = true;
  }

  // At Open: which records the driver keeps (DriverOptions::trace, ::timeline).
  void OpenRecording(const DriverOptions& options) { recorder_.Open(options); }
  // Whether the simulator should record instruction events for the next run.
  bool recording() const { return recorder_.recording(); }
  // After a run: folds its events into the trace and the timeline (RunRecorder::Record).
  void RecordRun(const std::string& title, const std::vector<isa::Insn>& program,
                 const std::vector<sim::TraceEvent>& events, uint64_t cycles) {
    recorder_.Record(title, program, events, cycles);
  }

 private:
  Status CheckRange(uint64_t addr, uint64_t bytes);

  DeviceHeap heap_;
  RunRecorder recorder_;
  uint64_t insn_addr_ = 0;
  uint32_t insn_count_ = 0;
  bool pending_ = false;
  DeviceCounters counters_;
};

}  // namespace loom::runtime

#endif  // LOOM_RUNTIME_DRIVERS_SIM_SIM_DRIVER_H_
