// Instruction fetch (docs/isa.md §1.1): reads the stream of INSN_COUNT instructions from DRAM in
// bursts, checks each one (loom_insn_check), and dispatches it in program order into the command
// queue of the module that executes it. A full target queue stalls dispatch, and with it every
// later instruction.
//
// Bursts land in a small fetch buffer, and a burst is only requested when the buffer has room for
// all of it: the read channel, which the load and compute modules share, is never held up by a
// stalled dispatch. Dispatch stops at the first invalid instruction (error 1), at a FINISH before
// the end or a last instruction that is not FINISH (error 4), and on abort.
module loom_fetch #(
  localparam int unsigned CmdW = loom_pkg::INSN_IDX_W + loom_hw_pkg::INSN_BITS,
  localparam int unsigned AxiW = loom_hw_pkg::AXI_DATA_BITS,
  localparam int unsigned AddrW = loom_pkg::AXI_ADDR_W,
  localparam int unsigned InsnBits = loom_hw_pkg::INSN_BITS,
  parameter int unsigned FetchDepth = 64  // fetch buffer entries; also the longest fetch burst
) (
  input  logic             clk_i,
  input  logic             rst_ni,
  input  logic             start_i,
  input  logic [AddrW-1:0] insn_addr_i,
  input  logic [IdxW-1:0]  insn_count_i,
  input  logic             abort_i,
  // AXI read client
  output logic             ar_valid_o,
  input  logic             ar_ready_i,
  output logic [AddrW-1:0] ar_addr_o,
  output logic [7:0]       ar_len_o,
  input  logic             r_valid_i,
  output logic             r_ready_o,
  input  logic [AxiW-1:0]  r_data_i,
  input  logic [1:0]       r_resp_i,
  input  logic             r_last_i,
  // command queues: one entry, offered to the queue of its module
  output logic [CmdW-1:0]  cmd_o,            // {index, insn}
  output logic             load_valid_o,
  input  logic             load_ready_i,
  output logic             compute_valid_o,
  input  logic             compute_ready_i,
  output logic             store_valid_o,
  input  logic             store_ready_i,
  // status
  output logic             err_o,            // pulse; code and index below
  output logic [3:0]       err_code_o,       // loom_pkg::ERR_*
  output logic [IdxW-1:0]  err_idx_o,
  output logic [IdxW-1:0]  fetched_o,        // instructions dispatched in this run
  output logic             idle_o            // no burst requested or in flight
);

  localparam int unsigned IdxW = loom_pkg::INSN_IDX_W;
  localparam int unsigned InsnBytes = loom_hw_pkg::INSN_BITS / 8;
  localparam int unsigned InsnShift = $clog2(InsnBytes);
  localparam int unsigned AxiShift = $clog2(loom_hw_pkg::AXI_BYTES);
  localparam int unsigned BeatMask = loom_hw_pkg::AXI_BYTES - 1;
  localparam int unsigned AW = loom_pkg::AXI_ADDR_W;
  // Longest burst in instructions: the fetch buffer, and DMA_MAX_BURST_BEATS beats.
  localparam int unsigned AxiBytes = loom_hw_pkg::AXI_BYTES;
  localparam int unsigned MaxBurstInsns0 = loom_hw_pkg::DMA_MAX_BURST_BEATS * AxiBytes / InsnBytes;
  localparam int unsigned MaxBurstInsns1 = MaxBurstInsns0 > 0 ? MaxBurstInsns0 : 1;
  localparam int unsigned BurstInsns = MaxBurstInsns1 < FetchDepth ? MaxBurstInsns1 : FetchDepth;
  localparam int unsigned CntW = $clog2(FetchDepth + 1);
  localparam int unsigned Slots = InsnBytes < AxiBytes ? AxiBytes / InsnBytes : 1;
  localparam int unsigned SlotW = Slots > 1 ? $clog2(Slots) : 1;

  // ---------------------------------------------------------------------------------------------
  // Requests.
  logic            fetching_q;   // instructions remain to be requested
  logic [IdxW-1:0] req_left_q;   // instructions not yet requested
  logic [AW-1:0]   next_addr_q;  // address of the next instruction to request
  logic [CntW-1:0] inflight_q;   // requested, not yet in the buffer
  logic            ar_valid_q, burst_q;
  logic [AW-1:0]   ar_addr_q;
  logic [7:0]      ar_len_q;
  logic [CntW-1:0] buf_count;
  logic            buf_push;

  logic [CntW-1:0] space, want, n;
  logic [8:0]      to_4k;  // instructions before the next 4 KiB boundary (<= 256)
  logic [AW-1:0]   burst_bytes, beats;

  assign space = CntW'(FetchDepth) - buf_count - inflight_q;
  assign to_4k = 9'((13'(loom_pkg::AXI_4K) - 13'(next_addr_q[11:0])) >> InsnShift);
  always_comb begin
    // A full-size burst, unless fewer instructions remain.
    want = CntW'(BurstInsns);
    if (req_left_q < IdxW'(want)) want = CntW'(req_left_q);
    n = want;
    if (9'(to_4k) < 9'(n)) n = CntW'(to_4k);
  end
  assign burst_bytes = AW'(n) << InsnShift;
  assign beats = (AW'(next_addr_q[AxiShift-1:0]) + burst_bytes + AW'(BeatMask)) >> AxiShift;

  logic issue;
  assign issue = fetching_q && !abort_i && !ar_valid_q && !burst_q && want != '0 && space >= want;

  assign ar_valid_o = ar_valid_q;
  assign ar_addr_o  = ar_addr_q;
  assign ar_len_o   = ar_len_q;
  assign idle_o     = !ar_valid_q && !burst_q;

  // ---------------------------------------------------------------------------------------------
  // Beats to instructions to the fetch buffer.
  logic                up_ready, up_beat_ready, up_busy, elem_valid;
  logic [InsnBits-1:0] elem;
  logic                r_hs;

  assign r_ready_o = abort_i || !fetching_q && !up_busy ? 1'b1 : up_beat_ready;
  assign r_hs      = r_valid_i && r_ready_o;
  assign buf_push  = elem_valid && !abort_i;

  loom_beat_unpack #(
    .ElemBytes(InsnBytes),
    .BeatBytes(loom_hw_pkg::AXI_BYTES)
  ) u_unpack (
    .clk_i,
    .rst_ni,
    .clr_i       (abort_i),
    .start_i     (start_i && insn_count_i != '0),
    .offset_i    (SlotW'(insn_addr_i >> InsnShift)),
    .count_i     (insn_count_i),
    .beat_valid_i(r_valid_i && !abort_i),
    .beat_ready_o(up_beat_ready),
    .beat_data_i (r_data_i),
    .elem_valid_o(elem_valid),
    .elem_data_o (elem),
    .last_o      (),
    .ready_o     (up_ready),
    .busy_o      (up_busy)
  );

  logic                buf_rvalid, buf_pop;
  logic [InsnBits-1:0] head;

  loom_fifo #(
    .Width(loom_hw_pkg::INSN_BITS),
    .Depth(FetchDepth)
  ) u_buffer (
    .clk_i,
    .rst_ni,
    .clr_i   (abort_i || start_i),
    .wvalid_i(buf_push),
    .wready_o(),
    .wdata_i (elem),
    .rvalid_o(buf_rvalid),
    .rready_i(buf_pop),
    .rdata_o (head),
    .count_o (buf_count)
  );

  // ---------------------------------------------------------------------------------------------
  // Dispatch.
  logic            dispatching_q;  // this run still has instructions to dispatch
  logic [IdxW-1:0] idx_q, count_q;
  logic            head_ok, head_finish, last, stream_bad, target_ready;
  logic [1:0]      head_module;

  loom_insn_check u_check (
    .insn_i  (head),
    .valid_o (head_ok),
    .module_o(head_module),
    .finish_o(head_finish)
  );

  assign last       = idx_q == count_q - 1'b1;
  assign stream_bad = head_finish != last;  // FINISH must be the last instruction, and only it
  always_comb begin
    unique case (head_module)
      loom_pkg::MOD_LOAD:  target_ready = load_ready_i;
      loom_pkg::MOD_STORE: target_ready = store_ready_i;
      default: target_ready = compute_ready_i;
    endcase
  end

  logic offer;
  assign offer           = dispatching_q && buf_rvalid && head_ok && !stream_bad && !abort_i;
  assign cmd_o           = {idx_q, head};
  assign load_valid_o    = offer && head_module == loom_pkg::MOD_LOAD;
  assign compute_valid_o = offer && head_module == loom_pkg::MOD_COMPUTE;
  assign store_valid_o   = offer && head_module == loom_pkg::MOD_STORE;
  assign buf_pop         = offer && target_ready;
  assign fetched_o       = idx_q;

  // An empty stream is reported in the cycle after start, when the run has begun.
  logic empty_q;
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) empty_q <= 1'b0;
    else empty_q <= start_i && insn_count_i == '0;
  end

  // Errors: an empty stream, an error response to a fetch burst (named after the first
  // instruction not yet received), or a bad instruction at the head.
  always_comb begin
    err_o      = 1'b0;
    err_code_o = loom_pkg::ERR_NONE;
    err_idx_o  = idx_q;
    if (empty_q) begin
      err_o      = 1'b1;
      err_code_o = loom_pkg::ERR_STREAM;
      err_idx_o  = '0;
    end else if (burst_q && r_hs && r_resp_i != 2'b00 && !abort_i) begin
      err_o      = 1'b1;
      err_code_o = loom_pkg::ERR_DRAM;
      err_idx_o  = idx_q + IdxW'(buf_count);
    end else if (dispatching_q && buf_rvalid && !abort_i) begin
      if (!head_ok) begin
        err_o      = 1'b1;
        err_code_o = loom_pkg::ERR_INSN;
      end else if (stream_bad) begin
        err_o      = 1'b1;
        err_code_o = loom_pkg::ERR_STREAM;
      end
    end
  end

  // ---------------------------------------------------------------------------------------------
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      fetching_q    <= 1'b0;
      req_left_q    <= '0;
      next_addr_q   <= '0;
      inflight_q    <= '0;
      ar_valid_q    <= 1'b0;
      burst_q       <= 1'b0;
      ar_addr_q     <= '0;
      ar_len_q      <= '0;
      dispatching_q <= 1'b0;
      idx_q         <= '0;
      count_q       <= '0;
    end else begin
      if (start_i) begin
        fetching_q    <= insn_count_i != '0;
        dispatching_q <= insn_count_i != '0;
        req_left_q    <= insn_count_i;
        next_addr_q   <= insn_addr_i;
        inflight_q    <= '0;
        idx_q         <= '0;
        count_q       <= insn_count_i;
      end else begin
        if (issue) begin
          ar_valid_q  <= 1'b1;
          ar_addr_q   <= {next_addr_q[AW-1:AxiShift], {AxiShift{1'b0}}};
          ar_len_q    <= 8'(beats - 1'b1);
          req_left_q  <= req_left_q - IdxW'(n);
          next_addr_q <= next_addr_q + burst_bytes;
          if (req_left_q == IdxW'(n)) fetching_q <= 1'b0;
        end
        inflight_q <= inflight_q + (issue ? n : '0) - CntW'(buf_push);
        if (ar_valid_q && ar_ready_i) begin
          ar_valid_q <= 1'b0;
          burst_q    <= 1'b1;
        end
        if (r_hs && r_last_i) burst_q <= 1'b0;
        if (buf_pop) begin
          idx_q <= idx_q + 1'b1;
          if (last) dispatching_q <= 1'b0;
        end
        if (err_o || abort_i) begin
          fetching_q    <= 1'b0;
          dispatching_q <= 1'b0;
        end
      end
    end
  end

  logic unused;
  assign unused = up_ready;

`ifndef SYNTHESIS
  always_ff @(posedge clk_i) begin
    if (rst_ni) begin
      // The buffer always has room for what was requested.
      assert (!(buf_push && buf_count == CntW'(FetchDepth))) else $error("loom_fetch: overflow");
      assert (!(start_i && !idle_o)) else $error("loom_fetch: start while a burst is in flight");
    end
  end
`endif

endmodule : loom_fetch
