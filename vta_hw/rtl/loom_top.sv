// Loom accelerator top level: an AXI4-Lite slave for control (docs/registers.md), an AXI4 master
// for DRAM, and an interrupt.
//
//   s_axil ─► loom_regs ── start/abort ──► loom_fetch ─┬─► load cmd queue ─► loom_load ─┐
//                ▲                              │      ├─► compute queue ─► loom_compute│
//                └── status, counters           │      └─► store queue ─► loom_store ─┐ │
//                                               ▼                                     │ │
//   m_axi AR/R ◄── loom_axi_rd_arb ◄── fetch, load (INP/WGT), compute (UOP/ACC)       │ │
//   m_axi AW/W/B ◄── store                                                            │ │
//   token queues (loom_token_queue): load->compute, compute->load, compute->store,   ◄┘ │
//                                    store->compute                                 ◄──┘
//   buffers: INP, WGT (load writes, compute reads), OUT (compute writes, store reads) here;
//            UOP, ACC inside loom_compute.
module loom_top #(
  localparam int unsigned AxiBytes = loom_hw_pkg::AXI_BYTES,
  localparam int unsigned AxiW = loom_hw_pkg::AXI_DATA_BITS,
  localparam int unsigned AddrW = loom_pkg::AXI_ADDR_W
) (
  input  logic                             clk_i,
  input  logic                             rst_ni,
  // AXI4-Lite slave: registers
  input  logic                             s_axil_awvalid_i,
  output logic                             s_axil_awready_o,
  input  logic [loom_pkg::AXIL_ADDR_W-1:0] s_axil_awaddr_i,
  input  logic                             s_axil_wvalid_i,
  output logic                             s_axil_wready_o,
  input  logic [31:0]                      s_axil_wdata_i,
  input  logic [3:0]                       s_axil_wstrb_i,
  output logic                             s_axil_bvalid_o,
  input  logic                             s_axil_bready_i,
  output logic [1:0]                       s_axil_bresp_o,
  input  logic                             s_axil_arvalid_i,
  output logic                             s_axil_arready_o,
  input  logic [loom_pkg::AXIL_ADDR_W-1:0] s_axil_araddr_i,
  output logic                             s_axil_rvalid_o,
  input  logic                             s_axil_rready_i,
  output logic [31:0]                      s_axil_rdata_o,
  output logic [1:0]                       s_axil_rresp_o,
  // AXI4 master: DRAM (INCR bursts, one read and one write burst outstanding)
  output logic                             m_axi_arvalid_o,
  input  logic                             m_axi_arready_i,
  output logic [AddrW-1:0]                 m_axi_araddr_o,
  output logic [7:0]                       m_axi_arlen_o,
  output logic [2:0]                       m_axi_arsize_o,
  output logic [1:0]                       m_axi_arburst_o,
  output logic [3:0]                       m_axi_arcache_o,
  output logic [2:0]                       m_axi_arprot_o,
  input  logic                             m_axi_rvalid_i,
  output logic                             m_axi_rready_o,
  input  logic [AxiW-1:0]                  m_axi_rdata_i,
  input  logic [1:0]                       m_axi_rresp_i,
  input  logic                             m_axi_rlast_i,
  output logic                             m_axi_awvalid_o,
  input  logic                             m_axi_awready_i,
  output logic [AddrW-1:0]                 m_axi_awaddr_o,
  output logic [7:0]                       m_axi_awlen_o,
  output logic [2:0]                       m_axi_awsize_o,
  output logic [1:0]                       m_axi_awburst_o,
  output logic [3:0]                       m_axi_awcache_o,
  output logic [2:0]                       m_axi_awprot_o,
  output logic                             m_axi_wvalid_o,
  input  logic                             m_axi_wready_i,
  output logic [AxiW-1:0]                  m_axi_wdata_o,
  output logic [AxiBytes-1:0]              m_axi_wstrb_o,
  output logic                             m_axi_wlast_o,
  input  logic                             m_axi_bvalid_i,
  output logic                             m_axi_bready_o,
  input  logic [1:0]                       m_axi_bresp_i,
  // interrupt: a run ended (GIE & IER & ISR)
  output logic                             irq_o,
  // Trace port, one loom_pkg::SEQ_TRACE_W-bit entry per module (isa::Module order: load at the
  // low bits, compute, store): what each instruction sequencer did this cycle. For simulation (tsim's instruction timeline); a board
  // design leaves it unconnected.
  output logic [3*loom_pkg::SEQ_TRACE_W-1:0] trace_o
);

  localparam int unsigned IdxW = loom_pkg::INSN_IDX_W;
  localparam int unsigned CmdW = loom_pkg::INSN_IDX_W + loom_hw_pkg::INSN_BITS;
  localparam int unsigned TokenW = $clog2(loom_hw_pkg::TOKEN_QUEUE_DEPTH + 1);
  localparam int unsigned InpW = loom_hw_pkg::INP_ELEM_BYTES * 8;
  localparam int unsigned WgtW = loom_hw_pkg::WGT_ELEM_BYTES * 8;
  localparam int unsigned OutW = loom_hw_pkg::OUT_ELEM_BYTES * 8;
  localparam int unsigned RdFetch = 0;
  localparam int unsigned RdLoad = 1;
  localparam int unsigned RdCompute = 2;
  localparam int unsigned NumRd = 3;

  // ---------------------------------------------------------------------------------------------
  // Control.
  logic                                   start, abort, finish, all_idle, err;
  logic [3:0]                             err_code;
  logic [IdxW-1:0]                        err_idx;
  logic [AddrW-1:0]                       insn_addr;
  logic [IdxW-1:0]                        insn_count;
  logic [loom_pkg::NUM_QUEUES*TokenW-1:0] tokens;  // queue q at [q*TokenW +: TokenW]
  logic [IdxW-1:0]                        load_last, compute_last, store_last, fetched;
  logic [2:0]                             busy;
  logic                                   gemm_iter;
  logic [31:0]                            load_rd_bytes, compute_rd_bytes, wr_bytes;

  loom_regs u_regs (
    .clk_i,
    .rst_ni,
    .s_axil_awvalid_i,
    .s_axil_awready_o,
    .s_axil_awaddr_i,
    .s_axil_wvalid_i,
    .s_axil_wready_o,
    .s_axil_wdata_i,
    .s_axil_wstrb_i,
    .s_axil_bvalid_o,
    .s_axil_bready_i,
    .s_axil_bresp_o,
    .s_axil_arvalid_i,
    .s_axil_arready_o,
    .s_axil_araddr_i,
    .s_axil_rvalid_o,
    .s_axil_rready_i,
    .s_axil_rdata_o,
    .s_axil_rresp_o,
    .irq_o,
    .start_o       (start),
    .insn_addr_o   (insn_addr),
    .insn_count_o  (insn_count),
    .abort_o       (abort),
    .finish_i      (finish),
    .all_idle_i    (all_idle),
    .err_i         (err),
    .err_code_i    (err_code),
    .err_idx_i     (err_idx),
    .tokens_i      (tokens),
    .load_last_i   (load_last),
    .compute_last_i(compute_last),
    .store_last_i  (store_last),
    .fetched_i     (fetched),
    .busy_i        (busy),
    .gemm_iter_i   (gemm_iter),
    .rd_bytes_i    (load_rd_bytes + compute_rd_bytes),
    .wr_bytes_i    (wr_bytes)
  );

  // ---------------------------------------------------------------------------------------------
  // Read channel sharing.
  logic [NumRd-1:0]       rd_ar_valid, rd_ar_ready, rd_r_valid, rd_r_ready;
  logic [NumRd*AddrW-1:0] rd_ar_addr;  // client c at [c*AddrW +: AddrW]
  logic [NumRd*8-1:0]     rd_ar_len;

  loom_axi_rd_arb #(
    .NumClients(NumRd),
    .AddrW     (loom_pkg::AXI_ADDR_W)
  ) u_rd_arb (
    .clk_i,
    .rst_ni,
    .ar_valid_i (rd_ar_valid),
    .ar_ready_o (rd_ar_ready),
    .ar_addr_i  (rd_ar_addr),
    .ar_len_i   (rd_ar_len),
    .r_valid_o  (rd_r_valid),
    .r_ready_i  (rd_r_ready),
    .m_arvalid_o(m_axi_arvalid_o),
    .m_arready_i(m_axi_arready_i),
    .m_araddr_o (m_axi_araddr_o),
    .m_arlen_o  (m_axi_arlen_o),
    .m_rvalid_i (m_axi_rvalid_i),
    .m_rready_o (m_axi_rready_o),
    .m_rlast_i  (m_axi_rlast_i)
  );

  // Full-width INCR bursts; normal non-cacheable bufferable memory, unprivileged data access.
  assign m_axi_arsize_o  = 3'($clog2(loom_hw_pkg::AXI_BYTES));
  assign m_axi_arburst_o = 2'b01;
  assign m_axi_arcache_o = 4'b0011;
  assign m_axi_arprot_o  = 3'b000;
  assign m_axi_awsize_o  = 3'($clog2(loom_hw_pkg::AXI_BYTES));
  assign m_axi_awburst_o = 2'b01;
  assign m_axi_awcache_o = 4'b0011;
  assign m_axi_awprot_o  = 3'b000;

  // ---------------------------------------------------------------------------------------------
  // Fetch and the command queues.
  logic [CmdW-1:0] fetch_cmd;
  logic            fetch_err, fetch_idle;
  logic [3:0]      fetch_err_code;
  logic [IdxW-1:0] fetch_err_idx;
  logic            load_in_valid, load_in_ready, compute_in_valid, compute_in_ready;
  logic            store_in_valid, store_in_ready;

  loom_fetch u_fetch (
    .clk_i,
    .rst_ni,
    .start_i        (start),
    .insn_addr_i    (insn_addr),
    .insn_count_i   (insn_count),
    .abort_i        (abort),
    .ar_valid_o     (rd_ar_valid[RdFetch]),
    .ar_ready_i     (rd_ar_ready[RdFetch]),
    .ar_addr_o      (rd_ar_addr[RdFetch*AddrW +: AddrW]),
    .ar_len_o       (rd_ar_len[RdFetch*8 +: 8]),
    .r_valid_i      (rd_r_valid[RdFetch]),
    .r_ready_o      (rd_r_ready[RdFetch]),
    .r_data_i       (m_axi_rdata_i),
    .r_resp_i       (m_axi_rresp_i),
    .r_last_i       (m_axi_rlast_i),
    .cmd_o          (fetch_cmd),
    .load_valid_o   (load_in_valid),
    .load_ready_i   (load_in_ready),
    .compute_valid_o(compute_in_valid),
    .compute_ready_i(compute_in_ready),
    .store_valid_o  (store_in_valid),
    .store_ready_i  (store_in_ready),
    .err_o          (fetch_err),
    .err_code_o     (fetch_err_code),
    .err_idx_o      (fetch_err_idx),
    .fetched_o      (fetched),
    .idle_o         (fetch_idle)
  );

  logic            load_cmd_valid, load_cmd_ready, compute_cmd_valid, compute_cmd_ready;
  logic            store_cmd_valid, store_cmd_ready;
  logic [CmdW-1:0] load_cmd, compute_cmd, store_cmd;

  loom_fifo #(
    .Width(CmdW),
    .Depth(loom_hw_pkg::CMD_QUEUE_DEPTH)
  ) u_load_queue (
    .clk_i,
    .rst_ni,
    .clr_i   (start || abort),
    .wvalid_i(load_in_valid),
    .wready_o(load_in_ready),
    .wdata_i (fetch_cmd),
    .rvalid_o(load_cmd_valid),
    .rready_i(load_cmd_ready),
    .rdata_o (load_cmd),
    .count_o ()
  );

  loom_fifo #(
    .Width(CmdW),
    .Depth(loom_hw_pkg::CMD_QUEUE_DEPTH)
  ) u_compute_queue (
    .clk_i,
    .rst_ni,
    .clr_i   (start || abort),
    .wvalid_i(compute_in_valid),
    .wready_o(compute_in_ready),
    .wdata_i (fetch_cmd),
    .rvalid_o(compute_cmd_valid),
    .rready_i(compute_cmd_ready),
    .rdata_o (compute_cmd),
    .count_o ()
  );

  loom_fifo #(
    .Width(CmdW),
    .Depth(loom_hw_pkg::CMD_QUEUE_DEPTH)
  ) u_store_queue (
    .clk_i,
    .rst_ni,
    .clr_i   (start || abort),
    .wvalid_i(store_in_valid),
    .wready_o(store_in_ready),
    .wdata_i (fetch_cmd),
    .rvalid_o(store_cmd_valid),
    .rready_i(store_cmd_ready),
    .rdata_o (store_cmd),
    .count_o ()
  );

  // ---------------------------------------------------------------------------------------------
  // Token queues.
  logic [loom_pkg::NUM_QUEUES-1:0] tok_push, tok_pop, tok_can_push, tok_can_pop;

  for (genvar q = 0; q < loom_pkg::NUM_QUEUES; q++) begin : g_token_queue
    loom_token_queue #(
      .Depth(loom_hw_pkg::TOKEN_QUEUE_DEPTH)
    ) u_queue (
      .clk_i,
      .rst_ni,
      .clr_i     (start),
      .push_i    (tok_push[q]),
      .pop_i     (tok_pop[q]),
      .can_push_o(tok_can_push[q]),
      .can_pop_o (tok_can_pop[q]),
      .count_o   (tokens[q*TokenW +: TokenW])
    );
  end

  // ---------------------------------------------------------------------------------------------
  // Buffers shared between modules.
  logic                                 inp_we, wgt_we, inp_re, wgt_re, out_we, out_re;
  logic [loom_hw_pkg::INP_IDX_BITS-1:0] inp_waddr, inp_raddr;
  logic [loom_hw_pkg::WGT_IDX_BITS-1:0] wgt_waddr, wgt_raddr;
  logic [loom_hw_pkg::ACC_IDX_BITS-1:0] out_waddr, out_raddr;
  logic [InpW-1:0]                      inp_wdata, inp_rdata;
  logic [WgtW-1:0]                      wgt_wdata, wgt_rdata;
  logic [OutW-1:0]                      out_wdata, out_rdata;

  loom_ram_1r1w #(
    .Width(InpW),
    .Depth(loom_hw_pkg::INP_DEPTH)
  ) u_inp_ram (
    .clk_i,
    .we_i   (inp_we),
    .waddr_i(inp_waddr),
    .wdata_i(inp_wdata),
    .re_i   (inp_re),
    .raddr_i(inp_raddr),
    .rdata_o(inp_rdata)
  );

  loom_ram_1r1w #(
    .Width(WgtW),
    .Depth(loom_hw_pkg::WGT_DEPTH)
  ) u_wgt_ram (
    .clk_i,
    .we_i   (wgt_we),
    .waddr_i(wgt_waddr),
    .wdata_i(wgt_wdata),
    .re_i   (wgt_re),
    .raddr_i(wgt_raddr),
    .rdata_o(wgt_rdata)
  );

  loom_ram_1r1w #(
    .Width(OutW),
    .Depth(loom_hw_pkg::OUT_DEPTH)
  ) u_out_ram (
    .clk_i,
    .we_i   (out_we),
    .waddr_i(out_waddr),
    .wdata_i(out_wdata),
    .re_i   (out_re),
    .raddr_i(out_raddr),
    .rdata_o(out_rdata)
  );

  // ---------------------------------------------------------------------------------------------
  // The three modules.
  logic            load_idle, compute_idle, store_idle;
  logic            load_err, compute_err, store_err;
  logic [IdxW-1:0] load_err_idx, compute_err_idx, store_err_idx;

  loom_load u_load (
    .clk_i,
    .rst_ni,
    .clr_i         (start),
    .abort_i       (abort),
    .cmd_valid_i   (load_cmd_valid),
    .cmd_i         (load_cmd),
    .cmd_ready_o   (load_cmd_ready),
    .pop_next_ok_i (tok_can_pop[loom_pkg::Q_C2L]),
    .pop_next_o    (tok_pop[loom_pkg::Q_C2L]),
    .push_next_ok_i(tok_can_push[loom_pkg::Q_L2C]),
    .push_next_o   (tok_push[loom_pkg::Q_L2C]),
    .ar_valid_o    (rd_ar_valid[RdLoad]),
    .ar_ready_i    (rd_ar_ready[RdLoad]),
    .ar_addr_o     (rd_ar_addr[RdLoad*AddrW +: AddrW]),
    .ar_len_o      (rd_ar_len[RdLoad*8 +: 8]),
    .r_valid_i     (rd_r_valid[RdLoad]),
    .r_ready_o     (rd_r_ready[RdLoad]),
    .r_data_i      (m_axi_rdata_i),
    .r_resp_i      (m_axi_rresp_i),
    .r_last_i      (m_axi_rlast_i),
    .inp_we_o      (inp_we),
    .wgt_we_o      (wgt_we),
    .inp_waddr_o   (inp_waddr),
    .wgt_waddr_o   (wgt_waddr),
    .inp_wdata_o   (inp_wdata),
    .wgt_wdata_o   (wgt_wdata),
    .busy_o        (busy[0]),
    .idle_o        (load_idle),
    .last_o        (load_last),
    .trace_o       (trace_o[0*loom_pkg::SEQ_TRACE_W +: loom_pkg::SEQ_TRACE_W]),
    .err_o         (load_err),
    .err_idx_o     (load_err_idx),
    .rd_bytes_o    (load_rd_bytes)
  );

  loom_compute u_compute (
    .clk_i,
    .rst_ni,
    .clr_i         (start),
    .abort_i       (abort),
    .cmd_valid_i   (compute_cmd_valid),
    .cmd_i         (compute_cmd),
    .cmd_ready_o   (compute_cmd_ready),
    .pop_prev_ok_i (tok_can_pop[loom_pkg::Q_L2C]),
    .pop_prev_o    (tok_pop[loom_pkg::Q_L2C]),
    .pop_next_ok_i (tok_can_pop[loom_pkg::Q_S2C]),
    .pop_next_o    (tok_pop[loom_pkg::Q_S2C]),
    .push_prev_ok_i(tok_can_push[loom_pkg::Q_C2L]),
    .push_prev_o   (tok_push[loom_pkg::Q_C2L]),
    .push_next_ok_i(tok_can_push[loom_pkg::Q_C2S]),
    .push_next_o   (tok_push[loom_pkg::Q_C2S]),
    .ar_valid_o    (rd_ar_valid[RdCompute]),
    .ar_ready_i    (rd_ar_ready[RdCompute]),
    .ar_addr_o     (rd_ar_addr[RdCompute*AddrW +: AddrW]),
    .ar_len_o      (rd_ar_len[RdCompute*8 +: 8]),
    .r_valid_i     (rd_r_valid[RdCompute]),
    .r_ready_o     (rd_r_ready[RdCompute]),
    .r_data_i      (m_axi_rdata_i),
    .r_resp_i      (m_axi_rresp_i),
    .r_last_i      (m_axi_rlast_i),
    .inp_re_o      (inp_re),
    .inp_raddr_o   (inp_raddr),
    .inp_rdata_i   (inp_rdata),
    .wgt_re_o      (wgt_re),
    .wgt_raddr_o   (wgt_raddr),
    .wgt_rdata_i   (wgt_rdata),
    .out_we_o      (out_we),
    .out_waddr_o   (out_waddr),
    .out_wdata_o   (out_wdata),
    .others_idle_i (load_idle && !load_cmd_valid && store_idle && !store_cmd_valid),
    .finish_o      (finish),
    .busy_o        (busy[1]),
    .idle_o        (compute_idle),
    .last_o        (compute_last),
    .trace_o       (trace_o[1*loom_pkg::SEQ_TRACE_W +: loom_pkg::SEQ_TRACE_W]),
    .err_o         (compute_err),
    .err_idx_o     (compute_err_idx),
    .rd_bytes_o    (compute_rd_bytes),
    .gemm_iter_o   (gemm_iter)
  );

  loom_store u_store (
    .clk_i,
    .rst_ni,
    .clr_i         (start),
    .abort_i       (abort),
    .cmd_valid_i   (store_cmd_valid),
    .cmd_i         (store_cmd),
    .cmd_ready_o   (store_cmd_ready),
    .pop_prev_ok_i (tok_can_pop[loom_pkg::Q_C2S]),
    .pop_prev_o    (tok_pop[loom_pkg::Q_C2S]),
    .push_prev_ok_i(tok_can_push[loom_pkg::Q_S2C]),
    .push_prev_o   (tok_push[loom_pkg::Q_S2C]),
    .out_re_o      (out_re),
    .out_raddr_o   (out_raddr),
    .out_rdata_i   (out_rdata),
    .aw_valid_o    (m_axi_awvalid_o),
    .aw_ready_i    (m_axi_awready_i),
    .aw_addr_o     (m_axi_awaddr_o),
    .aw_len_o      (m_axi_awlen_o),
    .w_valid_o     (m_axi_wvalid_o),
    .w_ready_i     (m_axi_wready_i),
    .w_data_o      (m_axi_wdata_o),
    .w_strb_o      (m_axi_wstrb_o),
    .w_last_o      (m_axi_wlast_o),
    .b_valid_i     (m_axi_bvalid_i),
    .b_ready_o     (m_axi_bready_o),
    .b_resp_i      (m_axi_bresp_i),
    .busy_o        (busy[2]),
    .idle_o        (store_idle),
    .last_o        (store_last),
    .trace_o       (trace_o[2*loom_pkg::SEQ_TRACE_W +: loom_pkg::SEQ_TRACE_W]),
    .err_o         (store_err),
    .err_idx_o     (store_err_idx),
    .wr_bytes_o    (wr_bytes)
  );

  // ---------------------------------------------------------------------------------------------
  // Errors: fetch first, then the modules in pipeline order; the controller keeps the first.
  always_comb begin
    err      = 1'b1;
    err_code = loom_pkg::ERR_DRAM;
    err_idx  = '0;
    if (fetch_err) begin
      err_code = fetch_err_code;
      err_idx  = fetch_err_idx;
    end else if (load_err) begin
      err_idx = load_err_idx;
    end else if (compute_err) begin
      err_idx = compute_err_idx;
    end else if (store_err) begin
      err_idx = store_err_idx;
    end else begin
      err      = 1'b0;
      err_code = loom_pkg::ERR_NONE;
    end
  end

  assign all_idle = fetch_idle && load_idle && compute_idle && store_idle;

`ifndef SYNTHESIS
  // Each token queue has exactly one pusher and one popper (docs/isa.md §1.3), so the two never
  // race; the queue itself checks for overflow and underflow.
  always_ff @(posedge clk_i) begin
    if (rst_ni) begin
      assert (!(m_axi_rvalid_i && m_axi_rready_o && m_axi_rresp_i != 2'b00 && !abort && !err))
        else $error("loom_top: read error response not reported");
    end
  end
`endif

endmodule : loom_top
