// The functional half of fsim: the on-chip buffers and what each instruction does to them and to
// DRAM, bit-exactly per docs/isa.md. No notion of time here; fsim.cc decides when each instruction
// runs.
#ifndef LOOM_SIM_FSIM_MACHINE_H_
#define LOOM_SIM_FSIM_MACHINE_H_

#include <cstdint>
#include <vector>

#include "runtime/core/hw_config.h"
#include "runtime/core/isa.h"
#include "sim/common/deadline.h"
#include "sim/common/dram.h"

namespace loom::fsim {

class Machine {
 public:
  Machine(const HwConfig& config, const isa::Layout& layout);

  // Runs one instruction. Errors (a DRAM range outside memory, a buffer index outside its buffer, a
  // malformed micro-op) name the problem; the caller adds the instruction index. A GEMM or ALU
  // loop polls `deadline` (if given) and stops with kDeadlineExceeded, naming the loop iteration,
  // once it has passed; the instruction's effects are then partial.
  Status Execute(const isa::Insn& insn, sim::Dram& dram, sim::Deadline* deadline = nullptr);

  // Element size in bytes of a buffer (a micro-op is 4 bytes).
  uint32_t elem_bytes(isa::Buffer b) const;

  // Raw buffer contents, for tests and debugging.
  const std::vector<int8_t>& inp() const { return inp_; }
  const std::vector<int8_t>& wgt() const { return wgt_; }
  const std::vector<int32_t>& acc() const { return acc_; }
  const std::vector<int8_t>& out() const { return out_; }

 private:
  Status Load(const isa::Insn& insn, const sim::Dram& dram);
  Status Store(const isa::Insn& insn, sim::Dram& dram);
  Status Gemm(const isa::Insn& insn, sim::Deadline* deadline);
  Status Alu(const isa::Insn& insn, sim::Deadline* deadline);
  // Writes element `index` of `buffer` from its DRAM image.
  Status FillElement(isa::Buffer buffer, uint32_t index, const uint8_t* src);
  // Writes padding element `index` of `buffer`: every INP lane holds `pad_value`, every lane of
  // the other buffers zero (docs/isa.md §3.1; Verify keeps pad_value 0 off INP).
  void PadElement(isa::Buffer buffer, uint32_t index, int32_t pad_value);

  const HwConfig config_;
  const isa::Layout layout_;
  const uint32_t lanes_;  // batch * block_out: int32 lanes of one acc element
  std::vector<isa::Uop> uop_;
  std::vector<int8_t> inp_;
  std::vector<int8_t> wgt_;
  std::vector<int32_t> acc_;
  std::vector<int8_t> out_;
  std::vector<int8_t> window_;  // the depthwise GEMM's last block_in/2 INP elements, newest first
  // The parameter buffer RQP (docs/isa.md §3.4.1): kRqParamDepth entries of one int32 per lane,
  // written by RQPARAM, read by REQUANT.
  std::vector<int32_t> rq_bias_;
  std::vector<int32_t> rq_mult_;
  // The GEMM epilogue a fused REQUANT armed (docs/isa.md §3.4.2): its shifts and clip, and the
  // parameter entry of its last iteration. The next GEMM consumes it.
  bool epilogue_armed_ = false;
  isa::Insn epilogue_;
  uint32_t epilogue_entry_ = 0;
  // OUT[d] = REQUANT of ACC[d] by the armed epilogue, then ACC[d] = 0, on the lanes at `acc`.
  void ApplyEpilogue(int32_t* acc, int8_t* out) const;
};

}  // namespace loom::fsim

#endif  // LOOM_SIM_FSIM_MACHINE_H_
