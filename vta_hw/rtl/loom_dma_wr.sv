// The write DMA of a STORE (docs/isa.md §3.2): copies OUT[sram_base + y * x_size + x] to DRAM
// element dram_base + y * x_stride + x. Rows that are contiguous in DRAM go out as one transfer;
// a transfer is split into bursts of at most DMA_MAX_BURST_BEATS beats that never cross 4 KiB.
// Bursts are issued one at a time: address, data beats, then the write response. The
// instruction completes with the last response, which is when its data is visible to any later
// reader (docs/isa.md §1.4).
//
// The OUT buffer is read ahead into a small FIFO, one element per cycle, so the data beats of a
// burst follow each other without a gap. When an element is narrower than a beat, elements are
// gathered into beats and the byte strobes mark the ones that belong to the transfer.
module loom_dma_wr #(
  localparam int unsigned AxiBytes = loom_hw_pkg::AXI_BYTES,
  localparam int unsigned AxiW = loom_hw_pkg::AXI_DATA_BITS,
  localparam int unsigned AddrW = loom_pkg::AXI_ADDR_W,
  localparam int unsigned InsnBits = loom_hw_pkg::INSN_BITS,
  parameter  int unsigned ElemBytes = 8,
  parameter  int unsigned IdxW = 10,
  localparam int unsigned ElemW = ElemBytes * 8
) (
  input  logic                clk_i,
  input  logic                rst_ni,
  input  logic                start_i,
  input  logic [InsnBits-1:0] insn_i,      // a LOAD or STORE    // pads are 0 for a STORE
  input  logic                abort_i,     // stop after the burst in flight
  output logic                done_o,      // last write response received (pulse)
  output logic                idle_o,
  output logic                err_o,       // a write response was an error
  // OUT buffer read port (one cycle latency)
  output logic                re_o,
  output logic [IdxW-1:0]     raddr_o,
  input  logic [ElemW-1:0]    rdata_i,
  // AXI write channels
  output logic                aw_valid_o,
  input  logic                aw_ready_i,
  output logic [AddrW-1:0]    aw_addr_o,
  output logic [7:0]          aw_len_o,
  output logic                w_valid_o,
  input  logic                w_ready_i,
  output logic [AxiW-1:0]     w_data_o,
  output logic [AxiBytes-1:0] w_strb_o,
  output logic                w_last_o,
  input  logic                b_valid_i,
  output logic                b_ready_o,
  input  logic [1:0]          b_resp_i,
  output logic                data_elem_o  // an element went into a data beat
);

  localparam int unsigned AW = loom_pkg::AXI_ADDR_W;
  localparam int unsigned YSizeW = loom_hw_pkg::MEM_Y_SIZE_W;
  localparam int unsigned BeatW = loom_hw_pkg::AXI_DATA_BITS;
  localparam int unsigned AxiShift = $clog2(loom_hw_pkg::AXI_BYTES);
  localparam int unsigned Shift = $clog2(ElemBytes);
  localparam int unsigned BeatMask = loom_hw_pkg::AXI_BYTES - 1;
  localparam int unsigned MaxBurstBytes = loom_hw_pkg::DMA_MAX_BURST_BEATS * loom_hw_pkg::AXI_BYTES;
  localparam int unsigned Slots = ElemBytes < AxiBytes ? AxiBytes / ElemBytes : 1;
  localparam int unsigned SlotW = Slots > 1 ? $clog2(Slots) : 1;
  localparam int unsigned PrefetchDepth = 4;

  typedef enum logic [2:0] {
    WrIdle,
    WrBurst,  // address and data beats of a burst
    WrResp,   // waiting for the burst's write response
    WrEmpty   // y_size or x_size is 0
  } wr_state_e;

  // The instruction's LOAD/STORE fields (docs/isa.md §2.5).
  logic [loom_hw_pkg::MEM_SRAM_BASE_W-1:0]    sram_base;
  logic [loom_hw_pkg::MEM_DRAM_BASE_W-1:0]    dram_base;
  logic [loom_hw_pkg::MEM_Y_SIZE_W-1:0]       y_size;
  logic [loom_hw_pkg::MEM_X_SIZE_W-1:0]       x_size;
  logic [loom_hw_pkg::MEM_X_STRIDE_W-1:0]     x_stride;
  logic [loom_hw_pkg::MEM_Y_PAD_TOP_W-1:0]    y_pad_top;
  logic [loom_hw_pkg::MEM_Y_PAD_BOTTOM_W-1:0] y_pad_bottom;
  logic [loom_hw_pkg::MEM_X_PAD_LEFT_W-1:0]   x_pad_left;
  logic [loom_hw_pkg::MEM_X_PAD_RIGHT_W-1:0]  x_pad_right;
  logic [loom_hw_pkg::MEM_PAD_VALUE_W-1:0]    pad_value;
  loom_mem_fields u_fields (
    .insn_i,
    .sram_base_o   (sram_base),
    .dram_base_o   (dram_base),
    .y_size_o      (y_size),
    .x_size_o      (x_size),
    .x_stride_o    (x_stride),
    .y_pad_top_o   (y_pad_top),
    .y_pad_bottom_o(y_pad_bottom),
    .x_pad_left_o  (x_pad_left),
    .x_pad_right_o (x_pad_right),
    .pad_value_o   (pad_value)
  );
  // sram_base wraps at this buffer's depth, which may be smaller than the field (docs/isa.md §4).
  logic unused_sram_base;
  assign unused_sram_base = ^sram_base;

  wr_state_e         state_q, state_d;
  logic              aborting_q;  // finish the burst in flight, then stop
  logic [AW-1:0]     xfer_bytes_q, row_step_q, row_addr_q, cur_addr_q, bytes_left_q;
  logic [YSizeW-1:0] xfers_left_q;
  logic [31:0]       xfer_elems_q;
  logic              aw_done_q;   // this burst's address was accepted
  logic [8:0]        w_left_q;    // data beats still to send, once started_q

  // ---------------------------------------------------------------------------------------------
  // Start.
  logic          empty, merged;
  logic [31:0]   total_elems, xfer_elems;
  logic [AW-1:0] base_addr;

  assign empty       = y_size == '0 || x_size == '0;
  assign merged      = x_stride == x_size || y_size == 16'd1;
  assign total_elems = 32'(y_size) * 32'(x_size);
  assign xfer_elems  = merged ? total_elems : 32'(x_size);
  assign base_addr   = AW'(dram_base) << Shift;

  // ---------------------------------------------------------------------------------------------
  // The next burst (same rule as loom_dma_rd).
  logic [AxiShift-1:0] beat_off;
  logic [12:0]         to_4k;
  logic [AW-1:0]       room, burst_bytes;
  logic [8:0]          beats;

  assign beat_off = cur_addr_q[AxiShift-1:0];
  assign to_4k    = 13'(loom_pkg::AXI_4K) - 13'(cur_addr_q[11:0]);
  assign room     = AW'(MaxBurstBytes) - AW'(beat_off);
  always_comb begin
    burst_bytes = bytes_left_q;
    if (AW'(to_4k) < burst_bytes) burst_bytes = AW'(to_4k);
    if (room < burst_bytes) burst_bytes = room;
  end
  // A burst holds at most MaxBurstBytes (<= 32 KiB) counted from its first beat.
  assign beats = 9'((17'(beat_off) + 17'(burst_bytes) + 17'(BeatMask)) >> AxiShift);

  // A burst's beat count is latched by whichever comes first, its address or its first data beat
  // (AXI lets data lead the address); until then it follows from the registers above, which only
  // change when the address is accepted.
  logic       started_q;  // this burst's address or first data beat has gone out
  logic [8:0] w_left;     // data beats of this burst still to send

  assign w_left     = started_q ? w_left_q : 9'(beats);
  assign aw_valid_o = state_q == WrBurst && !aw_done_q;
  assign aw_addr_o  = {cur_addr_q[AW-1:AxiShift], {AxiShift{1'b0}}};
  assign aw_len_o   = 8'(beats - 1'b1);

  // ---------------------------------------------------------------------------------------------
  // OUT read-ahead: the first read goes out in the cycle the instruction starts, and an element
  // read in the previous cycle can go straight into a beat without passing through the FIFO.
  logic                                 start_rd, consume, head_valid;
  logic [31:0]                          rd_left_q;
  logic [IdxW-1:0]                      rd_idx_q;
  logic                                 rd_inflight_q;
  logic                                 fifo_rvalid, fifo_pop, fifo_push;
  logic [ElemW-1:0]                     fifo_head, head;
  logic [$clog2(PrefetchDepth + 1)-1:0] fifo_count;

  assign start_rd   = state_q == WrIdle && start_i && !abort_i && !empty;
  assign re_o       = start_rd || (rd_left_q != '0 && !aborting_q && !abort_i &&
                                   32'(fifo_count) + 32'(rd_inflight_q) < PrefetchDepth);
  assign raddr_o    = start_rd ? IdxW'(sram_base) : rd_idx_q;
  assign head_valid = fifo_rvalid || rd_inflight_q;
  assign head       = fifo_rvalid ? fifo_head : rdata_i;
  assign fifo_pop   = consume && fifo_rvalid;
  assign fifo_push  = rd_inflight_q && !abort_i && !(consume && !fifo_rvalid);

  loom_fifo #(
    .Width(ElemW),
    .Depth(PrefetchDepth)
  ) u_prefetch (
    .clk_i,
    .rst_ni,
    .clr_i   (abort_i),
    .wvalid_i(fifo_push),
    .wready_o(),
    .wdata_i (rdata_i),
    .rvalid_o(fifo_rvalid),
    .rready_i(fifo_pop),
    .rdata_o (fifo_head),
    .count_o (fifo_count)
  );

  // ---------------------------------------------------------------------------------------------
  // Elements to beats.
  logic                beat_valid, w_hs, in_burst;
  logic [BeatW-1:0]    beat_data;
  logic [AxiBytes-1:0] beat_strb;
  logic                xfer_start;  // a transfer begins: the start of the instruction or of a row
  logic [SlotW-1:0]    xfer_slot;   // its first element's slot in the first beat
  logic [31:0]         xfer_count;  // its elements
  logic [AW-1:0]       next_row;

  assign in_burst   = state_q == WrBurst && w_left != '0;
  assign next_row   = row_addr_q + row_step_q;
  assign xfer_slot  = state_q == WrIdle ? SlotW'(base_addr >> Shift) : SlotW'(next_row >> Shift);
  assign xfer_count = state_q == WrIdle ? xfer_elems : xfer_elems_q;
  assign w_valid_o  = in_burst && (beat_valid || aborting_q);
  assign w_data_o   = beat_data;
  assign w_strb_o   = aborting_q ? '0 : beat_strb;  // an aborted burst writes nothing
  assign w_last_o   = w_left == 9'd1;
  assign w_hs       = w_valid_o && w_ready_i;

  if (ElemBytes >= loom_hw_pkg::AXI_BYTES) begin : g_wide
    // An element is BeatsPerElem whole beats, taken straight from the FIFO head.
    localparam int unsigned BeatsPerElem = ElemBytes / loom_hw_pkg::AXI_BYTES;
    localparam int unsigned CntW = BeatsPerElem > 1 ? $clog2(BeatsPerElem) : 1;
    logic [CntW-1:0] part_q;
    logic            last_part;

    assign last_part   = BeatsPerElem == 1 || part_q == CntW'(BeatsPerElem - 1);
    assign beat_valid  = head_valid;
    always_comb begin
      beat_data = head[BeatW-1:0];
      for (int unsigned k = 1; k < BeatsPerElem; k++) begin
        if (part_q == CntW'(k)) beat_data = head[k*BeatW +: BeatW];
      end
    end
    assign beat_strb   = '1;
    assign consume     = w_hs && !aborting_q && last_part;
    assign data_elem_o = consume;

    always_ff @(posedge clk_i or negedge rst_ni) begin
      if (!rst_ni) begin
        part_q <= '0;
      end else if (abort_i || (state_q == WrIdle)) begin
        part_q <= '0;
      end else if (w_hs && !aborting_q) begin
        part_q <= last_part ? '0 : part_q + 1'b1;
      end
    end

    // Whole-beat elements need no transfer bookkeeping on the data side.
    logic unused;
    assign unused = ^{xfer_start, xfer_slot, xfer_count};
  end else begin : g_narrow
    // Slots elements per beat: gather them, then send the beat.
    logic [BeatW-1:0]    gbeat_q;
    logic [AxiBytes-1:0] gstrb_q;
    logic [SlotW-1:0]    slot_q;
    logic                full_q;
    logic [31:0]         gleft_q;  // elements of the transfer not yet gathered
    logic                take;

    assign take        = !full_q && head_valid && gleft_q != '0 && !aborting_q;
    assign consume     = take;
    assign data_elem_o = take;
    assign beat_valid = full_q;
    assign beat_data  = gbeat_q;
    assign beat_strb  = gstrb_q;

    always_ff @(posedge clk_i or negedge rst_ni) begin
      if (!rst_ni) begin
        gbeat_q <= '0;
        gstrb_q <= '0;
        slot_q  <= '0;
        full_q  <= 1'b0;
        gleft_q <= '0;
      end else if (abort_i) begin
        full_q  <= 1'b0;
        gstrb_q <= '0;
        gleft_q <= '0;
      end else begin
        if (xfer_start) begin
          slot_q  <= xfer_slot;
          gleft_q <= xfer_count;
        end
        if (w_hs) begin
          full_q  <= 1'b0;
          gstrb_q <= '0;
        end
        if (take) begin
          for (int unsigned k = 0; k < Slots; k++) begin
            if (slot_q == SlotW'(k)) begin
              gbeat_q[k*ElemW +: ElemW]           <= head;
              gstrb_q[k*ElemBytes +: ElemBytes] <= '1;
            end
          end
          gleft_q <= gleft_q - 1'b1;
          slot_q  <= slot_q + 1'b1;
          if (slot_q == SlotW'(Slots - 1) || gleft_q == 32'd1) full_q <= 1'b1;
        end
      end
    end
  end

  // ---------------------------------------------------------------------------------------------
  // Burst sequencing.
  logic b_hs, last_burst;
  assign b_ready_o  = state_q == WrResp;
  assign b_hs       = b_valid_i && b_ready_o;
  assign err_o      = b_hs && b_resp_i != 2'b00;
  assign last_burst = bytes_left_q == '0 && xfers_left_q == 16'd1;
  assign idle_o     = state_q == WrIdle;
  assign xfer_start = (state_q == WrIdle && start_i && !abort_i && !empty) ||
                      (b_hs && bytes_left_q == '0 && xfers_left_q != 16'd1 && !aborting_q);
  assign done_o     = (state_q == WrEmpty || (b_hs && last_burst)) && !aborting_q && !abort_i;

  always_comb begin
    state_d = state_q;
    unique case (state_q)
      WrIdle:  if (start_i && !abort_i) state_d = empty ? WrEmpty : WrBurst;
      WrBurst: begin
        if ((aw_done_q || aw_valid_o && aw_ready_i) && (w_left == '0 || w_left == 9'd1 && w_hs))
          state_d = WrResp;
      end
      WrResp: begin
        if (b_hs) state_d = (last_burst || aborting_q || abort_i) ? WrIdle : WrBurst;
      end
      WrEmpty: state_d = WrIdle;
      default: state_d = WrIdle;
    endcase
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      state_q       <= WrIdle;
      aborting_q    <= 1'b0;
      xfer_bytes_q  <= '0;
      row_step_q    <= '0;
      row_addr_q    <= '0;
      cur_addr_q    <= '0;
      bytes_left_q  <= '0;
      xfers_left_q  <= '0;
      xfer_elems_q  <= '0;
      aw_done_q     <= 1'b0;
      started_q     <= 1'b0;
      w_left_q      <= '0;
      rd_left_q     <= '0;
      rd_idx_q      <= '0;
      rd_inflight_q <= 1'b0;
    end else begin
      state_q       <= state_d;
      rd_inflight_q <= re_o && !abort_i;
      if (re_o && !start_rd) begin
        rd_left_q <= rd_left_q - 1'b1;
        rd_idx_q  <= rd_idx_q + 1'b1;
      end
      if (abort_i && state_q != WrIdle) aborting_q <= 1'b1;
      if (abort_i) rd_left_q <= '0;
      if (state_d == WrIdle) aborting_q <= 1'b0;

      if (state_q == WrIdle && start_i && !abort_i) begin
        xfer_elems_q <= xfer_elems;
        xfer_bytes_q <= AW'(xfer_elems) << Shift;
        bytes_left_q <= AW'(xfer_elems) << Shift;
        row_step_q   <= AW'(x_stride) << Shift;
        row_addr_q   <= base_addr;
        cur_addr_q   <= base_addr;
        xfers_left_q <= merged ? 16'd1 : y_size;
        rd_left_q    <= empty ? '0 : total_elems - 1'b1;  // the first read is under way
        rd_idx_q     <= IdxW'(sram_base) + 1'b1;
        aw_done_q    <= 1'b0;
        started_q    <= 1'b0;
      end

      if (aw_valid_o && aw_ready_i) begin
        aw_done_q    <= 1'b1;
        cur_addr_q   <= cur_addr_q + burst_bytes;
        bytes_left_q <= bytes_left_q - burst_bytes;
      end
      if ((aw_valid_o && aw_ready_i) || w_hs) begin
        started_q <= 1'b1;
        w_left_q  <= w_left - 9'(w_hs);
      end

      // Response received: the next burst, possibly of the next row.
      if (b_hs) begin
        aw_done_q <= 1'b0;
        started_q <= 1'b0;
        if (bytes_left_q == '0 && xfers_left_q != 16'd1) begin
          xfers_left_q <= xfers_left_q - 1'b1;
          row_addr_q   <= next_row;
          cur_addr_q   <= next_row;
          bytes_left_q <= xfer_bytes_q;
        end
      end
    end
  end

  // A STORE has no padding and no pad value (docs/isa.md §3.2).
  logic unused_pads;
  assign unused_pads = ^{y_pad_top, y_pad_bottom, x_pad_left,
                         x_pad_right, pad_value};

`ifndef SYNTHESIS
  always_ff @(posedge clk_i) begin
    if (rst_ni) begin
      assert (!(start_i && state_q != WrIdle)) else $error("loom_dma_wr: start while busy");
      if (aw_valid_o) begin
        assert ((cur_addr_q >> 12) == ((cur_addr_q + burst_bytes - 1'b1) >> 12))
          else $error("loom_dma_wr: burst crosses 4 KiB");
      end
    end
  end
`endif

endmodule : loom_dma_wr
