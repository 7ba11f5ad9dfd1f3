#include "vta_hw/gen/sv_package.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <sstream>
#include <vector>

#include "runtime/core/isa.h"

namespace loom {
namespace {

std::string Upper(std::string s) {
  for (char& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

// Accumulates the package body; names are padded so that the '=' signs line up, which keeps a diff
// between two generated packages readable.
class PackageWriter {
 public:
  void Comment(const std::string& text) { os_ << "\n  // " << text << "\n"; }
  void Param(const std::string& name, uint64_t value) {
    os_ << "  localparam int unsigned " << Pad(name) << " = " << value << ";\n";
  }
  void Raw(const std::string& text) { os_ << text; }

  // typedef enum logic [width-1:0] { PREFIX_NAME = width'dN, ... } type_e;
  template <typename E, typename NameFn>
  void Enum(const std::string& type, const std::string& prefix, uint32_t width,
            const std::vector<E>& values, NameFn name) {
    os_ << "  typedef enum logic [" << width - 1 << ":0] {\n";
    for (size_t i = 0; i < values.size(); ++i) {
      os_ << "    " << Pad(prefix + Upper(name(values[i])), 20) << " = " << width << "'d"
          << static_cast<unsigned>(values[i]) << (i + 1 < values.size() ? "," : "") << "\n";
    }
    os_ << "  } " << type << ";\n";
  }

  std::string str() const { return os_.str(); }

 private:
  static std::string Pad(const std::string& s, size_t width = 24) {
    return s.size() >= width ? s : s + std::string(width - s.size(), ' ');
  }
  std::ostringstream os_;
};

// The highest bit a format uses, plus one: the rest of the word is reserved and must be zero.
uint32_t UsedBits(const std::vector<isa::FieldSpec>& fields) {
  uint32_t bits = 0;
  for (const auto& f : fields) bits = std::max(bits, f.lsb + f.width);
  return bits;
}

void FieldParams(PackageWriter& w, const std::string& format,
                 const std::vector<isa::FieldSpec>& fields) {
  for (const auto& f : fields) {
    std::string base = format + "_" + Upper(f.name);
    w.Param(base + "_LSB", f.lsb);
    w.Param(base + "_W", f.width);
  }
  w.Param(format + "_USED_BITS", UsedBits(fields));
}

}  // namespace

std::string GenerateSvPackage(const HwConfig& c) {
  isa::Layout layout;
  Status valid = c.Validate();
  if (valid.ok()) valid = isa::Layout::Create(c, &layout);
  if (!valid.ok()) {
    // No package at all: RTL that imports loom_hw_pkg then fails to compile instead of building
    // hardware from parameters nobody checked.
    return "// loom_hw_pkg was not generated: config '" + c.name +
           "' is invalid: " + valid.message() + "\n";
  }

  PackageWriter w;
  w.Comment("GEMM core: (BATCH x BLOCK_IN) inputs times (BLOCK_OUT x BLOCK_IN) weights per cycle.");
  w.Param("BATCH", c.batch);
  w.Param("BLOCK_IN", c.block_in);
  w.Param("BLOCK_OUT", c.block_out);

  w.Comment("Element widths in bits.");
  w.Param("INP_BITS", c.inp_bits);
  w.Param("WGT_BITS", c.wgt_bits);
  w.Param("ACC_BITS", c.acc_bits);
  w.Param("OUT_BITS", c.out_bits);

  w.Comment("On-chip buffers. An element is one buffer word: a whole tile (uop: one micro-op).");
  w.Param("UOP_BUFFER_BYTES", c.uop_buffer_bytes);
  w.Param("INP_BUFFER_BYTES", c.inp_buffer_bytes);
  w.Param("WGT_BUFFER_BYTES", c.wgt_buffer_bytes);
  w.Param("ACC_BUFFER_BYTES", c.acc_buffer_bytes);
  w.Param("OUT_BUFFER_BYTES", c.out_buffer_bytes());
  w.Param("UOP_ELEM_BYTES", HwConfig::kUopBytes);
  w.Param("INP_ELEM_BYTES", c.inp_elem_bytes());
  w.Param("WGT_ELEM_BYTES", c.wgt_elem_bytes());
  w.Param("ACC_ELEM_BYTES", c.acc_elem_bytes());
  w.Param("OUT_ELEM_BYTES", c.out_elem_bytes());
  w.Param("UOP_DEPTH", c.uop_depth());
  w.Param("INP_DEPTH", c.inp_depth());
  w.Param("WGT_DEPTH", c.wgt_depth());
  w.Param("ACC_DEPTH", c.acc_depth());
  w.Param("OUT_DEPTH", c.out_depth());
  w.Param("RQP_DEPTH", isa::kRqParamDepth);  // REQUANT's parameter buffer, on every config
  w.Param("UOP_IDX_BITS", c.uop_idx_bits());
  w.Param("INP_IDX_BITS", c.inp_idx_bits());
  w.Param("WGT_IDX_BITS", c.wgt_idx_bits());
  w.Param("ACC_IDX_BITS", c.acc_idx_bits());
  w.Param("OUT_IDX_BITS", HwConfig::Log2(c.out_depth()));

  w.Comment("Queues: token queues between modules, instruction queues in front of each module.");
  w.Param("TOKEN_QUEUE_DEPTH", c.token_queue_depth);
  w.Param("CMD_QUEUE_DEPTH", c.cmd_queue_depth);

  w.Comment("Memory system and clock (timing only; not part of CONFIG_HASH).");
  w.Param("AXI_DATA_BITS", c.axi_data_bits);
  w.Param("AXI_BYTES", c.axi_bytes());
  w.Param("DMA_BURST_LATENCY", c.dma_burst_latency);
  w.Param("DMA_MAX_BURST_BEATS", c.dma_max_burst_beats);
  w.Param("DMA_READS_IN_FLIGHT", HwConfig::kDmaReadsInFlight);
  // An integer, because real parameters are not synthesizable in every tool; kHz keeps a
  // fractional clock such as 133.33 MHz precise enough for timers.
  w.Param("CLOCK_KHZ", static_cast<uint64_t>(std::llround(c.clock_mhz * 1000.0)));

  w.Comment("The package a program was compiled for must carry this hash (see HwConfig).");
  char hash[48];
  uint64_t h = c.CompatibilityHash();
  std::snprintf(hash, sizeof hash, "64'h%04x_%04x_%04x_%04x", static_cast<unsigned>(h >> 48),
                static_cast<unsigned>((h >> 32) & 0xffff),
                static_cast<unsigned>((h >> 16) & 0xffff), static_cast<unsigned>(h & 0xffff));
  w.Raw(std::string("  localparam logic [63:0] CONFIG_HASH = ") + hash + ";\n");

  w.Comment("Instruction and micro-op words.");
  w.Param("INSN_BITS", HwConfig::kInsnBytes * 8);
  w.Param("UOP_BITS", HwConfig::kUopBytes * 8);
  w.Raw("\n");
  using isa::AluOp;
  using isa::Buffer;
  using isa::Opcode;
  w.Enum("opcode_e", "OPCODE_", isa::Layout::kOpcodeBits,
         std::vector<Opcode>{Opcode::kLoad, Opcode::kStore, Opcode::kGemm, Opcode::kFinish,
                             Opcode::kAlu},
         isa::OpcodeName);
  w.Raw("\n");
  w.Enum("buffer_e", "BUF_", isa::Layout::kBufferBits,
         std::vector<Buffer>{Buffer::kUop, Buffer::kWgt, Buffer::kInp, Buffer::kAcc, Buffer::kOut},
         isa::BufferName);
  w.Raw("\n");
  w.Enum("alu_op_e", "ALU_", isa::Layout::kAluOpBits,
         std::vector<AluOp>{AluOp::kMin, AluOp::kMax, AluOp::kAdd, AluOp::kShr, AluOp::kShrRound,
                            AluOp::kMul, AluOp::kRequant, AluOp::kRqParam},
         isa::AluOpName);

  // The decoder slices words with these; they come from the same table Encode/Decode walk.
  w.Comment("LOAD / STORE fields: <FMT>_<FIELD>_LSB is the lowest bit, _W the width.");
  FieldParams(w, "MEM", isa::Fields(layout, Opcode::kLoad));
  w.Comment("GEMM fields.");
  FieldParams(w, "GEMM", isa::Fields(layout, Opcode::kGemm));
  w.Comment("ALU fields.");
  FieldParams(w, "ALU", isa::Fields(layout, Opcode::kAlu));
  w.Comment("ALU REQUANT fields (alu_op REQUANT selects this format).");
  FieldParams(w, "REQUANT", isa::RequantFields(layout));
  w.Comment("FINISH fields.");
  FieldParams(w, "FINISH", isa::Fields(layout, Opcode::kFinish));
  w.Comment("Micro-op fields.");
  FieldParams(w, "UOP", isa::UopFields(layout));

  std::string out;
  out += "// Generated by loom-hwconfig from hardware config " + c.name + " (hash " + c.HashHex() +
         ").\n";
  out += "// Do not edit: change vta_hw/configs/" + c.name +
         ".json and run `loom-hwconfig sv` instead.\n\n";
  // A parameter package is a menu: each module uses a few entries, so Verilator's -Wall would
  // otherwise flag every parameter some module leaves unused. UNUSED (not UNUSEDPARAM) so that
  // Verilator 4 accepts the pragma too.
  out += "package loom_hw_pkg;\n\n  /* verilator lint_off UNUSED */\n" + w.str() +
         "\n  /* verilator lint_on UNUSED */\n\nendpackage : loom_hw_pkg\n";
  return out;
}

}  // namespace loom
