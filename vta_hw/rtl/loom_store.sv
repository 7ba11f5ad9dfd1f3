// The store module (docs/isa.md §1.1): runs STORE, in order, through the write DMA. Its tokens:
// pop_prev takes from compute->store, push_prev gives to store->compute.
module loom_store #(
  localparam int unsigned IdxW = loom_pkg::INSN_IDX_W,
  localparam int unsigned AxiBytes = loom_hw_pkg::AXI_BYTES,
  localparam int unsigned AxiW = loom_hw_pkg::AXI_DATA_BITS,
  localparam int unsigned AddrW = loom_pkg::AXI_ADDR_W,
  localparam int unsigned InsnBits = loom_hw_pkg::INSN_BITS,
  localparam int unsigned CmdW = loom_pkg::INSN_IDX_W + loom_hw_pkg::INSN_BITS,
  localparam int unsigned OutW = loom_hw_pkg::OUT_ELEM_BYTES * 8
) (
  input  logic                                 clk_i,
  input  logic                                 rst_ni,
  input  logic                                 clr_i,
  input  logic                                 abort_i,
  // command queue
  input  logic                                 cmd_valid_i,
  input  logic [CmdW-1:0]                      cmd_i,           // {index, instruction}
  output logic                                 cmd_ready_o,
  // tokens
  input  logic                                 pop_prev_ok_i,
  output logic                                 pop_prev_o,
  input  logic                                 push_prev_ok_i,
  output logic                                 push_prev_o,
  // OUT read port
  output logic                                 out_re_o,
  output logic [loom_hw_pkg::ACC_IDX_BITS-1:0] out_raddr_o,
  input  logic [OutW-1:0]                      out_rdata_i,
  // AXI write channels
  output logic                                 aw_valid_o,
  input  logic                                 aw_ready_i,
  output logic [AddrW-1:0]                     aw_addr_o,
  output logic [7:0]                           aw_len_o,
  output logic                                 w_valid_o,
  input  logic                                 w_ready_i,
  output logic [AxiW-1:0]                      w_data_o,
  output logic [AxiBytes-1:0]                  w_strb_o,
  output logic                                 w_last_o,
  input  logic                                 b_valid_i,
  output logic                                 b_ready_o,
  input  logic [1:0]                           b_resp_i,
  // status
  output logic                                 busy_o,
  output logic                                 idle_o,
  output logic [IdxW-1:0]                      last_o,
  output logic [loom_pkg::SEQ_TRACE_W-1:0]     trace_o,         // loom_insn_seq's trace port
  output logic                                 err_o,
  output logic [IdxW-1:0]                      err_idx_o,
  output logic [31:0]                          wr_bytes_o       // DRAM bytes sent this cycle
);

  logic start, done, seq_idle, dma_idle, data_elem;
  logic pop_next_unused, push_next_unused;

  loom_insn_seq u_seq (
    .clk_i,
    .rst_ni,
    .clr_i,
    .abort_i,
    .cmd_valid_i,
    .cmd_i,
    .cmd_ready_o,
    .pop_prev_ok_i,
    .pop_prev_o,
    .pop_next_ok_i (1'b0),  // the store module has no next module
    .pop_next_o    (pop_next_unused),
    .push_prev_ok_i,
    .push_prev_o,
    .push_next_ok_i(1'b0),
    .push_next_o   (push_next_unused),
    .start_o       (start),
    .done_i        (done),
    .busy_o,
    .idle_o        (seq_idle),
    .cur_idx_o     (err_idx_o),
    .last_o,
    .trace_o
  );

  loom_dma_wr #(
    .ElemBytes(loom_hw_pkg::OUT_ELEM_BYTES),
    .IdxW     (loom_hw_pkg::ACC_IDX_BITS)
  ) u_dma (
    .clk_i,
    .rst_ni,
    .start_i    (start),
    .insn_i     (cmd_i[InsnBits-1:0]),
    .abort_i,
    .done_o     (done),
    .idle_o     (dma_idle),
    .err_o,
    .re_o       (out_re_o),
    .raddr_o    (out_raddr_o),
    .rdata_i    (out_rdata_i),
    .aw_valid_o,
    .aw_ready_i,
    .aw_addr_o,
    .aw_len_o,
    .w_valid_o,
    .w_ready_i,
    .w_data_o,
    .w_strb_o,
    .w_last_o,
    .b_valid_i,
    .b_ready_o,
    .b_resp_i,
    .data_elem_o(data_elem)
  );

  assign idle_o     = seq_idle && dma_idle;
  assign wr_bytes_o = data_elem ? 32'(loom_hw_pkg::OUT_ELEM_BYTES) : '0;

  logic unused;
  assign unused = ^{pop_next_unused, push_next_unused};

endmodule : loom_store
