// A self-contained accelerator program: instructions, micro-ops and the DRAM data they read, laid
// out at fixed DRAM addresses. The reference programs (tests, benchmarks, the demo) build one of
// these and install it into any device's DRAM image (fsim today, tsim next).
#ifndef LOOM_SIM_PROGRAMS_PROGRAM_H_
#define LOOM_SIM_PROGRAMS_PROGRAM_H_

#include <cstdint>
#include <string>
#include <vector>

#include "runtime/core/hw_config.h"
#include "runtime/core/isa.h"
#include "runtime/core/status.h"

namespace loom::programs {

class Program {
 public:
  explicit Program(const HwConfig& config);

  // Reserves `bytes` of DRAM aligned to `align` (a power of two) and returns its byte address.
  uint64_t Allocate(uint64_t bytes, uint64_t align = 64);
  // Reserves DRAM and fills it with `bytes`.
  uint64_t AddData(const std::vector<uint8_t>& bytes, uint64_t align = 64);
  // Encodes micro-ops into DRAM (4 bytes each) and returns their byte address in *addr, for a
  // LOAD UOP to fetch.
  Status AddUops(const std::vector<isa::Uop>& uops, uint64_t* addr);
  void Emit(const isa::Insn& insn) { insns_.push_back(insn); }
  // The last emitted instruction, to add dependency flags once the next step is known.
  isa::Insn& last() { return insns_.back(); }

  // Places the instruction stream (which must end with FINISH) after the data and encodes it.
  // Call once, after the last Emit.
  Status Finalize();

  // Writes the whole DRAM image (data, micro-ops, instructions) through `write(addr, bytes, n)`.
  template <typename WriteFn>
  Status Install(WriteFn write) const {
    for (const Chunk& c : chunks_) LOOM_RETURN_IF_ERROR(write(c.addr, c.bytes.data(), c.bytes.size()));
    return Status::Ok();
  }

  const HwConfig& config() const { return config_; }
  const isa::Layout& layout() const { return layout_; }
  const std::vector<isa::Insn>& insns() const { return insns_; }
  const std::vector<isa::Uop>& uops() const { return uops_; }
  uint64_t insn_addr() const { return insn_addr_; }
  uint32_t insn_count() const { return static_cast<uint32_t>(insns_.size()); }
  // Bytes of DRAM the program needs, from address 0.
  uint64_t dram_bytes() const { return next_addr_; }
  // The program as text: micro-ops then instructions (docs/isa.md text form).
  std::string Listing() const;

 private:
  struct Chunk {
    uint64_t addr;
    std::vector<uint8_t> bytes;
  };
  HwConfig config_;
  isa::Layout layout_;
  std::vector<isa::Insn> insns_;
  std::vector<isa::Uop> uops_;
  std::vector<Chunk> chunks_;
  uint64_t next_addr_ = 0;
  uint64_t insn_addr_ = 0;
};

// Instruction builders with the fields every use sets; adjust deps and the rest afterwards.
isa::Insn LoadInsn(isa::Buffer buffer, uint32_t sram, uint32_t dram, uint32_t y, uint32_t x,
                   uint32_t stride);
isa::Insn StoreInsn(uint32_t sram, uint32_t dram, uint32_t y, uint32_t x, uint32_t stride);
// A GEMM or ALU over micro-ops [uop, uop + uops) in a loop_out x loop_in nest.
isa::Insn LoopInsn(isa::Opcode op, uint32_t uop, uint32_t uops, uint32_t loop_out,
                   uint32_t loop_in);
isa::Insn AluImm(isa::AluOp op, int32_t imm, uint32_t uop, uint32_t uops, uint32_t loop_out,
                 uint32_t loop_in);
isa::Insn Finish();

// `config` (1x16x16) with block_out 8 and its ACC and WGT buffers halved, so that every depth and
// instruction format stays: "1x16x8", a config whose block_in and block_out differ, which the
// GEMM's depthwise mode refuses (docs/isa.md §3.3.1).
HwConfig HalfOutputBlock(HwConfig config);
// One GEMM over one micro-op, `depthwise` or not, and FINISH, finalized into `p`.
Status OneGemmProgram(bool depthwise, Program* p);

// Little-endian byte images of typed arrays, for AddData.
std::vector<uint8_t> Bytes(const std::vector<int8_t>& v);
std::vector<uint8_t> Bytes(const std::vector<int32_t>& v);

}  // namespace loom::programs

#endif  // LOOM_SIM_PROGRAMS_PROGRAM_H_
