// The load module (docs/isa.md §1.1): runs LOAD INP and LOAD WGT, in order, through one read
// DMA. Its tokens: pop_next takes from compute->load, push_next gives to load->compute.
module loom_load #(
  localparam int unsigned IdxW = loom_pkg::INSN_IDX_W,
  localparam int unsigned AxiW = loom_hw_pkg::AXI_DATA_BITS,
  localparam int unsigned AddrW = loom_pkg::AXI_ADDR_W,
  localparam int unsigned InsnBits = loom_hw_pkg::INSN_BITS,
  localparam int unsigned CmdW = loom_pkg::INSN_IDX_W + loom_hw_pkg::INSN_BITS,
  localparam int unsigned InpW = loom_hw_pkg::INP_ELEM_BYTES * 8,
  localparam int unsigned WgtW = loom_hw_pkg::WGT_ELEM_BYTES * 8
) (
  input  logic                                 clk_i,
  input  logic                                 rst_ni,
  input  logic                                 clr_i,           // a run starts
  input  logic                                 abort_i,
  // command queue
  input  logic                                 cmd_valid_i,
  input  logic [CmdW-1:0]                      cmd_i,           // {index, instruction}
  output logic                                 cmd_ready_o,
  // tokens
  input  logic                                 pop_next_ok_i,
  output logic                                 pop_next_o,
  input  logic                                 push_next_ok_i,
  output logic                                 push_next_o,
  // AXI read client
  output logic                                 ar_valid_o,
  input  logic                                 ar_ready_i,
  output logic [AddrW-1:0]                     ar_addr_o,
  output logic [7:0]                           ar_len_o,
  input  logic                                 r_valid_i,
  output logic                                 r_ready_o,
  input  logic [AxiW-1:0]                      r_data_i,
  input  logic [1:0]                           r_resp_i,
  input  logic                                 r_last_i,
  // INP and WGT write ports
  output logic                                 inp_we_o,
  output logic                                 wgt_we_o,
  output logic [loom_hw_pkg::INP_IDX_BITS-1:0] inp_waddr_o,
  output logic [loom_hw_pkg::WGT_IDX_BITS-1:0] wgt_waddr_o,
  output logic [InpW-1:0]                      inp_wdata_o,
  output logic [WgtW-1:0]                      wgt_wdata_o,
  // status
  output logic                                 busy_o,
  output logic                                 idle_o,
  output logic [IdxW-1:0]                      last_o,
  output logic [loom_pkg::SEQ_TRACE_W-1:0]     trace_o,         // loom_insn_seq's trace port
  output logic                                 err_o,           // DRAM error response
  output logic [IdxW-1:0]                      err_idx_o,
  output logic [31:0]                          rd_bytes_o       // DRAM bytes loaded this cycle
);

  localparam int unsigned InpIdxW = loom_hw_pkg::INP_IDX_BITS;
  localparam int unsigned WgtIdxW = loom_hw_pkg::WGT_IDX_BITS;
  localparam int unsigned BufIdxW = InpIdxW > WgtIdxW ? InpIdxW : WgtIdxW;  // the wider buffer

  logic               start, done, seq_idle, dma_idle, data_elem, sel_q;
  logic [BufIdxW-1:0] waddr;
  logic               pop_prev_unused, push_prev_unused;

  loom_insn_seq u_seq (
    .clk_i,
    .rst_ni,
    .clr_i,
    .abort_i,
    .cmd_valid_i,
    .cmd_i,
    .cmd_ready_o,
    .pop_prev_ok_i (1'b0),  // the load module has no previous module
    .pop_prev_o    (pop_prev_unused),
    .pop_next_ok_i,
    .pop_next_o,
    .push_prev_ok_i(1'b0),
    .push_prev_o   (push_prev_unused),
    .push_next_ok_i,
    .push_next_o,
    .start_o       (start),
    .done_i        (done),
    .busy_o,
    .idle_o        (seq_idle),
    .cur_idx_o     (err_idx_o),
    .last_o,
    .trace_o
  );

  logic sel;
  assign sel = cmd_i[loom_hw_pkg::MEM_BUFFER_LSB +: loom_hw_pkg::MEM_BUFFER_W] ==
               loom_hw_pkg::BUF_WGT;

  loom_dma_rd #(
    .ElemBytesA(loom_hw_pkg::INP_ELEM_BYTES),
    .ElemBytesB(loom_hw_pkg::WGT_ELEM_BYTES),
    .IdxW      (BufIdxW)
  ) u_dma (
    .clk_i,
    .rst_ni,
    .start_i    (start),
    .sel_i      (sel),
    .insn_i     (cmd_i[InsnBits-1:0]),
    .abort_i,
    .done_o     (done),
    .idle_o     (dma_idle),
    .err_o,
    .ar_valid_o,
    .ar_ready_i,
    .ar_addr_o,
    .ar_len_o,
    .r_valid_i,
    .r_ready_o,
    .r_data_i,
    .r_resp_i,
    .r_last_i,
    .we_a_o     (inp_we_o),
    .we_b_o     (wgt_we_o),
    .waddr_o    (waddr),
    .wdata_a_o  (inp_wdata_o),
    .wdata_b_o  (wgt_wdata_o),
    .data_elem_o(data_elem)
  );

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) sel_q <= 1'b0;
    else if (start) sel_q <= sel;
  end

  assign inp_waddr_o = waddr[InpIdxW-1:0];
  assign wgt_waddr_o = waddr[WgtIdxW-1:0];
  assign idle_o      = seq_idle && dma_idle;
  assign rd_bytes_o  = !data_elem ? '0 :
                       sel_q ? 32'(loom_hw_pkg::WGT_ELEM_BYTES) : 32'(loom_hw_pkg::INP_ELEM_BYTES);

  logic unused;
  assign unused = ^{pop_prev_unused, push_prev_unused};

endmodule : loom_load
