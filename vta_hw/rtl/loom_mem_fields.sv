// The fields of a LOAD/STORE instruction (docs/isa.md §2.5), cut from the 128-bit word at the
// positions the generated loom_hw_pkg gives. Shared by the read and the write DMA. Opcode, flags,
// buffer and the reserved bits are for fetch and the sequencer; sram_base wraps at the buffer's
// depth (a larger index is a static error, docs/isa.md §4), so the DMAs ignore it beyond that.
module loom_mem_fields (
  input  logic [loom_hw_pkg::INSN_BITS-1:0]        insn_i,
  output logic [loom_hw_pkg::MEM_SRAM_BASE_W-1:0]    sram_base_o,
  output logic [loom_hw_pkg::MEM_DRAM_BASE_W-1:0]    dram_base_o,
  output logic [loom_hw_pkg::MEM_Y_SIZE_W-1:0]       y_size_o,
  output logic [loom_hw_pkg::MEM_X_SIZE_W-1:0]       x_size_o,
  output logic [loom_hw_pkg::MEM_X_STRIDE_W-1:0]     x_stride_o,
  output logic [loom_hw_pkg::MEM_Y_PAD_TOP_W-1:0]    y_pad_top_o,
  output logic [loom_hw_pkg::MEM_Y_PAD_BOTTOM_W-1:0] y_pad_bottom_o,
  output logic [loom_hw_pkg::MEM_X_PAD_LEFT_W-1:0]   x_pad_left_o,
  output logic [loom_hw_pkg::MEM_X_PAD_RIGHT_W-1:0]  x_pad_right_o,
  output logic [loom_hw_pkg::MEM_PAD_VALUE_W-1:0]    pad_value_o
);
  assign sram_base_o    = insn_i[loom_hw_pkg::MEM_SRAM_BASE_LSB +: loom_hw_pkg::MEM_SRAM_BASE_W];
  assign dram_base_o    = insn_i[loom_hw_pkg::MEM_DRAM_BASE_LSB +: loom_hw_pkg::MEM_DRAM_BASE_W];
  assign y_size_o       = insn_i[loom_hw_pkg::MEM_Y_SIZE_LSB +: loom_hw_pkg::MEM_Y_SIZE_W];
  assign x_size_o       = insn_i[loom_hw_pkg::MEM_X_SIZE_LSB +: loom_hw_pkg::MEM_X_SIZE_W];
  assign x_stride_o     = insn_i[loom_hw_pkg::MEM_X_STRIDE_LSB +: loom_hw_pkg::MEM_X_STRIDE_W];
  assign y_pad_top_o    = insn_i[loom_hw_pkg::MEM_Y_PAD_TOP_LSB +: loom_hw_pkg::MEM_Y_PAD_TOP_W];
  assign y_pad_bottom_o = insn_i[loom_hw_pkg::MEM_Y_PAD_BOTTOM_LSB +:
                                 loom_hw_pkg::MEM_Y_PAD_BOTTOM_W];
  assign x_pad_left_o   = insn_i[loom_hw_pkg::MEM_X_PAD_LEFT_LSB +: loom_hw_pkg::MEM_X_PAD_LEFT_W];
  assign x_pad_right_o  = insn_i[loom_hw_pkg::MEM_X_PAD_RIGHT_LSB +: loom_hw_pkg::MEM_X_PAD_RIGHT_W];
  assign pad_value_o    = insn_i[loom_hw_pkg::MEM_PAD_VALUE_LSB +: loom_hw_pkg::MEM_PAD_VALUE_W];

  logic unused_insn;
  if (loom_hw_pkg::MEM_USED_BITS < loom_hw_pkg::INSN_BITS) begin : g_reserved
    assign unused_insn = ^{insn_i[loom_hw_pkg::MEM_SRAM_BASE_LSB-1:0],
                           insn_i[loom_hw_pkg::INSN_BITS-1:loom_hw_pkg::MEM_USED_BITS]};
  end else begin : g_no_reserved
    assign unused_insn = ^insn_i[loom_hw_pkg::MEM_SRAM_BASE_LSB-1:0];
  end
endmodule
