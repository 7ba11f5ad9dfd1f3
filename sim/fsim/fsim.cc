// The scheduler: decides when each instruction runs. Instructions execute (functionally, all at
// once) in order of their start cycle, which keeps the functional result identical to the
// hardware's for any program whose tokens order its buffer accesses.
#include "sim/fsim/fsim.h"

#include <algorithm>

#include "sim/common/ring.h"
#include "sim/fsim/timing.h"

namespace loom::fsim {

using isa::Insn;
using isa::Module;
using isa::Opcode;
using isa::Queue;

namespace {

constexpr uint64_t kNever = UINT64_MAX;
// An instruction's scheduling costs about as much host time as this many GEMM micro-op iterations
// (sim::Deadline::Poll's unit).
constexpr uint64_t kPollPerInsn = 64;

int Idx(Module m) { return static_cast<int>(m); }
int Idx(Queue q) { return static_cast<int>(q); }

struct PendingPush {
  Queue queue;
  uint64_t ready;  // cycle the pushing instruction ended
  uint32_t insn;
};

struct ModuleState {
  std::vector<uint32_t> insns;  // stream indices, in order
  size_t next = 0;
  uint64_t time = 0;  // cycle the module is free
  std::vector<PendingPush> pending;
  bool done() const { return next >= insns.size() && pending.empty(); }
};

// A token queue: the push cycle of each token, oldest first. A full queue makes the pushing
// instruction wait (PendingPush), so it never holds more than token_queue_depth tokens and a ring
// of that size, reserved once, replaces a deque that would allocate as it moves along.
using TokenFifo = sim::Ring<uint64_t>;

}  // namespace

struct SchedulerState {
  std::array<ModuleState, isa::kNumModules> modules;
  std::array<TokenFifo, isa::kNumQueues> queues;
  std::vector<uint64_t> dispatch;
  std::vector<uint64_t> start;
  std::vector<uint32_t> pos_in_module;
};

namespace {

// Why a module's next instruction cannot start yet, or when it can.
struct Candidate {
  uint64_t start = kNever;
  sim::TraceEvent::Kind cause = sim::TraceEvent::Kind::kExec;  // kExec: no wait
  Queue queue = Queue::kLoadToCompute;
  std::string blocked;  // for the deadlock report
};

class Scheduler {
 public:
  // `state` is reset here; its storage is kept from earlier runs.
  Scheduler(const HwConfig& config, const std::vector<Insn>& insns, Machine& machine,
            sim::Dram& dram, const RunOptions& options, Stats* stats,
            std::vector<sim::TraceEvent>* trace, SchedulerState* state)
      : c_(config),
        timing_(config),
        insns_(insns),
        machine_(machine),
        dram_(dram),
        timing_only_(options.timing_only),
        max_cycles_(options.max_cycles),
        deadline_(options.wall_ms),
        stats_(stats),
        trace_(trace),
        modules_(state->modules),
        queues_(state->queues),
        dispatch_(state->dispatch),
        start_(state->start),
        pos_in_module_(state->pos_in_module) {
    for (ModuleState& m : modules_) {
      m.insns.clear();
      m.next = 0;
      m.time = 0;
      m.pending.clear();
    }
    for (TokenFifo& q : queues_) q.Reserve(c_.token_queue_depth);
    dispatch_.assign(insns.size(), kNever);
    start_.assign(insns.size(), kNever);
    pos_in_module_.assign(insns.size(), 0);
    for (uint32_t i = 0; i < insns.size(); ++i) {
      ModuleState& m = modules_[Idx(insns[i].module())];
      pos_in_module_[i] = static_cast<uint32_t>(m.insns.size());
      m.insns.push_back(i);
    }
  }

  Status Run();

 private:
  void AdvanceFetch();
  // `explain`: say why the module cannot start (Candidate::blocked), for the deadlock report
  // only; the schedule itself builds no text.
  Candidate Evaluate(Module m, bool explain = false);
  Status Execute(Module m, const Candidate& cand);
  void CompletePendingPush(Queue q, uint64_t pop_time);
  void Stall(Module m, sim::TraceEvent::Kind kind, Queue q, uint32_t insn, uint64_t from,
             uint64_t to);
  Status Deadlock();
  // A limit was reached: `why`, then where each module stands; `running` is the instruction that
  // was executing or about to (its module is described by `running_what`).
  Status Stopped(const std::string& why, uint32_t running, const std::string& running_what);
  Status CheckBalanced(uint32_t finish) const;

