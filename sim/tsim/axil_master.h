// Register access over loom_top's AXI4-Lite slave, as a board driver performs it: one read or
// write at a time, each running the clock until the slave responds.
#ifndef LOOM_SIM_TSIM_AXIL_MASTER_H_
#define LOOM_SIM_TSIM_AXIL_MASTER_H_

#include <cstdint>

#include "runtime/core/status.h"
#include "sim/tsim/sim_ctrl.h"

namespace loom::tsim {

class AxilMaster : public SimPlugin {
 public:
  // `ctrl` runs the clock during an access; the master must also be added to it as a plugin.
  explicit AxilMaster(SimCtrl& ctrl) : ctrl_(ctrl) {}

  Status Write(uint32_t offset, uint32_t value, uint32_t strobes = 0xf);
  Status Read(uint32_t offset, uint32_t* value);

  void Reset(Ports* ports) override;
  void Sample(const Ports& ports, uint64_t cycle) override;
  void Drive(Ports* ports, uint64_t cycle) override;

 private:
  // A slave that has not answered after this many cycles is broken.
  static constexpr uint64_t kTimeoutCycles = 64;

  SimCtrl& ctrl_;
  enum class Op { kNone, kWrite, kRead } op_ = Op::kNone;
  uint32_t addr_ = 0, data_ = 0, strobes_ = 0;
  bool addr_done_ = false, data_done_ = false, resp_done_ = false;
  uint32_t resp_ = 0;
};

}  // namespace loom::tsim

#endif  // LOOM_SIM_TSIM_AXIL_MASTER_H_
