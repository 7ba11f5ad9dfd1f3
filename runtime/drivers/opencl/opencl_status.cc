#include "runtime/drivers/opencl/opencl_status.h"

#include <cstdio>
#include <utility>

namespace loom::runtime::opencl {

using isa::Module;
using isa::Queue;

StreamReport::StreamReport(const HwConfig& config, const isa::Layout& layout,
                           std::vector<uint8_t> bytes, uint64_t dram_base, uint64_t dram_bytes)
    : config_(config),
      layout_(layout),
      bytes_(std::move(bytes)),
      dram_base_(dram_base),
      dram_bytes_(dram_bytes) {
  insns_.resize(count());
  ok_.resize(count());
  for (uint32_t i = 0; i < count(); ++i) {
    ok_[i] = isa::Decode(layout_, isa::LoadWord(&bytes_[size_t{i} * 16]), &insns_[i]).ok();
    if (ok_[i]) modules_[static_cast<int>(insns_[i].module())].push_back(i);
  }
}

std::string StreamReport::Text(uint32_t i) const {
  return i < count() && ok_[i] ? isa::Disassemble(insns_[i]) : "an undecodable word";
}

std::string StreamReport::Where(Module m, uint32_t i) const {
  return std::string(isa::ModuleName(m)) + " instruction " + std::to_string(i) + " (" + Text(i) +
         ")";
}

std::string StreamReport::Blocked(Module m, const RunState& st) const {
  const int mi = static_cast<int>(m);
  const std::vector<uint32_t>& list = modules_[mi];
  const uint64_t next = st.s[S_NEXT + mi];
  if (st.s[S_PEND_N + mi] > 0 && next > 0 && next <= list.size()) {
    return Where(m, list[next - 1]) + " waits to push a token on " +
           isa::QueueName(static_cast<Queue>(st.s[S_PEND_Q + 2 * mi])) + ", which is full";
  }
  if (next >= list.size()) return "";
  const uint32_t i = list[next];
  if (i >= st.s[S_FETCH]) {
    return Where(m, i) + " is never fetched: the fetch unit is stuck behind a full command queue";
  }
  const isa::TokenQueues tq = isa::QueuesOf(insns_[i]);
  for (int k = 0; k < tq.num_pops; ++k) {
    if (st.s[S_TOKENS + static_cast<int>(tq.pops[k])] == 0) {
      return Where(m, i) + " waits for a token on " + isa::QueueName(tq.pops[k]) +
             ", which is empty";
    }
  }
  if (insns_[i].opcode == isa::Opcode::kFinish) {
    for (Module other : {Module::kLoad, Module::kStore}) {
      const int oi = static_cast<int>(other);
      if (st.s[S_NEXT + oi] < modules_[oi].size() || st.s[S_PEND_N + oi] > 0) {
        return Where(m, i) + " waits for the " + isa::ModuleName(other) + " module to finish";
      }
    }
  }
  return "";
}

Status StreamReport::Deadlock(const RunState& st) const {
  std::string msg = "deadlock: no module can make progress";
  for (Module m : {Module::kLoad, Module::kCompute, Module::kStore}) {
    const std::string why = Blocked(m, st);
    if (!why.empty()) msg += "; " + why;
  }
  return Status(StatusCode::kDeadlock, msg);
}

Status StreamReport::KernelError(const RunState& st) const {
  const uint32_t i = static_cast<uint32_t>(st.s[S_ERR_INSN]);
  const uint64_t a = st.s[S_ERR_A], b = st.s[S_ERR_B];
  const std::string at = "instruction " + std::to_string(i);
  const std::string in = at + " (" + Text(i) + "): ";
  switch (st.s[S_ERR_CODE]) {
    case ERR_DECODE: {
      isa::Insn insn;
      const Status s = i < count()
                           ? isa::Decode(layout_, isa::LoadWord(&bytes_[size_t{i} * 16]), &insn)
                           : Internal("out of the stream");
      if (!s.ok()) return s.WithContext(at);
      return Internal("opencl: the kernel rejected " + in + "which isa::Decode accepts (a bug in " +
                      "vta.cl's decoder)");
    }
    case ERR_FINISH_EARLY:
      return InvalidArgument(at + ": FINISH before the end of the stream (" + std::to_string(a) +
                             " instructions follow)");
    case ERR_NO_FINISH:
      return InvalidArgument(at + ": the stream must end with FINISH, found " + Text(i));
    case ERR_DMA_READ:
      return OutOfRange(in + "DMA reads " + std::to_string(b) + " bytes at DRAM address " +
                        std::to_string(a) + ", outside DRAM of " + std::to_string(dram_bytes_) +
                        " bytes");
    case ERR_DMA_WRITE: {
      char buf[160];
      std::snprintf(buf, sizeof buf,
                    "DMA DRAM write of %llu bytes at 0x%llx is outside [0x%llx, 0x%llx)",
                    static_cast<unsigned long long>(b), static_cast<unsigned long long>(a),
                    static_cast<unsigned long long>(dram_base_),
                    static_cast<unsigned long long>(dram_base_ + dram_bytes_));
      return OutOfRange(in + buf);
    }
    case ERR_INDEX: {
      if (a == BUF_RQP) {
        return OutOfRange(in + "rqp index " + std::to_string(b) +
                          " is outside the rqp buffer (depth " +
                          std::to_string(isa::kRqParamDepth) + ")");
      }
      const isa::Buffer buffer = static_cast<isa::Buffer>(a);
      const char* name = isa::BufferName(buffer);
      return OutOfRange(in + name + " index " + std::to_string(b) + " is outside the " + name +
                        " buffer (depth " + std::to_string(layout_.depth(buffer)) + ")");
    }
    case ERR_UOP: {
      isa::Uop uop;
      const Status s = isa::DecodeUop(layout_, static_cast<uint32_t>(a), &uop);
      if (!s.ok()) return Status(s.code(), in + s.message());
      return Internal("opencl: the kernel rejected micro-op word " + std::to_string(a) + " in " +
                      at + ", which isa::DecodeUop accepts (a bug in vta.cl)");
    }
    case ERR_DEPTHWISE:  // fsim's message (sim/fsim/machine.cc)
      return InvalidArgument(in + "gemm depthwise needs block_in == block_out, even (config " +
                             config_.name + " has " + std::to_string(config_.block_in) + "x" +
                             std::to_string(config_.block_out) + ")");
    case ERR_EPILOGUE:
      return FailedPrecondition(in + isa::kEpilogueWithoutGemm);
    case ERR_DEADLOCK:
      return Deadlock(st);
    default:
      break;
  }
  return Internal("opencl: the kernel stopped with unknown error code " +
                  std::to_string(st.s[S_ERR_CODE]) + " at " + at);
}

Status StreamReport::Outcome(const RunState& st) const {
  if (st.s[S_PHASE] == PHASE_ERROR) return KernelError(st);
  if (st.s[S_PHASE] != PHASE_DONE) {
    return Internal("opencl: the run stopped in phase " + std::to_string(st.s[S_PHASE]));
  }
  std::string leftovers;
  for (int q = 0; q < isa::kNumQueues; ++q) {
    const uint64_t n = st.s[S_TOKENS + q];
    if (n == 0) continue;
    if (!leftovers.empty()) leftovers += ", ";
    leftovers += std::string(isa::QueueName(static_cast<Queue>(q))) + " holds " +
                 std::to_string(n) + " token" + (n == 1 ? "" : "s");
  }
  if (leftovers.empty()) return Status::Ok();
  return FailedPrecondition("token imbalance at FINISH (instruction " +
                            std::to_string(st.s[S_FINISH_INSN]) + "): " + leftovers +
                            "; every push needs a matching pop");
}

Status StreamReport::Stopped(const std::string& why, const RunState& st) const {
  std::string msg = why + ": the program runs longer than the limit allows, or never finishes";
  const uint64_t busy = st.s[S_BUSY_INSN];
  for (Module m : {Module::kLoad, Module::kCompute, Module::kStore}) {
    const int mi = static_cast<int>(m);
    const std::vector<uint32_t>& list = modules_[mi];
    msg += "; ";
    if (st.s[S_PHASE] == PHASE_START) {
      msg += std::string(isa::ModuleName(m)) + " has not started";
    } else if (busy < count() && static_cast<int>(insns_[busy].module()) == mi) {
      const isa::Insn& insn = insns_[busy];
      const uint64_t iter = st.s[S_BUSY_ITER];
      const uint64_t in = insn.loop_in == 0 ? 1 : insn.loop_in;
      msg += Where(m, static_cast<uint32_t>(busy)) + " was executing (stopped in loop iteration (" +
             std::to_string(iter / in) + ", " + std::to_string(iter % in) + ") of " +
             std::to_string(insn.loop_out) + "x" + std::to_string(insn.loop_in) + ")";
    } else if (st.s[S_NEXT + mi] >= list.size() && st.s[S_PEND_N + mi] == 0) {
      msg += std::string(isa::ModuleName(m)) + " has finished its " + std::to_string(list.size()) +
             " instructions";
    } else {
      const std::string why_blocked = Blocked(m, st);
      msg += why_blocked.empty() ? Where(m, list[st.s[S_NEXT + mi]]) + " can start" : why_blocked;
    }
  }
  msg += "; tokens:";
  for (int q = 0; q < isa::kNumQueues; ++q) {
    msg += std::string(q ? ", " : " ") + isa::QueueName(static_cast<Queue>(q)) + " " +
           std::to_string(st.s[S_TOKENS + q]);
  }
  msg += "; " + std::to_string(st.s[S_FETCH]) + " of " + std::to_string(count()) +
         " instructions fetched";
  return Status(StatusCode::kDeadlineExceeded, msg);
}

}  // namespace loom::runtime::opencl
