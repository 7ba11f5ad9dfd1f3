// The AXI4-Lite register file (docs/registers.md) and the run controller: start, done, idle,
// the interrupt, error status, and the performance counters.
//
// A run starts when CTRL.start is written while idle. It ends when FINISH retires (status: token
// imbalance if any queue is not empty) or, after an error, once every unit has stopped: on the
// first error the controller raises abort_o, which makes fetch stop dispatching and the modules
// drop their instructions after any AXI burst in flight. A deadlock never ends the run; the host
// times out and reads *_LAST and TOKENS.
module loom_regs #(
  localparam int unsigned IdxW = loom_pkg::INSN_IDX_W,
  localparam int unsigned AddrW = loom_pkg::AXI_ADDR_W,
  localparam int unsigned TokenW = $clog2(loom_hw_pkg::TOKEN_QUEUE_DEPTH + 1),
  localparam int unsigned TokensW = loom_pkg::NUM_QUEUES * TokenW
) (
  input  logic                             clk_i,
  input  logic                             rst_ni,
  // AXI4-Lite slave
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
  output logic                             irq_o,
  // run control
  output logic                             start_o,           // pulse: a run starts
  output logic [AddrW-1:0]                 insn_addr_o,
  output logic [IdxW-1:0]                  insn_count_o,
  output logic                             abort_o,
  input  logic                             finish_i,          // FINISH retired
  input  logic                             all_idle_i,        // nothing busy, no burst in flight
  input  logic                             err_i,             // errors, any number per cycle
  input  logic [3:0]                       err_code_i,        // the first one in priority order
  input  logic [IdxW-1:0]                  err_idx_i,
  // status and counters
  input  logic [TokensW-1:0]               tokens_i,          // queue q at q*TokenW
  input  logic [IdxW-1:0]                  load_last_i,
  input  logic [IdxW-1:0]                  compute_last_i,
  input  logic [IdxW-1:0]                  store_last_i,
  input  logic [IdxW-1:0]                  fetched_i,
  input  logic [2:0]                       busy_i,            // load, compute, store executing
  input  logic                             gemm_iter_i,
  input  logic [31:0]                      rd_bytes_i,        // DRAM bytes loaded this cycle
  input  logic [31:0]                      wr_bytes_i         // DRAM bytes stored this cycle
);

  // Register offsets (docs/registers.md).
  localparam logic [7:0] RegCtrl = 8'h00;
  localparam logic [7:0] RegGie = 8'h04;
  localparam logic [7:0] RegIer = 8'h08;
  localparam logic [7:0] RegIsr = 8'h0C;
  localparam logic [7:0] RegInsnAddrLo = 8'h10;
  localparam logic [7:0] RegInsnAddrHi = 8'h14;
  localparam logic [7:0] RegInsnCount = 8'h18;
  localparam logic [7:0] RegStatus = 8'h20;
  localparam logic [7:0] RegErrorInsn = 8'h24;
  localparam logic [7:0] RegCyclesLo = 8'h28;
  localparam logic [7:0] RegCyclesHi = 8'h2C;
  localparam logic [7:0] RegLoadLast = 8'h30;
  localparam logic [7:0] RegComputeLast = 8'h34;
  localparam logic [7:0] RegStoreLast = 8'h38;
  localparam logic [7:0] RegFetched = 8'h3C;
  localparam logic [7:0] RegHashLo = 8'h40;
  localparam logic [7:0] RegHashHi = 8'h44;
  localparam logic [7:0] RegVersion = 8'h48;
  localparam logic [7:0] RegLoadBusy = 8'h50;
  localparam logic [7:0] RegComputeBusy = 8'h54;
  localparam logic [7:0] RegStoreBusy = 8'h58;
  localparam logic [7:0] RegGemmIters = 8'h5C;
  localparam logic [7:0] RegBytesReadLo = 8'h60;
  localparam logic [7:0] RegBytesReadHi = 8'h64;
  localparam logic [7:0] RegBytesWrittenLo = 8'h68;
  localparam logic [7:0] RegBytesWrittenHi = 8'h6C;
  localparam logic [7:0] RegTokens = 8'h70;

  // ---------------------------------------------------------------------------------------------
  // AXI4-Lite: one write and one read at a time; a write needs its address and data together.
  logic        wr_hs, rd_hs, bvalid_q, rvalid_q;
  logic [31:0] rdata_q, rdata;
  logic [7:0]  waddr, raddr;

  assign s_axil_awready_o = s_axil_awvalid_i && s_axil_wvalid_i && !bvalid_q;
  assign s_axil_wready_o  = s_axil_awready_o;
  assign wr_hs            = s_axil_awready_o;
  assign s_axil_bvalid_o  = bvalid_q;
  assign s_axil_bresp_o   = 2'b00;
  assign s_axil_arready_o = !rvalid_q;
  assign rd_hs            = s_axil_arvalid_i && s_axil_arready_o;
  assign s_axil_rvalid_o  = rvalid_q;
  assign s_axil_rdata_o   = rdata_q;
  assign s_axil_rresp_o   = 2'b00;
  assign waddr            = {s_axil_awaddr_i[7:2], 2'b00};
  assign raddr            = {s_axil_araddr_i[7:2], 2'b00};

  // Byte-lane merge of a write into a 32-bit register.
  function automatic logic [31:0] merge(logic [31:0] old, logic [31:0] data, logic [3:0] strb);
    logic [31:0] r;
    for (int unsigned k = 0; k < 4; k++) r[k*8 +: 8] = strb[k] ? data[k*8 +: 8] : old[k*8 +: 8];
    merge = r;
  endfunction

  // ---------------------------------------------------------------------------------------------
  // Run control.
  logic             running_q, done_q, aborting_q, gie_q, ier_q, isr_q;
  logic             err_q;
  logic [3:0]       err_code_q;
  logic [IdxW-1:0]  err_insn_q;
  logic [AddrW-1:0] insn_addr_q;
  logic [IdxW-1:0]  insn_count_q;
  logic [63:0]      cycles_q, bytes_rd_q, bytes_wr_q;
  logic [31:0]      load_busy_q, compute_busy_q, store_busy_q;
  logic [31:0]      gemm_iters_q;
  logic             start, end_run, tokens_left;

  assign start   = wr_hs && waddr == RegCtrl && s_axil_wstrb_i[0] && s_axil_wdata_i[0] &&
                   !running_q;
  assign start_o = start;
  assign abort_o = aborting_q;
  assign insn_addr_o  = insn_addr_q;
  assign insn_count_o = insn_count_q;

  always_comb begin
    tokens_left = 1'b0;
    for (int unsigned q = 0; q < loom_pkg::NUM_QUEUES; q++) begin
      tokens_left |= tokens_i[q*TokenW +: TokenW] != '0;
    end
  end

  // The run ends with FINISH, or after an error once everything has stopped.
  assign end_run = running_q && ((finish_i && !aborting_q && !err_i) ||
                                 (aborting_q && all_idle_i));

  function automatic logic [31:0] sat_inc(logic [31:0] v, logic inc);
    sat_inc = (inc && v != '1) ? v + 1'b1 : v;
  endfunction

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      running_q    <= 1'b0;
      done_q       <= 1'b0;
      aborting_q   <= 1'b0;
      gie_q        <= 1'b0;
      ier_q        <= 1'b0;
      isr_q        <= 1'b0;
      err_q        <= 1'b0;
      err_code_q   <= loom_pkg::ERR_NONE;
      err_insn_q   <= '0;
      insn_addr_q  <= '0;
      insn_count_q <= '0;
      cycles_q     <= '0;
      bytes_rd_q   <= '0;
      bytes_wr_q   <= '0;
      load_busy_q    <= '0;
      compute_busy_q <= '0;
      store_busy_q   <= '0;
      gemm_iters_q <= '0;
    end else begin
      // Register writes.
      if (wr_hs) begin
        unique case (waddr)
          RegGie:        if (s_axil_wstrb_i[0]) gie_q <= s_axil_wdata_i[0];
          RegIer:        if (s_axil_wstrb_i[0]) ier_q <= s_axil_wdata_i[0];
          RegIsr:        if (s_axil_wstrb_i[0] && s_axil_wdata_i[0]) isr_q <= 1'b0;
          RegInsnAddrLo: insn_addr_q[31:0] <= merge(insn_addr_q[31:0], s_axil_wdata_i,
                                                    s_axil_wstrb_i);
          RegInsnAddrHi: insn_addr_q[63:32] <= merge(insn_addr_q[63:32], s_axil_wdata_i,
                                                     s_axil_wstrb_i);
          RegInsnCount:  insn_count_q <= merge(insn_count_q, s_axil_wdata_i, s_axil_wstrb_i);
          default: ;  // CTRL is handled below; the rest is read-only or unmapped
        endcase
      end

      if (start) begin
        running_q    <= 1'b1;
        done_q       <= 1'b0;
        aborting_q   <= 1'b0;
        err_q        <= 1'b0;
        err_code_q   <= loom_pkg::ERR_NONE;
        err_insn_q   <= '0;
        cycles_q     <= '0;
        bytes_rd_q   <= '0;
        bytes_wr_q   <= '0;
        load_busy_q    <= '0;
        compute_busy_q <= '0;
        store_busy_q   <= '0;
        gemm_iters_q <= '0;
      end else if (running_q) begin
        cycles_q     <= cycles_q + 1'b1;
        bytes_rd_q   <= bytes_rd_q + 64'(rd_bytes_i);
        bytes_wr_q   <= bytes_wr_q + 64'(wr_bytes_i);
        load_busy_q    <= sat_inc(load_busy_q, busy_i[0]);
        compute_busy_q <= sat_inc(compute_busy_q, busy_i[1]);
        store_busy_q   <= sat_inc(store_busy_q, busy_i[2]);
        gemm_iters_q <= sat_inc(gemm_iters_q, gemm_iter_i);
        // The first error wins and stops everything.
        if (err_i && !err_q) begin
          err_q      <= 1'b1;
          err_code_q <= err_code_i;
          err_insn_q <= err_idx_i;
          aborting_q <= 1'b1;
        end
        if (finish_i && !aborting_q && !err_i && tokens_left) begin
          err_q      <= 1'b1;
          err_code_q <= loom_pkg::ERR_TOKENS;
          err_insn_q <= insn_count_q - 1'b1;  // FINISH is the last instruction
        end
        if (end_run) begin
          running_q  <= 1'b0;
          done_q     <= 1'b1;
          aborting_q <= 1'b0;
          if (ier_q) isr_q <= 1'b1;
        end
      end
    end
  end

  assign irq_o = gie_q && ier_q && isr_q;

  // ---------------------------------------------------------------------------------------------
  // Register reads.
  function automatic logic [7:0] sat_byte(logic [TokenW-1:0] v);
    sat_byte = 32'(v) > 32'd255 ? 8'hff : 8'(v);
  endfunction

  always_comb begin
    unique case (raddr)
      RegCtrl:           rdata = {28'b0, done_q, !running_q, done_q, running_q};
      RegGie:            rdata = {31'b0, gie_q};
      RegIer:            rdata = {31'b0, ier_q};
      RegIsr:            rdata = {31'b0, isr_q};
      RegInsnAddrLo:     rdata = insn_addr_q[31:0];
      RegInsnAddrHi:     rdata = insn_addr_q[63:32];
      RegInsnCount:      rdata = insn_count_q;
      RegStatus:         rdata = {24'b0, err_code_q, 3'b0, err_q};
      RegErrorInsn:      rdata = err_insn_q;
      RegCyclesLo:       rdata = cycles_q[31:0];
      RegCyclesHi:       rdata = cycles_q[63:32];
      RegLoadLast:       rdata = load_last_i;
      RegComputeLast:    rdata = compute_last_i;
      RegStoreLast:      rdata = store_last_i;
      RegFetched:        rdata = fetched_i;
      RegHashLo:         rdata = loom_hw_pkg::CONFIG_HASH[31:0];
      RegHashHi:         rdata = loom_hw_pkg::CONFIG_HASH[63:32];
      RegVersion:        rdata = loom_pkg::RTL_VERSION;
      RegLoadBusy:       rdata = load_busy_q;
      RegComputeBusy:    rdata = compute_busy_q;
      RegStoreBusy:      rdata = store_busy_q;
      RegGemmIters:      rdata = gemm_iters_q;
      RegBytesReadLo:    rdata = bytes_rd_q[31:0];
      RegBytesReadHi:    rdata = bytes_rd_q[63:32];
      RegBytesWrittenLo: rdata = bytes_wr_q[31:0];
      RegBytesWrittenHi: rdata = bytes_wr_q[63:32];
      RegTokens: begin
        rdata = {sat_byte(tokens_i[loom_pkg::Q_S2C*TokenW +: TokenW]),
                 sat_byte(tokens_i[loom_pkg::Q_C2S*TokenW +: TokenW]),
                 sat_byte(tokens_i[loom_pkg::Q_C2L*TokenW +: TokenW]),
                 sat_byte(tokens_i[loom_pkg::Q_L2C*TokenW +: TokenW])};
      end
      default:           rdata = '0;
    endcase
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      bvalid_q <= 1'b0;
      rvalid_q <= 1'b0;
      rdata_q  <= '0;
    end else begin
      if (wr_hs) bvalid_q <= 1'b1;
      else if (s_axil_bready_i) bvalid_q <= 1'b0;
      if (rd_hs) begin
        rvalid_q <= 1'b1;
        rdata_q  <= rdata;
      end else if (s_axil_rready_i) begin
        rvalid_q <= 1'b0;
      end
    end
  end

  logic unused;
  assign unused = ^{s_axil_awaddr_i[1:0], s_axil_araddr_i[1:0]};

`ifndef SYNTHESIS
  always_ff @(posedge clk_i) begin
    if (rst_ni) begin
      assert (!(finish_i && !running_q)) else $error("loom_regs: FINISH outside a run");
    end
  end
`endif

endmodule : loom_regs
