#include "sim/tsim/sim_ctrl.h"

#include <utility>

namespace loom::tsim {

SimCtrl::SimCtrl(std::unique_ptr<Model> model) : model_(std::move(model)) { Eval(); }

SimCtrl::~SimCtrl() { CloseWaves(); }

Status SimCtrl::OpenWaves(const std::string& path) {
  if (!model_->OpenTrace(path)) {
    return FailedPrecondition("cannot write waveforms to '" + path +
                              "': the model was built without tracing or the file cannot be "
                              "opened");
  }
  waves_ = true;
  return Status::Ok();
}

void SimCtrl::CloseWaves() {
  if (waves_) model_->CloseTrace();
  waves_ = false;
}

void SimCtrl::Eval() {
  model_->Eval(&ports_);
  // Settling evaluations outside Step (reset) share a time stamp; the waveform keeps the first.
  if (waves_ && (time_ > dumped_ || !any_dump_)) {
    model_->DumpTrace(time_);
    dumped_ = time_;
    any_dump_ = true;
  }
}

void SimCtrl::Reset(uint32_t cycles) {
  ports_.rst_n = false;
  for (SimPlugin* p : plugins_) p->Reset(&ports_);
  Eval();
  Step(cycles);
  ports_.rst_n = true;
  Eval();
}

void SimCtrl::Step(uint64_t n) {
  for (uint64_t i = 0; i < n; ++i) {
    for (SimPlugin* p : plugins_) p->Sample(ports_, cycle_);
    ports_.clk = true;
    ++time_;
    Eval();
    ++cycle_;
    for (SimPlugin* p : plugins_) p->Drive(&ports_, cycle_);
    ports_.clk = false;
    ++time_;
    Eval();
  }
}

bool SimCtrl::StepUntil(const std::function<bool()>& done, uint64_t max_cycles,
                        sim::Deadline* deadline) {
  // A cycle of the RTL model costs microseconds; one clock read per kCyclesPerPoll is noise.
  constexpr uint64_t kCyclesPerPoll = 1024;
  for (uint64_t i = 0; i < max_cycles; ++i) {
    if (done()) return true;
    if (deadline && i % kCyclesPerPoll == kCyclesPerPoll - 1 && deadline->Passed()) return false;
    Step();
  }
  return done();
}

}  // namespace loom::tsim
