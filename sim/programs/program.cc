#include "sim/programs/program.h"

namespace loom::programs {

Program::Program(const HwConfig& config) : config_(config) {
  (void)isa::Layout::Create(config_, &layout_);  // the caller validated the config
}

uint64_t Program::Allocate(uint64_t bytes, uint64_t align) {
  next_addr_ = (next_addr_ + align - 1) / align * align;
  const uint64_t addr = next_addr_;
  next_addr_ += bytes;
  return addr;
}

uint64_t Program::AddData(const std::vector<uint8_t>& bytes, uint64_t align) {
  const uint64_t addr = Allocate(bytes.size(), align);
  chunks_.push_back({addr, bytes});
  return addr;
}

Status Program::AddUops(const std::vector<isa::Uop>& uops, uint64_t* addr) {
  std::vector<uint8_t> bytes(uops.size() * HwConfig::kUopBytes);
  for (size_t i = 0; i < uops.size(); ++i) {
    uint32_t w = 0;
    LOOM_RETURN_IF_ERROR(isa::EncodeUop(layout_, uops[i], &w).WithContext("uop " + std::to_string(i)));
    for (int b = 0; b < 4; ++b) bytes[i * 4 + b] = static_cast<uint8_t>(w >> (8 * b));
  }
  *addr = AddData(bytes, 64);
  uops_.insert(uops_.end(), uops.begin(), uops.end());
  return Status::Ok();
}

Status Program::Finalize() {
  if (insns_.empty() || insns_.back().opcode != isa::Opcode::kFinish) {
    return InvalidArgument("program does not end with FINISH");
  }
  std::vector<uint8_t> insn_bytes(insns_.size() * HwConfig::kInsnBytes);
  for (size_t i = 0; i < insns_.size(); ++i) {
    isa::Word128 w;
    LOOM_RETURN_IF_ERROR(isa::Encode(layout_, insns_[i], &w)
                             .WithContext("instruction " + std::to_string(i) + " (" +
                                          isa::Disassemble(insns_[i]) + ")"));
    isa::StoreWord(w, &insn_bytes[i * HwConfig::kInsnBytes]);
  }
  insn_addr_ = AddData(insn_bytes, 64);
  return Status::Ok();
}

std::string Program::Listing() const {
  std::string s;
  for (size_t i = 0; i < uops_.size(); ++i) s += isa::DisassembleUop(uops_[i]) + "\n";
  for (const isa::Insn& insn : insns_) s += isa::Disassemble(insn) + "\n";
  return s;
}

isa::Insn LoadInsn(isa::Buffer buffer, uint32_t sram, uint32_t dram, uint32_t y, uint32_t x,
                   uint32_t stride) {
  isa::Insn i;
  i.opcode = isa::Opcode::kLoad;
  i.buffer = buffer;
  i.sram_base = sram;
  i.dram_base = dram;
  i.y_size = y;
  i.x_size = x;
  i.x_stride = stride;
  return i;
}

isa::Insn StoreInsn(uint32_t sram, uint32_t dram, uint32_t y, uint32_t x, uint32_t stride) {
  isa::Insn i = LoadInsn(isa::Buffer::kOut, sram, dram, y, x, stride);
  i.opcode = isa::Opcode::kStore;
  return i;
}

isa::Insn LoopInsn(isa::Opcode op, uint32_t uop, uint32_t uops, uint32_t loop_out,
                   uint32_t loop_in) {
  isa::Insn i;
  i.opcode = op;
  i.uop_bgn = uop;
  i.uop_end = uop + uops;
  i.loop_out = loop_out;
  i.loop_in = loop_in;
  return i;
}

isa::Insn AluImm(isa::AluOp op, int32_t imm, uint32_t uop, uint32_t uops, uint32_t loop_out,
                 uint32_t loop_in) {
  isa::Insn i = LoopInsn(isa::Opcode::kAlu, uop, uops, loop_out, loop_in);
  i.alu_op = op;
  i.use_imm = true;
  i.imm = imm;
  return i;
}

isa::Insn Finish() { return isa::Insn(); }

std::vector<uint8_t> Bytes(const std::vector<int8_t>& v) {
  return std::vector<uint8_t>(v.begin(), v.end());
}

std::vector<uint8_t> Bytes(const std::vector<int32_t>& v) {
  std::vector<uint8_t> out(v.size() * 4);
  for (size_t i = 0; i < v.size(); ++i) {
    const uint32_t u = static_cast<uint32_t>(v[i]);
    for (int b = 0; b < 4; ++b) out[i * 4 + b] = static_cast<uint8_t>(u >> (8 * b));
  }
  return out;
}

HwConfig HalfOutputBlock(HwConfig config) {
  config.block_out /= 2;
  config.acc_buffer_bytes /= 2;
  config.wgt_buffer_bytes /= 2;
  config.name = std::to_string(config.batch) + "x" + std::to_string(config.block_in) + "x" +
                std::to_string(config.block_out);
  return config;
}

Status OneGemmProgram(bool depthwise, Program* p) {
  uint64_t uop_addr = 0;
  LOOM_RETURN_IF_ERROR(p->AddUops({{0, 0, 0}}, &uop_addr));
  p->Emit(LoadInsn(isa::Buffer::kUop, 0, static_cast<uint32_t>(uop_addr / HwConfig::kUopBytes), 1,
                   1, 1));
  isa::Insn g = LoopInsn(isa::Opcode::kGemm, 0, 1, 1, 1);
  g.depthwise = depthwise;
  p->Emit(g);
  p->Emit(Finish());
  return p->Finalize();
}

}  // namespace loom::programs
