// The compute module (docs/isa.md §1.1): runs LOAD UOP, LOAD ACC, GEMM, ALU and FINISH, in
// order. It owns the UOP and ACC buffers (nobody else touches them), reads INP and WGT, and
// writes OUT. Its tokens: pop_prev takes from load->compute, pop_next from store->compute,
// push_prev gives to compute->load, push_next to compute->store.
//
// FINISH completes once the load and store modules have drained (others_idle_i); finish_o then
// tells the controller the run is over.
module loom_compute #(
  localparam int unsigned IdxW = loom_pkg::INSN_IDX_W,
  localparam int unsigned AxiW = loom_hw_pkg::AXI_DATA_BITS,
  localparam int unsigned AddrW = loom_pkg::AXI_ADDR_W,
  localparam int unsigned InsnBits = loom_hw_pkg::INSN_BITS,
  localparam int unsigned CmdW = loom_pkg::INSN_IDX_W + loom_hw_pkg::INSN_BITS,
  localparam int unsigned InpW = loom_hw_pkg::INP_ELEM_BYTES * 8,
  localparam int unsigned WgtW = loom_hw_pkg::WGT_ELEM_BYTES * 8,
  localparam int unsigned AccW = loom_hw_pkg::ACC_ELEM_BYTES * 8,
  localparam int unsigned OutW = loom_hw_pkg::OUT_ELEM_BYTES * 8,
  localparam int unsigned UopW = loom_hw_pkg::UOP_ELEM_BYTES * 8
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
  input  logic                                 pop_next_ok_i,
  output logic                                 pop_next_o,
  input  logic                                 push_prev_ok_i,
  output logic                                 push_prev_o,
  input  logic                                 push_next_ok_i,
  output logic                                 push_next_o,
  // AXI read client (LOAD UOP / ACC)
  output logic                                 ar_valid_o,
  input  logic                                 ar_ready_i,
  output logic [AddrW-1:0]                     ar_addr_o,
  output logic [7:0]                           ar_len_o,
  input  logic                                 r_valid_i,
  output logic                                 r_ready_o,
  input  logic [AxiW-1:0]                      r_data_i,
  input  logic [1:0]                           r_resp_i,
  input  logic                                 r_last_i,
  // INP and WGT read ports
  output logic                                 inp_re_o,
  output logic [loom_hw_pkg::INP_IDX_BITS-1:0] inp_raddr_o,
  input  logic [InpW-1:0]                      inp_rdata_i,
  output logic                                 wgt_re_o,
  output logic [loom_hw_pkg::WGT_IDX_BITS-1:0] wgt_raddr_o,
  input  logic [WgtW-1:0]                      wgt_rdata_i,
  // OUT write port
  output logic                                 out_we_o,
  output logic [loom_hw_pkg::ACC_IDX_BITS-1:0] out_waddr_o,
  output logic [OutW-1:0]                      out_wdata_o,
  // FINISH
  // FINISH: load and store have nothing left to do
  input  logic                                 others_idle_i,
  output logic                                 finish_o,        // FINISH retired (pulse)
  // status
  output logic                                 busy_o,
  output logic                                 idle_o,
  output logic [IdxW-1:0]                      last_o,
  output logic [loom_pkg::SEQ_TRACE_W-1:0]     trace_o,         // loom_insn_seq's trace port
  output logic                                 err_o,
  output logic [IdxW-1:0]                      err_idx_o,
  output logic [31:0]                          rd_bytes_o,
  output logic                                 gemm_iter_o
);

  localparam int unsigned UopIdxW = loom_hw_pkg::UOP_IDX_BITS;
  localparam int unsigned AccIdxW = loom_hw_pkg::ACC_IDX_BITS;
  localparam int unsigned BufIdxW = UopIdxW > AccIdxW ? UopIdxW : AccIdxW;  // the wider buffer

  logic                                    start, done, seq_idle;
  logic [loom_hw_pkg::FINISH_OPCODE_W-1:0] opcode;
  logic                                    is_load, is_loop, is_finish;

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
    .pop_next_ok_i,
    .pop_next_o,
    .push_prev_ok_i,
    .push_prev_o,
    .push_next_ok_i,
    .push_next_o,
    .start_o  (start),
    .done_i   (done),
    .busy_o,
    .idle_o   (seq_idle),
    .cur_idx_o(err_idx_o),
    .last_o,
    .trace_o
  );

  assign opcode    = cmd_i[loom_hw_pkg::FINISH_OPCODE_LSB +: loom_hw_pkg::FINISH_OPCODE_W];
  assign is_load   = opcode == loom_hw_pkg::OPCODE_LOAD;
  assign is_loop   = opcode == loom_hw_pkg::OPCODE_GEMM || opcode == loom_hw_pkg::OPCODE_ALU;
  assign is_finish = opcode == loom_hw_pkg::OPCODE_FINISH;

  // ---------------------------------------------------------------------------------------------
  // LOAD UOP (buffer A) and LOAD ACC (buffer B).
  logic               dma_done, dma_idle, dma_elem, dma_sel, dma_sel_q;
  logic               dma_we_uop, dma_we_acc;
  logic [BufIdxW-1:0] dma_waddr;
  logic [UopW-1:0]    dma_wdata_uop;
  logic [AccW-1:0]    dma_wdata_acc;

  assign dma_sel = cmd_i[loom_hw_pkg::MEM_BUFFER_LSB +: loom_hw_pkg::MEM_BUFFER_W] ==
                   loom_hw_pkg::BUF_ACC;

  loom_dma_rd #(
    .ElemBytesA(loom_hw_pkg::UOP_ELEM_BYTES),
    .ElemBytesB(loom_hw_pkg::ACC_ELEM_BYTES),
    .IdxW      (BufIdxW)
  ) u_dma (
    .clk_i,
    .rst_ni,
    .start_i    (start && is_load),
    .sel_i      (dma_sel),
    .insn_i     (cmd_i[InsnBits-1:0]),
    .abort_i,
    .done_o     (dma_done),
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
    .we_a_o     (dma_we_uop),
    .we_b_o     (dma_we_acc),
    .waddr_o    (dma_waddr),
    .wdata_a_o  (dma_wdata_uop),
    .wdata_b_o  (dma_wdata_acc),
    .data_elem_o(dma_elem)
  );

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) dma_sel_q <= 1'b0;
    else if (start && is_load) dma_sel_q <= dma_sel;
  end
  assign rd_bytes_o = !dma_elem ? '0 :
                      dma_sel_q ? 32'(loom_hw_pkg::ACC_ELEM_BYTES) :
                                  32'(loom_hw_pkg::UOP_ELEM_BYTES);

  // ---------------------------------------------------------------------------------------------
  // GEMM and ALU.
  logic                                  loop_done;
  logic                                  uop_re;
  logic [loom_hw_pkg::UOP_IDX_BITS-1:0]  uop_raddr;
  logic [loom_hw_pkg::UOP_USED_BITS-1:0] uop_rdata;
  logic                                  acc_re, loop_acc_we;
  logic [loom_hw_pkg::ACC_IDX_BITS-1:0]  acc_raddr, loop_acc_waddr;
  logic [AccW-1:0]                       acc_rdata, loop_acc_wdata;

  loom_loop_exec u_loop (
    .clk_i,
    .rst_ni,
    .abort_i,
    .start_i    (start && is_loop),
    .insn_i     (cmd_i[InsnBits-1:0]),
    .done_o     (loop_done),
    .gemm_iter_o,
    .uop_re_o   (uop_re),
    .uop_raddr_o(uop_raddr),
    .uop_rdata_i(uop_rdata),
    .inp_re_o,
    .inp_raddr_o,
    .inp_rdata_i,
    .wgt_re_o,
    .wgt_raddr_o,
    .wgt_rdata_i,
    .acc_re_o   (acc_re),
    .acc_raddr_o(acc_raddr),
    .acc_rdata_i(acc_rdata),
    .acc_we_o   (loop_acc_we),
    .acc_waddr_o(loop_acc_waddr),
    .acc_wdata_o(loop_acc_wdata),
    .out_we_o,
    .out_waddr_o,
    .out_wdata_o
  );

  // ---------------------------------------------------------------------------------------------
  // The UOP and ACC buffers. LOAD ACC and the loop never run at the same time.
  loom_ram_1r1w #(
    .Width(loom_hw_pkg::UOP_USED_BITS),
    .Depth(loom_hw_pkg::UOP_DEPTH)
  ) u_uop_ram (
    .clk_i,
    .we_i   (dma_we_uop),
    .waddr_i(dma_waddr[UopIdxW-1:0]),
    .wdata_i(dma_wdata_uop[loom_hw_pkg::UOP_USED_BITS-1:0]),
    .re_i   (uop_re),
    .raddr_i(uop_raddr),
    .rdata_o(uop_rdata)
  );

  loom_ram_1r1w #(
    .Width(AccW),
    .Depth(loom_hw_pkg::ACC_DEPTH)
  ) u_acc_ram (
    .clk_i,
    .we_i   (dma_we_acc || loop_acc_we),
    .waddr_i(loop_acc_we ? loop_acc_waddr : dma_waddr[AccIdxW-1:0]),
    .wdata_i(loop_acc_we ? loop_acc_wdata : dma_wdata_acc),
    .re_i   (acc_re),
    .raddr_i(acc_raddr),
    .rdata_o(acc_rdata)
  );

  // ---------------------------------------------------------------------------------------------
  // FINISH: waits until load and store are done with everything dispatched to them.
  logic finishing_q, finish_done;
  assign finish_done = finishing_q && others_idle_i && !abort_i;
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      finishing_q <= 1'b0;
    end else if (abort_i || finish_done) begin
      finishing_q <= 1'b0;
    end else if (start && is_finish) begin
      finishing_q <= 1'b1;
    end
  end

  assign done     = dma_done || loop_done || finish_done;
  assign finish_o = finish_done;
  assign idle_o   = seq_idle && dma_idle;

  // Micro-op bits above the last field are reserved (zero in a valid program) and not stored.
  if (loom_hw_pkg::UOP_USED_BITS < UopW) begin : g_uop_reserved
    logic unused;
    assign unused = ^dma_wdata_uop[UopW-1:loom_hw_pkg::UOP_USED_BITS];
  end

`ifndef SYNTHESIS
  always_ff @(posedge clk_i) begin
    if (rst_ni) begin
      assert (!(dma_we_acc && loop_acc_we)) else $error("loom_compute: two ACC writers");
    end
  end
`endif

endmodule : loom_compute
