// The tsim test bench: one RTL model (model.h) under a SimCtrl, with the AXI4 DRAM model on its
// master port and the AXI-Lite register master on its slave port. The accelerator protocol drives
// it through tsim's transports (runtime/drivers/tsim) like a board; tests use it directly to poke
// at the registers.
#ifndef LOOM_SIM_TSIM_HARNESS_H_
#define LOOM_SIM_TSIM_HARNESS_H_

#include <cstdint>
#include <memory>
#include <string>

#include "runtime/core/hw_config.h"
#include "runtime/core/status.h"
#include "sim/common/dram.h"
#include "sim/tsim/axi_dram.h"
#include "sim/tsim/axil_master.h"
#include "sim/tsim/model.h"
#include "sim/tsim/sim_ctrl.h"

namespace loom::tsim {

// The built model for `config`: the one with the same name, else one with the same compatibility
// hash. The error lists what this build has.
Status FindModel(const HwConfig& config, const ModelInfo** out);

class Harness {
 public:
  // Builds and resets the model; `waves`, if not empty, names an FST file that records every
  // cycle from reset on. `rtl_config` is the config the model was built from (its timing fields
  // set the DRAM model's latency).
  static Status Create(const ModelInfo& model, uint64_t dram_bytes, const std::string& waves,
                       std::unique_ptr<Harness>* out);

  SimCtrl& ctrl() { return *ctrl_; }
  AxilMaster& regs() { return *regs_; }
  AxiDram& bus() { return *bus_; }
  sim::Dram& dram() { return dram_; }
  const HwConfig& rtl_config() const { return rtl_config_; }
  bool irq() const { return ctrl_->ports().irq; }

  // Reads a 64-bit register pair (LO at `offset`, HI at offset + 4).
  Status Read64(uint32_t offset, uint64_t* value);

 private:
  Harness(const HwConfig& rtl_config, uint64_t dram_bytes);

  HwConfig rtl_config_;
  sim::Dram dram_;
  std::unique_ptr<SimCtrl> ctrl_;
  std::unique_ptr<AxiDram> bus_;
  std::unique_ptr<AxilMaster> regs_;
};

}  // namespace loom::tsim

#endif  // LOOM_SIM_TSIM_HARNESS_H_
