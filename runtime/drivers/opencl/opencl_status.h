// The kernel's machine state (opencl_abi.h, S_*) after a launch, read as a Status: the errors the
// kernel stopped with become fsim's messages word for word (sim/fsim), naming the instruction by
// index and disassembly, so a program fails the same way on both devices.
#ifndef LOOM_RUNTIME_DRIVERS_OPENCL_OPENCL_STATUS_H_
#define LOOM_RUNTIME_DRIVERS_OPENCL_OPENCL_STATUS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "runtime/core/hw_config.h"
#include "runtime/core/isa.h"
#include "runtime/core/status.h"
#include "runtime/drivers/opencl/opencl_abi.h"

namespace loom::runtime::opencl {

struct RunState {
  uint64_t s[S_WORDS] = {};
};

// One submission's instruction stream as the host sees it, for messages.
class StreamReport {
 public:
  // `bytes`: the stream's n * 16 bytes, read back from device memory; `dram_base`/`dram_bytes`:
  // the device memory window (for DMA messages).
  StreamReport(const HwConfig& config, const isa::Layout& layout, std::vector<uint8_t> bytes,
               uint64_t dram_base, uint64_t dram_bytes);

  // The outcome of a run whose state is PHASE_ERROR or PHASE_DONE: the kernel's error, a token
  // imbalance at FINISH, or Ok.
  Status Outcome(const RunState& st) const;
  // A run stopped by a time limit: `why` ("no FINISH within the wall-clock limit of 50 ms"),
  // then where each module stood, as fsim reports it.
  Status Stopped(const std::string& why, const RunState& st) const;

 private:
  uint32_t count() const { return static_cast<uint32_t>(bytes_.size() / 16); }
  // "gemm uop=0:1 ..." or, for a word that does not decode, "an undecodable word".
  std::string Text(uint32_t i) const;
  // "compute instruction 7 (alu.add ...)".
  std::string Where(isa::Module m, uint32_t i) const;
  // Why module `m` cannot start its next instruction (fsim's deadlock wording), or "" if it can.
  std::string Blocked(isa::Module m, const RunState& st) const;
  Status KernelError(const RunState& st) const;
  Status Deadlock(const RunState& st) const;

  HwConfig config_;
  isa::Layout layout_;
  std::vector<uint8_t> bytes_;
  uint64_t dram_base_, dram_bytes_;
  std::vector<isa::Insn> insns_;  // decoded; meaningful only where ok_
  std::vector<bool> ok_;
  std::vector<uint32_t> modules_[isa::kNumModules];  // each module's instructions, in order
};

}  // namespace loom::runtime::opencl

#endif  // LOOM_RUNTIME_DRIVERS_OPENCL_OPENCL_STATUS_H_