  const HwConfig& c_;
  TimingModel timing_;
  const std::vector<Insn>& insns_;
  Machine& machine_;
  sim::Dram& dram_;
  const bool timing_only_;
  // A fused REQUANT has armed the next GEMM's epilogue (the compute module runs in order).
  bool epilogue_armed_ = false;
  const uint64_t max_cycles_;
  sim::Deadline deadline_;
  Stats* stats_;
  std::vector<sim::TraceEvent>* trace_;  // null when not tracing

  std::array<ModuleState, isa::kNumModules>& modules_;
  std::array<TokenFifo, isa::kNumQueues>& queues_;  // push cycle of each token
  std::vector<uint64_t>& dispatch_;  // cycle each instruction reached its module's queue
  std::vector<uint64_t>& start_;
  std::vector<uint32_t>& pos_in_module_;
  uint32_t fetch_next_ = 0;
  uint64_t fetch_time_ = 0;
  ReadPort read_port_{c_.dma_burst_latency};
  uint64_t write_port_free_ = 0;
};

void Scheduler::AdvanceFetch() {
  const uint32_t burst = timing_.FetchBurstInsns();
  const uint64_t beats = std::max<uint32_t>(1, HwConfig::kInsnBytes / c_.axi_bytes());
  while (fetch_next_ < insns_.size()) {
    const uint32_t i = fetch_next_;
    const ModuleState& m = modules_[Idx(insns_[i].module())];
    uint64_t slot = 0;
    // The module's command queue holds cmd_queue_depth instructions that have not started.
    if (pos_in_module_[i] >= c_.cmd_queue_depth) {
      const uint32_t j = m.insns[pos_in_module_[i] - c_.cmd_queue_depth];
      if (start_[j] == kNever) return;
      slot = start_[j];
    }
    fetch_time_ = std::max(fetch_time_, slot);
    if (i % burst == 0) fetch_time_ += c_.dma_burst_latency;
    fetch_time_ += beats;
    dispatch_[i] = fetch_time_;
    stats_->bytes_fetched += HwConfig::kInsnBytes;
    ++fetch_next_;
  }
}

Candidate Scheduler::Evaluate(Module mod, bool explain) {
  Candidate c;
  ModuleState& m = modules_[Idx(mod)];
  auto where = [&](uint32_t insn) {
    return std::string(isa::ModuleName(mod)) + " instruction " + std::to_string(insn) + " (" +
           isa::Disassemble(insns_[insn]) + ")";
  };
  // A push still waiting for room blocks the module, even after its last instruction.
  if (!m.pending.empty()) {
    if (explain) {
      c.blocked = where(m.pending.front().insn) + " waits to push a token on " +
                  isa::QueueName(m.pending.front().queue) + ", which is full";
    }
    return c;
  }
  if (m.next >= m.insns.size()) return c;
  const uint32_t i = m.insns[m.next];
  if (dispatch_[i] == kNever) {
    if (explain) {
      c.blocked =
          where(i) + " is never fetched: the fetch unit is stuck behind a full command queue";
    }
    return c;
  }
  uint64_t t = m.time;
  if (dispatch_[i] > t) {
    t = dispatch_[i];
    c.cause = sim::TraceEvent::Kind::kStallFetch;
  }
  const isa::TokenQueues tq = isa::QueuesOf(insns_[i]);
  for (int k = 0; k < tq.num_pops; ++k) {
    const Queue q = tq.pops[k];
    if (queues_[Idx(q)].empty()) {
      if (explain) {
        c.blocked = where(i) + " waits for a token on " + isa::QueueName(q) + ", which is empty";
      }
      return c;
    }
    if (queues_[Idx(q)].front() > t) {
      t = queues_[Idx(q)].front();
      c.cause = sim::TraceEvent::Kind::kStallPop;
      c.queue = q;
    }
  }
  if (insns_[i].opcode == Opcode::kFinish) {
    for (Module other : {Module::kLoad, Module::kStore}) {
      const ModuleState& o = modules_[Idx(other)];
      if (!o.done()) {
        if (explain) {
          c.blocked = where(i) + " waits for the " + isa::ModuleName(other) + " module to finish";
        }
        return c;
      }
      if (o.time > t) {
        t = o.time;
        c.cause = sim::TraceEvent::Kind::kStallFinish;
      }
    }
  }
  c.start = t;
  return c;
}

void Scheduler::Stall(Module m, sim::TraceEvent::Kind kind, Queue q, uint32_t insn, uint64_t from,
                      uint64_t to) {
  if (to <= from) return;
  ModuleStats& ms = stats_->module[Idx(m)];
  const uint64_t n = to - from;
  switch (kind) {
    case sim::TraceEvent::Kind::kStallFetch:
      ms.stall_fetch += n;
      break;
    case sim::TraceEvent::Kind::kStallPop:
      ms.stall_pop[Idx(q)] += n;
      break;
    case sim::TraceEvent::Kind::kStallPush:
      ms.stall_push[Idx(q)] += n;
      break;
    case sim::TraceEvent::Kind::kStallPort:
      ms.stall_port += n;
      break;
    case sim::TraceEvent::Kind::kStallFinish:
      ms.stall_finish += n;
      break;
    case sim::TraceEvent::Kind::kExec:
      break;
  }
  if (trace_) trace_->push_back({kind, m, insn, q, from, to});
}

void Scheduler::CompletePendingPush(Queue q, uint64_t pop_time) {
  for (int mi = 0; mi < isa::kNumModules; ++mi) {
    ModuleState& m = modules_[mi];
    if (m.pending.empty() || m.pending.front().queue != q) continue;
    const PendingPush p = m.pending.front();
    m.pending.erase(m.pending.begin());
    const uint64_t at = std::max(p.ready, pop_time);
    queues_[Idx(q)].push_back(at);
    Stall(static_cast<Module>(mi), sim::TraceEvent::Kind::kStallPush, q, p.insn, p.ready, at);
    m.time = std::max(m.time, at);
    // A second pending push of the same instruction may now fit too.
    while (!m.pending.empty() && queues_[Idx(m.pending.front().queue)].size() < c_.token_queue_depth) {
      const PendingPush next = m.pending.front();
      m.pending.erase(m.pending.begin());
      queues_[Idx(next.queue)].push_back(m.time);
    }
    return;
  }
}

Status Scheduler::Execute(Module mod, const Candidate& cand) {
  ModuleState& m = modules_[Idx(mod)];
  const uint32_t i = m.insns[m.next];
  const Insn& insn = insns_[i];
  uint64_t* port = nullptr;
  // Reads queue their bursts on the read port; a STORE waits for the write port.
  if (insn.opcode == Opcode::kStore) port = &write_port_free_;
  const uint64_t begin = port ? std::max(cand.start, *port) : cand.start;
  uint64_t cycles = 1;
  switch (insn.opcode) {
    case Opcode::kLoad:
      cycles = timing_.LoadEnd(insn, machine_.elem_bytes(insn.buffer), begin, &read_port_) - begin;
      break;
    case Opcode::kStore:
      cycles = timing_.DmaCycles(insn, machine_.elem_bytes(insn.buffer));
      break;
    case Opcode::kGemm:
      cycles = timing_.GemmCycles(insn, epilogue_armed_);
      epilogue_armed_ = false;
      break;
    case Opcode::kAlu:
      cycles = timing_.AluCycles(insn);
      if (isa::ArmsEpilogue(insn)) epilogue_armed_ = true;
      break;
    case Opcode::kFinish:
      cycles = TimingModel::kIssueCycles;
      break;
  }
  const uint64_t end = begin + cycles;
  // Before any state changes, so the report shows the machine as it stood.
  if (end > max_cycles_) {
    return Stopped(
        "no FINISH within the device-time limit of " + std::to_string(max_cycles_) + " cycles", i,
        "would run from cycle " + std::to_string(begin) + " to " + std::to_string(end));
  }

  const isa::TokenQueues tq = isa::QueuesOf(insn);
  for (int k = 0; k < tq.num_pops; ++k) {
    const Queue q = tq.pops[k];
    queues_[Idx(q)].pop_front();
    CompletePendingPush(q, cand.start);
  }
  Stall(mod, cand.cause, cand.queue, i, m.time, cand.start);
  start_[i] = cand.start;
  Stall(mod, sim::TraceEvent::Kind::kStallPort, cand.queue, i, cand.start, begin);

  if (!timing_only_) {
    Status s = machine_.Execute(insn, dram_, &deadline_);
    if (s.code() == StatusCode::kDeadlineExceeded) {
      return Stopped("no FINISH within the wall-clock limit of " +
                         std::to_string(deadline_.limit_ms()) + " ms (simulated up to cycle " +
                         std::to_string(begin) + ")",
                     i, "was executing (" + s.message() + ")");
    }
    if (!s.ok()) {
      return Status(s.code(), "instruction " + std::to_string(i) + " (" + isa::Disassemble(insn) +
                                  "): " + s.message());
    }
  }
  if (port) *port = end;

  // Statistics follow from the instruction alone, so timing-only runs report the same numbers.
  ModuleStats& ms = stats_->module[Idx(mod)];
  ms.insns++;
  ms.busy += cycles;
  stats_->insns++;
  const uint64_t iters = uint64_t{insn.loop_out} * insn.loop_in * (insn.uop_end - insn.uop_bgn);
  const uint64_t moved = uint64_t{insn.y_size} * insn.x_size * machine_.elem_bytes(insn.buffer);
  switch (insn.opcode) {
    case Opcode::kLoad: stats_->bytes_loaded[static_cast<int>(insn.buffer)] += moved; break;
    case Opcode::kStore: stats_->bytes_stored += moved; break;
    case Opcode::kGemm: stats_->macs += insn.reset ? 0 : iters * c_.macs_per_cycle(); break;
    case Opcode::kAlu: stats_->alu_lanes += iters * c_.batch * c_.block_out; break;
    case Opcode::kFinish: break;
  }
  if (trace_) trace_->push_back({sim::TraceEvent::Kind::kExec, mod, i, cand.queue, begin, end});

  m.time = end;
  m.next++;
  for (int k = 0; k < tq.num_pushes; ++k) {
    const Queue q = tq.pushes[k];
    if (m.pending.empty() && queues_[Idx(q)].size() < c_.token_queue_depth) {
      queues_[Idx(q)].push_back(end);
    } else {
      m.pending.push_back({q, end, i});
    }
  }
  AdvanceFetch();
  return Status::Ok();
}

Status Scheduler::Deadlock() {
  std::string msg = "deadlock: no module can make progress";
  for (Module mod : {Module::kLoad, Module::kCompute, Module::kStore}) {
    if (modules_[Idx(mod)].done()) continue;
    msg += "; " + Evaluate(mod, /*explain=*/true).blocked;
  }
  return Status(StatusCode::kDeadlock, msg);
}

Status Scheduler::Stopped(const std::string& why, uint32_t running,
                          const std::string& running_what) {
  std::string msg = why + ": the program runs longer than the limit allows, or never finishes";
  for (Module mod : {Module::kLoad, Module::kCompute, Module::kStore}) {
    const ModuleState& m = modules_[Idx(mod)];
    msg += "; ";
    if (m.done()) {
      msg += std::string(isa::ModuleName(mod)) + " has finished its " +
             std::to_string(m.insns.size()) + " instructions";
      continue;
    }
    if (m.pending.empty() && m.next < m.insns.size() && m.insns[m.next] == running) {
      msg += std::string(isa::ModuleName(mod)) + " instruction " + std::to_string(running) + " (" +
             isa::Disassemble(insns_[running]) + ") " + running_what;
      continue;
    }
    const Candidate c = Evaluate(mod, /*explain=*/true);
    if (c.start == kNever) {
      msg += c.blocked;
    } else {
      const uint32_t i = m.insns[m.next];
      msg += std::string(isa::ModuleName(mod)) + " instruction " + std::to_string(i) + " (" +
             isa::Disassemble(insns_[i]) + ") can start at cycle " + std::to_string(c.start);
    }
  }
  msg += "; tokens:";
  for (int q = 0; q < isa::kNumQueues; ++q) {
    msg += std::string(q ? ", " : " ") + isa::QueueName(static_cast<Queue>(q)) + " " +
           std::to_string(queues_[q].size());
  }
  msg += "; " + std::to_string(fetch_next_) + " of " + std::to_string(insns_.size()) +
         " instructions fetched";
  return Status(StatusCode::kDeadlineExceeded, msg);
}

Status Scheduler::CheckBalanced(uint32_t finish) const {
  std::string leftovers;
  for (int q = 0; q < isa::kNumQueues; ++q) {
    if (queues_[q].empty()) continue;
    if (!leftovers.empty()) leftovers += ", ";
    leftovers += std::string(isa::QueueName(static_cast<Queue>(q))) + " holds " +
                 std::to_string(queues_[q].size()) + " token" +
                 (queues_[q].size() == 1 ? "" : "s");
  }
  if (leftovers.empty()) return Status::Ok();
  return FailedPrecondition("token imbalance at FINISH (instruction " + std::to_string(finish) +
                            "): " + leftovers + "; every push needs a matching pop");
}

Status Scheduler::Run() {
  AdvanceFetch();
  while (true) {
    Module best = Module::kLoad;
    Candidate best_c;
    uint32_t best_insn = 0;
    for (Module mod : {Module::kLoad, Module::kCompute, Module::kStore}) {
      Candidate c = Evaluate(mod);
      if (c.start == kNever) continue;
      const uint32_t i = modules_[Idx(mod)].insns[modules_[Idx(mod)].next];
      // Earliest start first; ties go to program order, so equal-time runs are deterministic.
      if (best_c.start == kNever || c.start < best_c.start ||
          (c.start == best_c.start && i < best_insn)) {
        best = mod;
        best_c = c;
        best_insn = i;
      }
    }
    if (best_c.start == kNever) return Deadlock();
    // Between instructions too: a long stream of short ones must stop as well.
    if (deadline_.Poll(kPollPerInsn)) {
      return Stopped("no FINISH within the wall-clock limit of " +
                         std::to_string(deadline_.limit_ms()) + " ms (simulated up to cycle " +
                         std::to_string(best_c.start) + ")",
                     best_insn, "can start at cycle " + std::to_string(best_c.start));
    }
    LOOM_RETURN_IF_ERROR(Execute(best, best_c));
    if (insns_[best_insn].opcode == Opcode::kFinish) {
      stats_->cycles = modules_[Idx(Module::kCompute)].time;
      return CheckBalanced(best_insn);
    }
  }
}

}  // namespace

uint64_t ModuleStats::stalls() const {
  uint64_t n = stall_fetch + stall_port + stall_finish;
  for (uint64_t v : stall_pop) n += v;
  for (uint64_t v : stall_push) n += v;
  return n;
}

uint64_t Stats::total_bytes_loaded() const {
  uint64_t n = 0;
  for (uint64_t v : bytes_loaded) n += v;
  return n;
}

double Stats::gemm_utilization() const {
  if (cycles == 0 || peak_macs_per_cycle == 0) return 0.0;
  return static_cast<double>(macs) / (static_cast<double>(cycles) * peak_macs_per_cycle);
}

namespace {
// The config was validated by the caller, so Create() cannot fail here.
isa::Layout LayoutOf(const HwConfig& config) {
  isa::Layout l;
  (void)isa::Layout::Create(config, &l);
  return l;
}
}  // namespace

Simulator::Simulator(const HwConfig& config, uint64_t dram_bytes, uint64_t dram_base)
    : config_(config),
      layout_(LayoutOf(config)),
      dram_(dram_bytes, dram_base),
      machine_(config, layout_),
      sched_(std::make_unique<SchedulerState>()) {}

Simulator::~Simulator() = default;

Status Simulator::Create(const HwConfig& config, uint64_t dram_bytes,
                         std::unique_ptr<Simulator>* out) {
  LOOM_RETURN_IF_ERROR(config.Validate());
  *out = std::make_unique<Simulator>(config, dram_bytes);
  return Status::Ok();
}

Status Simulator::Run(const RunOptions& options, Stats* stats) {
  trace_.clear();
  program_.clear();
  *stats = Stats();
  stats->peak_macs_per_cycle = config_.macs_per_cycle();
  if (options.insn_count == 0) return InvalidArgument("empty instruction stream (no FINISH)");
  if (options.insn_addr % HwConfig::kInsnBytes != 0) {
    return InvalidArgument("instruction stream address " + std::to_string(options.insn_addr) +
                           " is not 16-byte aligned");
  }
  const uint64_t bytes = uint64_t{options.insn_count} * HwConfig::kInsnBytes;
  if (!dram_.Contains(options.insn_addr, bytes)) {
    return OutOfRange("instruction stream of " + std::to_string(options.insn_count) +
                      " instructions at " + std::to_string(options.insn_addr) +
                      " does not fit in DRAM");
  }
  program_.resize(options.insn_count);
  for (uint32_t i = 0; i < options.insn_count; ++i) {
    const isa::Word128 w = isa::LoadWord(dram_.At(options.insn_addr + uint64_t{i} * 16));
    Status s = isa::Decode(layout_, w, &program_[i]);
    if (!s.ok()) return s.WithContext("instruction " + std::to_string(i));
    const bool last = i + 1 == options.insn_count;
    const bool finish = program_[i].opcode == Opcode::kFinish;
    if (finish && !last) {
      return InvalidArgument("instruction " + std::to_string(i) +
                             ": FINISH before the end of the stream (" +
                             std::to_string(options.insn_count - i - 1) + " instructions follow)");
    }
    if (last && !finish) {
      return InvalidArgument("instruction " + std::to_string(i) +
                             ": the stream must end with FINISH, found " +
                             isa::Disassemble(program_[i]));
    }
  }
  Scheduler scheduler(config_, program_, machine_, dram_, options, stats,
                      options.trace ? &trace_ : nullptr, sched_.get());
  return scheduler.Run();
}

}  // namespace loom::fsim
