// tsim's instruction timeline: a plugin that watches loom_top's trace port (one
// loom_pkg::SEQ_TRACE_W bits per module: issue, completion, and what the sequencer waited on) every
// cycle and turns it into the same TraceEvents fsim records, so `loom profile` and `loom run
// --trace` read the RTL's timeline exactly as they read fsim's.
//
// Each module takes its instructions in stream order, so the k-th issue a module reports is the
// k-th instruction of the stream that belongs to it. Waits before an issue (no instruction at the
// queue head, a token not yet there) are charged to the instruction that issues next; waits for
// room in a token queue after completion to the one that completes. The DRAM port is not on the
// trace port: time an instruction waits for it counts as execution, as the *_BUSY counters count
// it.
#ifndef LOOM_SIM_TSIM_INSN_TRACER_H_
#define LOOM_SIM_TSIM_INSN_TRACER_H_

#include <array>
#include <cstdint>
#include <vector>

#include "runtime/core/isa.h"
#include "sim/common/trace_event.h"
#include "sim/tsim/sim_ctrl.h"

namespace loom::tsim {

// loom_pkg SEQ_* values.
enum class SeqState : uint8_t { kNoInsn, kExec, kPopPrev, kPopNext, kPushPrev, kPushNext };

// One module's entry of the trace port ({start, done, state[2:0]}, module m at bits [5m+4:5m]).
struct SeqTrace {
  bool start = false;
  bool done = false;
  SeqState state = SeqState::kNoInsn;
};
inline constexpr int kSeqTraceBits = 5;
SeqTrace DecodeSeqTrace(uint32_t port, int module);

class InsnTracer : public SimPlugin {
 public:
  // Starts recording a run of `program` whose first cycle is `first_cycle` (event times count
  // from it, as fsim's do from the start of its run).
  void Arm(const std::vector<isa::Insn>& program, uint64_t first_cycle);
  void Disarm() { armed_ = false; }
  // The events of the armed run so far, open waits closed at the last sampled cycle.
  std::vector<sim::TraceEvent> Events() const;

  void Reset(Ports*) override {}
  void Sample(const Ports& ports, uint64_t cycle) override;
  void Drive(Ports*, uint64_t) override {}

 private:
  struct ModuleTrack {
    std::vector<uint32_t> insns;  // stream indices of this module's instructions, in order
    size_t next = 0;              // the one at the head or executing
    uint64_t exec_begin = 0;
    bool wait_open = false;       // a wait event is running
    sim::TraceEvent wait;
  };
  bool armed_ = false;
  uint64_t first_cycle_ = 0, last_cycle_ = 0;
  std::array<ModuleTrack, isa::kNumModules> tracks_;
  std::vector<sim::TraceEvent> events_;
};

}  // namespace loom::tsim

#endif  // LOOM_SIM_TSIM_INSN_TRACER_H_
