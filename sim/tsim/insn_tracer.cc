#include "sim/tsim/insn_tracer.h"

namespace loom::tsim {
namespace {

using Kind = sim::TraceEvent::Kind;

// The queue a module waits on in a wait state of the trace port.
isa::Queue WaitQueue(isa::Module m, SeqState state) {
  const isa::Side side = state == SeqState::kPopPrev || state == SeqState::kPushPrev
                             ? isa::Side::kPrev
                             : isa::Side::kNext;
  isa::Queue q = isa::Queue::kLoadToCompute;
  const bool pop = state == SeqState::kPopPrev || state == SeqState::kPopNext;
  // The RTL never reports a wait on a side the module lacks, so both always name a queue.
  if (pop) {
    isa::PopQueue(m, side, &q);
  } else {
    isa::PushQueue(m, side, &q);
  }
  return q;
}

void CloseWait(bool* open, sim::TraceEvent* wait, uint64_t at, std::vector<sim::TraceEvent>* out) {
  if (!*open) return;
  *open = false;
  wait->end = at;
  if (wait->end > wait->begin) out->push_back(*wait);
}

}  // namespace

SeqTrace DecodeSeqTrace(uint32_t port, int module) {
  const uint32_t bits = (port >> (kSeqTraceBits * module)) & ((1u << kSeqTraceBits) - 1);
  SeqTrace t;
  t.start = (bits >> 4) & 1;
  t.done = (bits >> 3) & 1;
  const uint32_t state = bits & 7;
  t.state = state <= static_cast<uint32_t>(SeqState::kPushNext) ? static_cast<SeqState>(state)
                                                                : SeqState::kNoInsn;
  return t;
}

void InsnTracer::Arm(const std::vector<isa::Insn>& program, uint64_t first_cycle) {
  armed_ = true;
  first_cycle_ = last_cycle_ = first_cycle;
  events_.clear();
  for (ModuleTrack& t : tracks_) t = ModuleTrack{};
  for (size_t i = 0; i < program.size(); ++i) {
    tracks_[static_cast<size_t>(program[i].module())].insns.push_back(static_cast<uint32_t>(i));
  }
}

void InsnTracer::Sample(const Ports& ports, uint64_t cycle) {
  if (!armed_ || cycle < first_cycle_) return;
  const uint64_t now = cycle - first_cycle_;
  last_cycle_ = cycle;
  for (int m = 0; m < isa::kNumModules; ++m) {
    ModuleTrack& t = tracks_[static_cast<size_t>(m)];
    const isa::Module module = static_cast<isa::Module>(m);
    const SeqTrace s = DecodeSeqTrace(ports.trace, m);
    const bool have = t.next < t.insns.size();  // an instruction of this module is still to come
    // Waits: one event per run of equal cycles, charged to the module's current instruction.
    sim::TraceEvent w;
    w.module = module;
    bool waiting = have;
    switch (s.state) {
      case SeqState::kNoInsn: w.kind = Kind::kStallFetch; break;
      case SeqState::kPopPrev:
      case SeqState::kPopNext: w.kind = Kind::kStallPop; w.queue = WaitQueue(module, s.state); break;
      case SeqState::kPushPrev:
      case SeqState::kPushNext: w.kind = Kind::kStallPush; w.queue = WaitQueue(module, s.state); break;
      case SeqState::kExec: waiting = false; break;
    }
    if (t.wait_open && (!waiting || t.wait.kind != w.kind || t.wait.queue != w.queue)) {
      CloseWait(&t.wait_open, &t.wait, now, &events_);
    }
    if (waiting && !t.wait_open) {
      w.insn = t.insns[t.next];
      w.begin = now;
      t.wait = w;
      t.wait_open = true;
    }
    if (s.start && have) t.exec_begin = now;
    if (s.done && have) {
      // Execution ends where a wait for queue room began, else with this cycle.
      const bool push_wait = t.wait_open && t.wait.kind == Kind::kStallPush;
      sim::TraceEvent e;
      e.kind = Kind::kExec;
      e.module = module;
      e.insn = t.insns[t.next];
      e.begin = t.exec_begin;
      e.end = push_wait ? t.wait.begin : now + 1;
      CloseWait(&t.wait_open, &t.wait, now + 1, &events_);
      events_.push_back(e);
      ++t.next;
    }
  }
}

std::vector<sim::TraceEvent> InsnTracer::Events() const {
  std::vector<sim::TraceEvent> out = events_;
  for (const ModuleTrack& t : tracks_) {
    if (t.wait_open && last_cycle_ + 1 > first_cycle_ + t.wait.begin) {
      sim::TraceEvent w = t.wait;
      w.end = last_cycle_ + 1 - first_cycle_;
      out.push_back(w);
    }
  }
  return out;
}

}  // namespace loom::tsim
