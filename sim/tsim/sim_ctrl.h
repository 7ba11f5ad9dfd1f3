// The simulation controller: owns the RTL model, drives its clock and reset, calls the plugins
// (bus and memory models) around every clock edge, and writes waveforms on request.
//
// One cycle, Step():
//   1. the inputs of this cycle are applied and settled (clock low);
//   2. every plugin Samples the settled ports: it sees which valid/ready handshakes happen at the
//      coming edge;
//   3. rising edge;
//   4. every plugin Drives the inputs of the next cycle from its new state, and they settle.
// So a plugin that takes a request in cycle t can answer at the earliest in cycle t + 1, like a
// registered slave.
#ifndef LOOM_SIM_TSIM_SIM_CTRL_H_
#define LOOM_SIM_TSIM_SIM_CTRL_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "runtime/core/status.h"
#include "sim/common/deadline.h"
#include "sim/tsim/model.h"

namespace loom::tsim {

class SimPlugin {
 public:
  virtual ~SimPlugin() = default;
  // Drives idle values (no valid asserted) on the plugin's inputs; called at reset.
  virtual void Reset(Ports* ports) = 0;
  // Before the edge that ends cycle `cycle`, with every port settled.
  virtual void Sample(const Ports& ports, uint64_t cycle) = 0;
  // After that edge: the inputs for cycle `cycle` (the next one).
  virtual void Drive(Ports* ports, uint64_t cycle) = 0;
};

class SimCtrl {
 public:
  explicit SimCtrl(std::unique_ptr<Model> model);
  ~SimCtrl();
  SimCtrl(const SimCtrl&) = delete;
  SimCtrl& operator=(const SimCtrl&) = delete;

  // Plugins are called in the order they were added; the caller keeps them alive.
  void AddPlugin(SimPlugin* plugin) { plugins_.push_back(plugin); }

  // Starts an FST waveform file; the model must have been created with tracing.
  Status OpenWaves(const std::string& path);
  void CloseWaves();

  // Holds rst_ni low for `cycles` cycles, then releases it. Plugins are reset too.
  void Reset(uint32_t cycles = 4);
  // Runs `n` clock cycles.
  void Step(uint64_t n = 1);
  // Runs until `done()` holds (checked before every cycle), `max_cycles` cycles have passed, or
  // `deadline` (if given; polled every few thousand cycles) has passed. Returns whether `done()`
  // held.
  bool StepUntil(const std::function<bool()>& done, uint64_t max_cycles,
                 sim::Deadline* deadline = nullptr);

  // Cycles since construction (reset cycles included).
  uint64_t cycle() const { return cycle_; }
  const Ports& ports() const { return ports_; }

 private:
  void Eval();

  std::unique_ptr<Model> model_;
  std::vector<SimPlugin*> plugins_;
  Ports ports_;
  uint64_t cycle_ = 0;
  uint64_t time_ = 0;  // half cycles, for the waveform
  uint64_t dumped_ = 0;
  bool any_dump_ = false;
  bool waves_ = false;
};

}  // namespace loom::tsim

#endif  // LOOM_SIM_TSIM_SIM_CTRL_H_
