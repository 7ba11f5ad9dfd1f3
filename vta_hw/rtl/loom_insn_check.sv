// Decodes enough of an instruction word to route it, and detects every condition that
// docs/isa.md §4 marks R (the RTL must reject it): a reserved bit set, an unknown opcode or
// buffer, a dependency flag the executing module does not have, push flags on FINISH, a buffer
// the opcode does not allow, and a REQUANT shift beyond 31. The other static conditions are the
// runtime's to check.
//
// The fields every format shares (docs/isa.md §2.3) sit at the same bits in every format; the
// FINISH format consists of exactly those, so its positions name them here and elsewhere.
module loom_insn_check (
  input  logic [InsnBits-1:0] insn_i,
  output logic                valid_o,
  output logic [1:0]          module_o,  // loom_pkg::MOD_*
  output logic                finish_o
);

  localparam int unsigned InsnBits = loom_hw_pkg::INSN_BITS;
  localparam int unsigned OpcodeW = loom_hw_pkg::FINISH_OPCODE_W;

  logic [OpcodeW-1:0]                   opcode;
  logic [loom_hw_pkg::MEM_BUFFER_W-1:0] buffer;
  logic [loom_hw_pkg::ALU_ALU_OP_W-1:0] alu_op;
  logic                                 pop_prev, pop_next, push_prev, push_next;

  assign opcode    = insn_i[loom_hw_pkg::FINISH_OPCODE_LSB +: OpcodeW];
  assign buffer    = insn_i[loom_hw_pkg::MEM_BUFFER_LSB +: loom_hw_pkg::MEM_BUFFER_W];
  assign alu_op    = insn_i[loom_hw_pkg::ALU_ALU_OP_LSB +: loom_hw_pkg::ALU_ALU_OP_W];
  assign pop_prev  = insn_i[loom_hw_pkg::FINISH_POP_PREV_LSB];
  assign pop_next  = insn_i[loom_hw_pkg::FINISH_POP_NEXT_LSB];
  assign push_prev = insn_i[loom_hw_pkg::FINISH_PUSH_PREV_LSB];
  assign push_next = insn_i[loom_hw_pkg::FINISH_PUSH_NEXT_LSB];

  // Bits above the last field of each format must be zero.
  logic mem_clear, gemm_clear, alu_clear, requant_clear, finish_clear;
  assign mem_clear    = (insn_i >> loom_hw_pkg::MEM_USED_BITS) == '0;
  assign gemm_clear   = (insn_i >> loom_hw_pkg::GEMM_USED_BITS) == '0;
  assign alu_clear    = (insn_i >> loom_hw_pkg::ALU_USED_BITS) == '0;
  assign requant_clear = (insn_i >> loom_hw_pkg::REQUANT_USED_BITS) == '0;
  assign finish_clear = (insn_i >> loom_hw_pkg::FINISH_USED_BITS) == '0;
  // REQUANT's shifts are 0..31 in 6-bit fields (docs/isa.md §2.7.1): their top bits must be 0.
  logic requant_shifts_ok;
  assign requant_shifts_ok =
      !insn_i[loom_hw_pkg::REQUANT_PRE_SHIFT_LSB + loom_hw_pkg::REQUANT_PRE_SHIFT_W - 1] &&
      !insn_i[loom_hw_pkg::REQUANT_POST_SHIFT_LSB + loom_hw_pkg::REQUANT_POST_SHIFT_W - 1] &&
      // fuse needs clear (docs/isa.md §3.4.2)
      !(insn_i[loom_hw_pkg::REQUANT_FUSE_LSB] && !insn_i[loom_hw_pkg::REQUANT_CLEAR_LSB]);

  always_comb begin
    valid_o  = 1'b0;
    module_o = loom_pkg::MOD_COMPUTE;
    finish_o = 1'b0;
    unique case (opcode)
      loom_hw_pkg::OPCODE_LOAD: begin
        unique case (buffer)
          loom_hw_pkg::BUF_UOP, loom_hw_pkg::BUF_ACC: begin
            module_o = loom_pkg::MOD_COMPUTE;
            valid_o  = mem_clear;
          end
          loom_hw_pkg::BUF_WGT, loom_hw_pkg::BUF_INP: begin
            module_o = loom_pkg::MOD_LOAD;
            valid_o  = mem_clear && !pop_prev && !push_prev;
          end
          default: valid_o = 1'b0;  // LOAD of OUT, or an unknown buffer
        endcase
      end
      loom_hw_pkg::OPCODE_STORE: begin
        module_o = loom_pkg::MOD_STORE;
        valid_o  = buffer == loom_hw_pkg::BUF_OUT && mem_clear && !pop_next && !push_next;
      end
      loom_hw_pkg::OPCODE_GEMM: valid_o = gemm_clear;
      // All eight ALU op codes exist; REQUANT has its own, shorter format.
      loom_hw_pkg::OPCODE_ALU:
        valid_o = alu_op == loom_hw_pkg::ALU_REQUANT ? requant_clear && requant_shifts_ok
                                                     : alu_clear;
      loom_hw_pkg::OPCODE_FINISH: begin
        finish_o = 1'b1;
        valid_o  = finish_clear && !push_prev && !push_next;
      end
      default: valid_o = 1'b0;  // opcodes 5-7
    endcase
  end

`ifndef SYNTHESIS
  // The common fields sit at the same bits in every format (docs/isa.md §2.3).
  initial begin
    assert (loom_hw_pkg::MEM_OPCODE_LSB == loom_hw_pkg::FINISH_OPCODE_LSB &&
            loom_hw_pkg::GEMM_OPCODE_LSB == loom_hw_pkg::FINISH_OPCODE_LSB &&
            loom_hw_pkg::ALU_OPCODE_LSB == loom_hw_pkg::FINISH_OPCODE_LSB &&
            loom_hw_pkg::MEM_POP_PREV_LSB == loom_hw_pkg::FINISH_POP_PREV_LSB &&
            loom_hw_pkg::GEMM_PUSH_NEXT_LSB == loom_hw_pkg::FINISH_PUSH_NEXT_LSB &&
            loom_hw_pkg::ALU_PUSH_NEXT_LSB == loom_hw_pkg::FINISH_PUSH_NEXT_LSB &&
            loom_hw_pkg::REQUANT_ALU_OP_LSB == loom_hw_pkg::ALU_ALU_OP_LSB &&
            loom_hw_pkg::REQUANT_DST_FACTOR_IN_LSB == loom_hw_pkg::ALU_DST_FACTOR_IN_LSB &&
            InsnBits == 128)
      else $fatal(1, "loom_insn_check: instruction formats differ from docs/isa.md");
  end
`endif

endmodule : loom_insn_check
