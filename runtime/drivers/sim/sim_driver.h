// What the two simulator drivers (fsim, tsim) share: device memory is the simulator's DRAM model,
// handed out by a DeviceHeap; copies are checked against live allocations; a submission is checked
// and kept until Wait() runs the simulator. A driver supplies the DRAM (null while closed), its
// name, and the run itself.
#ifndef LOOM_RUNTIME_DRIVERS_SIM_SIM_DRIVER_H_
#define LOOM_RUNTIME_DRIVERS_SIM_SIM_DRIVER_H_

#include <cstdint>
#include <string>

#include "runtime/drivers/device_heap.h"
#include "runtime/drivers/driver.h"
#include "sim/fsim/dram.h"

namespace loom::runtime {

class SimDriver : public Driver {
 public:
  bool executes_programs() const override { return true; }
  Status Allocate(uint64_t bytes, uint64_t align, uint64_t* addr) override;
  Status Free(uint64_t addr) override;
  Status CopyIn(uint64_t dst, const void* src, uint64_t bytes) override;
  Status CopyOut(void* dst, uint64_t src, uint64_t bytes) override;
  Status Submit(uint64_t insn_addr, uint32_t insn_count) override;

 protected:
  // The simulator's DRAM, or null when the device is not open.
  virtual fsim::Dram* dram() = 0;
  // After Open: the heap covers the whole DRAM.
  void ResetHeap() { heap_.Reset(dram()->base(), dram()->size()); }
  Status CheckOpen();
  // Takes the pending submission for Wait(); FailedPrecondition when there is none.
  Status TakeSubmission(uint64_t* insn_addr, uint32_t* insn_count);
  void ClearSubmission() { pending_ = false; }

 private:
  Status CheckRange(uint64_t addr, uint64_t bytes);

  DeviceHeap heap_;
  uint64_t insn_addr_ = 0;
  uint32_t insn_count_ = 0;
  bool pending_ = false;
};

}  // namespace loom::runtime

#endif  // LOOM_RUNTIME_DRIVERS_SIM_SIM_DRIVER_H_
