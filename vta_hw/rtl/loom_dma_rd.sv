// The read DMA of a LOAD (docs/isa.md §3.1): a 2-D strided copy from DRAM into one of two
// on-chip buffers, with padding. The load module drives it for INP and WGT, the compute
// module for UOP and ACC; `sel_i` picks buffer B over buffer A for one instruction.
//
// Order of work, which is also its timing (docs/fsim.md: bursts pipelined up to
// DMA_READS_IN_FLIGHT deep, each one's data the burst latency after its address and after the
// data of the bursts before it, taking max(beats, elements) cycles; then one cycle per padding
// element):
//   1. data: the rows go out as transfers (all rows as one transfer when they are contiguous in
//      DRAM), each split into bursts of at most DMA_MAX_BURST_BEATS beats that never cross a
//      4 KiB boundary. The address side issues the bursts while fewer than DMA_READS_IN_FLIGHT
//      are in flight; the data side takes their beats in the same order, and a loom_beat_unpack
//      per buffer turns beats into elements, written at
//      sram_base + (y_pad_top + y) * PW + x_pad_left + x;
//   2. padding, one element per cycle: the top rows, the left and right margins of every data
//      row, then the bottom rows. A padding element of buffer A has the instruction's pad_value in
//      every byte lane, one of buffer B is zero: in the load module A is INP, whose padding carries
//      the activations' zero point (docs/isa.md §3.1); in the compute module A is UOP, which is
//      never padded, and pad_value is 0 on every load but INP (a static error otherwise).
// The two sides keep their own row counters: the address side marks each burst that ends a row in
// a FIFO as deep as the bursts in flight, and the data side moves to the next row when that
// burst's last beat comes.
module loom_dma_rd #(
  localparam int unsigned AxiW = loom_hw_pkg::AXI_DATA_BITS,
  localparam int unsigned AddrW = loom_pkg::AXI_ADDR_W,
  localparam int unsigned InsnBits = loom_hw_pkg::INSN_BITS,
  parameter  int unsigned ElemBytesA = 8,
  parameter  int unsigned ElemBytesB = 64,
  parameter  int unsigned IdxW = 10,  // index width of the wider buffer
  localparam int unsigned ElemWA = ElemBytesA * 8,
  localparam int unsigned ElemWB = ElemBytesB * 8
) (
  input  logic                clk_i,
  input  logic                rst_ni,
  input  logic                start_i,
  input  logic                sel_i,       // 0: buffer A, 1: buffer B
  input  logic [InsnBits-1:0] insn_i,      // a LOAD or STORE
  input  logic                abort_i,     // stop after the bursts in flight
  output logic                done_o,      // the instruction's last write is done (pulse)
  output logic                idle_o,
  output logic                err_o,       // a data beat came back with an error response
  // AXI read client (through loom_axi_rd_arb)
  output logic                ar_valid_o,
  input  logic                ar_ready_i,
  output logic [AddrW-1:0]    ar_addr_o,
  output logic [7:0]          ar_len_o,
  input  logic                r_valid_i,
  output logic                r_ready_o,
  input  logic [AxiW-1:0]     r_data_i,
  input  logic [1:0]          r_resp_i,
  input  logic                r_last_i,
  // buffer write ports
  output logic                we_a_o,
  output logic                we_b_o,
  output logic [IdxW-1:0]     waddr_o,
  output logic [ElemWA-1:0]   wdata_a_o,
  output logic [ElemWB-1:0]   wdata_b_o,
  output logic                data_elem_o  // a DRAM element (not padding) was written
);

  localparam int unsigned AxiShift = $clog2(loom_hw_pkg::AXI_BYTES);
  localparam int unsigned ShiftA = $clog2(ElemBytesA);
  localparam int unsigned ShiftB = $clog2(ElemBytesB);
  localparam int unsigned AxiBytes = loom_hw_pkg::AXI_BYTES;
  localparam int unsigned MaxBurstBytes = loom_hw_pkg::DMA_MAX_BURST_BEATS * AxiBytes;
  localparam int unsigned SlotsA = ElemBytesA < AxiBytes ? AxiBytes / ElemBytesA : 1;
  localparam int unsigned SlotsB = ElemBytesB < AxiBytes ? AxiBytes / ElemBytesB : 1;
  localparam int unsigned SlotWA = SlotsA > 1 ? $clog2(SlotsA) : 1;
  localparam int unsigned SlotWB = SlotsB > 1 ? $clog2(SlotsB) : 1;
  localparam int unsigned AW = loom_pkg::AXI_ADDR_W;
  localparam int unsigned XSizeW = loom_hw_pkg::MEM_X_SIZE_W;
  localparam int unsigned YSizeW = loom_hw_pkg::MEM_Y_SIZE_W;
  localparam int unsigned BeatMask = loom_hw_pkg::AXI_BYTES - 1;

  localparam int unsigned Depth = loom_hw_pkg::DMA_READS_IN_FLIGHT;
  localparam int unsigned PtrW = Depth > 1 ? $clog2(Depth) : 1;
  localparam int unsigned FillW = $clog2(Depth + 1);

  typedef enum logic [2:0] {
    DmaIdle,
    DmaRun,     // issuing bursts and receiving their data, until the last element is written
    DmaPad,     // writing zero elements
    DmaEmpty,   // y_size or x_size is 0: nothing to move
    DmaDrain    // aborted: finishing the address held on the bus, swallowing the bursts in flight
  } dma_state_e;

  typedef enum logic [1:0] {
    PadTop,
    PadSide,
    PadBottom
  } pad_phase_e;

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

  dma_state_e state_q, state_d;

  // Instruction geometry, captured at start.
  logic                                     sel_q;
  logic [loom_hw_pkg::MEM_PAD_VALUE_W-1:0]  pad_value_q;
  logic [XSizeW-1:0]                        xs_q;
  logic [YSizeW-1:0]                        ys_q;
  logic [loom_hw_pkg::MEM_X_PAD_LEFT_W-1:0] left_q;
  logic [4:0]                               lr_q;  // left + right pad
  logic [IdxW-1:0]                          pw_q;  // padded row width (only added to indices)
  logic [20:0]                              top_pw_q, bottom_pw_q;
  logic [IdxW-1:0]                          sram_base_q;
  logic [31:0]                              xfer_elems_q;
  logic [AW-1:0]                            xfer_bytes_q, row_step_q;

  // Address side: transfers whose bursts are not all issued, the current one included.
  logic [YSizeW-1:0] xfers_left_q;
  logic [AW-1:0]     row_addr_q, cur_addr_q, bytes_left_q;
  logic              issued_q;      // every burst has gone out
  logic              hold_q;        // an address is on the bus, not yet taken: AXI keeps it there
  logic [FillW-1:0]  flight_q;      // bursts issued whose last beat has not come
  logic              row_end_q[Depth];  // per burst in flight: it ends a transfer
  logic [PtrW-1:0]   ar_ptr_q, r_ptr_q;

  // Data side: transfers not yet fully received, the current one included.
  logic [YSizeW-1:0] d_xfers_left_q;
  logic [AW-1:0]     d_row_addr_q;
  logic              pend_start_q;  // the unpacker is yet to be told of the current transfer
  logic [SlotWA-1:0] offset_a_q;
  logic [SlotWB-1:0] offset_b_q;
  logic [IdxW-1:0]   data_idx_q;
  logic [XSizeW-1:0] col_q;

  // Padding.
  pad_phase_e        pad_phase_q;
  logic [20:0]       pad_cnt_q;
  logic [IdxW-1:0]   pad_idx_q, row_base_q;
  logic [4:0]        side_pos_q;
  logic [YSizeW-1:0] side_rows_q;

  // ---------------------------------------------------------------------------------------------
  // Start: geometry of the instruction.
  logic          empty, merged;
  logic [16:0]   pw;
  logic [31:0]   xfer_elems;
  logic [AW-1:0] base_addr, xfer_bytes;

  assign empty  = y_size == '0 || x_size == '0;
  assign merged = x_stride == x_size || y_size == 16'd1;
  assign pw     = 17'(x_pad_left) + 17'(x_size) + 17'(x_pad_right);
  // Contiguous rows move as one transfer of y_size * x_size elements.
  assign xfer_elems = merged ? 32'(y_size) * 32'(x_size) : 32'(x_size);
  assign base_addr  = sel_i ? AW'(dram_base) << ShiftB : AW'(dram_base) << ShiftA;
  assign xfer_bytes = sel_i ? AW'(xfer_elems) << ShiftB : AW'(xfer_elems) << ShiftA;

  // ---------------------------------------------------------------------------------------------
  // The next burst: up to the transfer's end, the next 4 KiB boundary or the burst-length limit.
  logic [AxiShift-1:0] beat_off;
  logic [12:0]         to_4k;
  logic [AW-1:0]       room, burst_bytes;
  logic [AW-1:0]       beats;

  assign beat_off = cur_addr_q[AxiShift-1:0];
  assign to_4k    = 13'(loom_pkg::AXI_4K) - 13'(cur_addr_q[11:0]);
  assign room     = AW'(MaxBurstBytes) - AW'(beat_off);
  always_comb begin
    burst_bytes = bytes_left_q;
    if (AW'(to_4k) < burst_bytes) burst_bytes = AW'(to_4k);
    if (room < burst_bytes) burst_bytes = room;
  end
  assign beats      = (AW'(beat_off) + burst_bytes + AW'(BeatMask)) >> AxiShift;
  assign ar_valid_o = (state_q == DmaRun && !issued_q && flight_q != FillW'(Depth) && !abort_i) ||
                      hold_q;
  assign ar_addr_o  = {cur_addr_q[AW-1:AxiShift], {AxiShift{1'b0}}};
  assign ar_len_o   = 8'(beats - 1'b1);

  // ---------------------------------------------------------------------------------------------
  // Beats to elements, one unpacker per buffer.
  logic              up_start_a, up_start_b, up_clr;
  logic              up_ready_a, up_ready_b;
  logic              beat_ready_a, beat_ready_b, beat_valid_a, beat_valid_b;
  logic              elem_valid_a, elem_valid_b, last_a, last_b, up_last;
  logic [ElemWA-1:0] elem_a;
  logic [ElemWB-1:0] elem_b;
  logic              up_ready, beat_ready, elem_valid, fire_start, r_hs;

  assign up_ready   = sel_q ? up_ready_b : up_ready_a;
  assign beat_ready = sel_q ? beat_ready_b : beat_ready_a;
  assign elem_valid = sel_q ? elem_valid_b : elem_valid_a;
  assign up_last    = sel_q ? last_b : last_a;
  assign fire_start = pend_start_q && up_ready && state_q == DmaRun && !abort_i;
  assign up_start_a = fire_start && !sel_q;
  assign up_start_b = fire_start && sel_q;
  assign up_clr     = abort_i;

  // Beats of a transfer go to its unpacker once that has been started. On abort the rest of the
  // bursts in flight is taken and dropped.
  logic rx;  // a beat of ours may come now
  assign rx = state_q == DmaRun && flight_q != '0;
  always_comb begin
    r_ready_o = 1'b0;
    if (rx && !pend_start_q) r_ready_o = beat_ready;
    if (rx && abort_i) r_ready_o = 1'b1;
    if (state_q == DmaDrain) r_ready_o = 1'b1;
  end
  assign r_hs         = r_valid_i && r_ready_o;
  assign beat_valid_a = rx && !pend_start_q && !abort_i && !sel_q && r_valid_i;
  assign beat_valid_b = rx && !pend_start_q && !abort_i && sel_q && r_valid_i;
  assign err_o        = r_hs && r_resp_i != 2'b00;

  loom_beat_unpack #(
    .ElemBytes(ElemBytesA),
    .BeatBytes(AxiBytes)
  ) u_unpack_a (
    .clk_i,
    .rst_ni,
    .clr_i       (up_clr),
    .start_i     (up_start_a),
    .offset_i    (offset_a_q),
    .count_i     (xfer_elems_q),
    .beat_valid_i(beat_valid_a),
    .beat_ready_o(beat_ready_a),
    .beat_data_i (r_data_i),
    .elem_valid_o(elem_valid_a),
    .elem_data_o (elem_a),
    .last_o      (last_a),
    .ready_o     (up_ready_a),
    .busy_o      ()
  );

  loom_beat_unpack #(
    .ElemBytes(ElemBytesB),
    .BeatBytes(AxiBytes)
  ) u_unpack_b (
    .clk_i,
    .rst_ni,
    .clr_i       (up_clr),
    .start_i     (up_start_b),
    .offset_i    (offset_b_q),
    .count_i     (xfer_elems_q),
    .beat_valid_i(beat_valid_b),
    .beat_ready_o(beat_ready_b),
    .beat_data_i (r_data_i),
    .elem_valid_o(elem_valid_b),
    .elem_data_o (elem_b),
    .last_o      (last_b),
    .ready_o     (up_ready_b),
    .busy_o      ()
  );

  // ---------------------------------------------------------------------------------------------
  // Padding runs.
  logic            pad_we, pad_last;
  logic [IdxW-1:0] pad_addr;
  pad_phase_e      after_top, after_side;
  logic            any_after_top, any_after_side;

  always_comb begin
    pad_addr = pad_idx_q;
    if (pad_phase_q == PadSide) begin
      pad_addr = side_pos_q < 5'(left_q) ? row_base_q + IdxW'(side_pos_q)
                                         : row_base_q + IdxW'(side_pos_q) + IdxW'(xs_q);
    end
  end
  // The phases that follow, skipping empty ones.
  assign any_after_side = bottom_pw_q != '0;
  assign after_side     = PadBottom;
  assign any_after_top  = lr_q != '0 || any_after_side;
  assign after_top      = lr_q != '0 ? PadSide : PadBottom;

  assign pad_we = state_q == DmaPad && !abort_i;
  always_comb begin
    unique case (pad_phase_q)
      PadTop:    pad_last = pad_cnt_q == 21'd1 && !any_after_top;
      PadSide:   pad_last = side_pos_q == lr_q - 1'b1 && side_rows_q == 16'd1 && !any_after_side;
      PadBottom: pad_last = pad_cnt_q == 21'd1;
      default:   pad_last = 1'b1;
    endcase
  end

  // ---------------------------------------------------------------------------------------------
  // Buffer writes: data elements, then padding (pad_value in every byte of A, zero in B).
  assign we_a_o      = !sel_q && (elem_valid_a || pad_we);
  assign we_b_o      = sel_q && (elem_valid_b || pad_we);
  assign waddr_o     = pad_we ? pad_addr : data_idx_q;
  assign wdata_a_o   = pad_we ? {ElemBytesA{pad_value_q}} : elem_a;
  assign wdata_b_o   = pad_we ? '0 : elem_b;
  assign data_elem_o = elem_valid && !pad_we;
  assign idle_o      = state_q == DmaIdle;

  // The last element of the last transfer is written in this cycle: the data phase is over, and
  // without padding the instruction too. (Its beat was the last of the last burst.)
  logic tail_done, has_pads, ar_hs, r_end, drained;
  assign has_pads  = top_pw_q != '0 || lr_q != '0 || bottom_pw_q != '0;
  assign tail_done = state_q == DmaRun && up_last && !pend_start_q && d_xfers_left_q == 16'd1 &&
                     !abort_i;
  assign ar_hs     = ar_valid_o && ar_ready_i;
  assign r_end     = r_hs && r_last_i;
  // Nothing left on the bus after this cycle: no held address, no burst in flight.
  assign drained   = !(ar_valid_o && !ar_ready_i) &&
                     flight_q + FillW'(ar_hs) - FillW'(r_end) == '0;
  always_comb begin
    done_o = 1'b0;
    unique case (state_q)
      DmaEmpty: done_o = 1'b1;
      DmaRun:   done_o = tail_done && !has_pads;
      DmaPad:   done_o = pad_last;
      default:  done_o = 1'b0;
    endcase
    if (abort_i) done_o = 1'b0;
  end

  // ---------------------------------------------------------------------------------------------
  // State machine.
  always_comb begin
    state_d = state_q;
    unique case (state_q)
      DmaIdle:  if (start_i && !abort_i) state_d = empty ? DmaEmpty : DmaRun;
      DmaRun: begin
        if (abort_i) state_d = drained ? DmaIdle : DmaDrain;
        else if (tail_done) state_d = has_pads ? DmaPad : DmaIdle;
      end
      DmaPad:   if (abort_i || pad_last) state_d = DmaIdle;
      DmaEmpty: state_d = DmaIdle;
      DmaDrain: if (drained) state_d = DmaIdle;
      default:  state_d = DmaIdle;
    endcase
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      state_q      <= DmaIdle;
      sel_q        <= 1'b0;
      pad_value_q  <= '0;
      xs_q         <= '0;
      ys_q         <= '0;
      left_q       <= '0;
      lr_q         <= '0;
      pw_q         <= '0;
      top_pw_q     <= '0;
      bottom_pw_q  <= '0;
      sram_base_q  <= '0;
      xfer_elems_q <= '0;
      xfer_bytes_q <= '0;
      row_step_q   <= '0;
      xfers_left_q <= '0;
      row_addr_q   <= '0;
      cur_addr_q   <= '0;
      bytes_left_q <= '0;
      issued_q     <= 1'b0;
      hold_q       <= 1'b0;
      flight_q     <= '0;
      ar_ptr_q     <= '0;
      r_ptr_q      <= '0;
      for (int unsigned k = 0; k < Depth; k++) row_end_q[k] <= 1'b0;
      d_xfers_left_q <= '0;
      d_row_addr_q   <= '0;
      pend_start_q <= 1'b0;
      offset_a_q   <= '0;
      offset_b_q   <= '0;
      data_idx_q   <= '0;
      col_q        <= '0;
      pad_phase_q  <= PadTop;
      pad_cnt_q    <= '0;
      pad_idx_q    <= '0;
      row_base_q   <= '0;
      side_pos_q   <= '0;
      side_rows_q  <= '0;
    end else begin
      state_q <= state_d;
      if (fire_start || abort_i) pend_start_q <= 1'b0;

      if (state_q == DmaIdle && start_i && !abort_i) begin
        sel_q        <= sel_i;
        pad_value_q  <= pad_value;
        xs_q         <= x_size;
        ys_q         <= y_size;
        left_q       <= x_pad_left;
        lr_q         <= 5'(x_pad_left) + 5'(x_pad_right);
        pw_q         <= IdxW'(pw);
        top_pw_q     <= loom_pkg::mul_pad(y_pad_top, pw);
        bottom_pw_q  <= loom_pkg::mul_pad(y_pad_bottom, pw);
        sram_base_q  <= IdxW'(sram_base);
        xfer_elems_q <= xfer_elems;
        xfer_bytes_q <= xfer_bytes;
        row_step_q   <= sel_i ? AW'(x_stride) << ShiftB : AW'(x_stride) << ShiftA;
        xfers_left_q <= merged ? 16'd1 : y_size;
        row_addr_q   <= base_addr;
        cur_addr_q   <= base_addr;
        bytes_left_q <= xfer_bytes;
        issued_q     <= 1'b0;
        d_xfers_left_q <= merged ? 16'd1 : y_size;
        d_row_addr_q   <= base_addr;
        pend_start_q <= !empty;
        offset_a_q   <= SlotWA'(base_addr >> ShiftA);
        offset_b_q   <= SlotWB'(base_addr >> ShiftB);
        data_idx_q   <= IdxW'(sram_base) + IdxW'(loom_pkg::mul_pad(y_pad_top, pw)) +
                        IdxW'(x_pad_left);
        col_q        <= '0;
      end

      // Bursts in flight, and the address held through an abort.
      flight_q <= flight_q + FillW'(ar_hs) - FillW'(r_end);
      hold_q   <= ar_valid_o && !ar_ready_i;

      // A burst was accepted: the next one, in this transfer or the next.
      if (ar_hs) begin
        row_end_q[ar_ptr_q] <= burst_bytes == bytes_left_q;
        ar_ptr_q            <= PtrW'(ar_ptr_q + 1'b1);
        if (burst_bytes != bytes_left_q) begin
          cur_addr_q   <= cur_addr_q + burst_bytes;
          bytes_left_q <= bytes_left_q - burst_bytes;
        end else if (xfers_left_q != 16'd1) begin
          xfers_left_q <= xfers_left_q - 1'b1;
          row_addr_q   <= row_addr_q + row_step_q;
          cur_addr_q   <= row_addr_q + row_step_q;
          bytes_left_q <= xfer_bytes_q;
        end else begin
          issued_q <= 1'b1;
        end
      end

      // A burst's last beat came; if it ended a transfer and another follows, the data side
      // moves to that one.
      if (r_end) begin
        r_ptr_q <= PtrW'(r_ptr_q + 1'b1);
        if (state_q == DmaRun && !abort_i && row_end_q[r_ptr_q] && d_xfers_left_q != 16'd1) begin
          d_xfers_left_q <= d_xfers_left_q - 1'b1;
          d_row_addr_q   <= d_row_addr_q + row_step_q;
          pend_start_q   <= 1'b1;
          offset_a_q     <= SlotWA'((d_row_addr_q + row_step_q) >> ShiftA);
          offset_b_q     <= SlotWB'((d_row_addr_q + row_step_q) >> ShiftB);
        end
      end

      // Data elements land row by row, skipping the margins.
      if (elem_valid && !pad_we) begin
        if (col_q == xs_q - 1'b1) begin
          col_q      <= '0;
          data_idx_q <= data_idx_q + IdxW'(lr_q) + 1'b1;
        end else begin
          col_q      <= col_q + 1'b1;
          data_idx_q <= data_idx_q + 1'b1;
        end
      end

      // Enter padding: the first non-empty phase.
      if (tail_done && has_pads && !abort_i) begin
        side_pos_q  <= '0;
        side_rows_q <= ys_q;
        row_base_q  <= sram_base_q + IdxW'(top_pw_q);
        if (top_pw_q != '0) begin
          pad_phase_q <= PadTop;
          pad_cnt_q   <= top_pw_q;
          pad_idx_q   <= sram_base_q;
        end else if (lr_q != '0) begin
          pad_phase_q <= PadSide;
        end else begin
          // The last element (at the end of its row) is being written: the next row starts at
          // data_idx_q + right + 1, and the bottom padding at its left margin.
          pad_phase_q <= PadBottom;
          pad_cnt_q   <= bottom_pw_q;
          pad_idx_q   <= data_idx_q + IdxW'(lr_q) + 1'b1 - IdxW'(left_q);
        end
      end

      if (pad_we) begin
        unique case (pad_phase_q)
          PadTop: begin
            pad_cnt_q <= pad_cnt_q - 1'b1;
            pad_idx_q <= pad_idx_q + 1'b1;
            if (pad_cnt_q == 21'd1) begin
              pad_phase_q <= after_top;
              pad_cnt_q   <= bottom_pw_q;
              pad_idx_q   <= data_idx_q - IdxW'(left_q);
            end
          end
          PadSide: begin
            if (side_pos_q == lr_q - 1'b1) begin
              side_pos_q  <= '0;
              side_rows_q <= side_rows_q - 1'b1;
              row_base_q  <= row_base_q + IdxW'(pw_q);
              if (side_rows_q == 16'd1) begin
                pad_phase_q <= after_side;
                pad_cnt_q   <= bottom_pw_q;
                pad_idx_q   <= data_idx_q - IdxW'(left_q);
              end
            end else begin
              side_pos_q <= side_pos_q + 1'b1;
            end
          end
          PadBottom: begin
            pad_cnt_q <= pad_cnt_q - 1'b1;
            pad_idx_q <= pad_idx_q + 1'b1;
          end
          default: pad_phase_q <= PadTop;
        endcase
      end
    end
  end

`ifndef SYNTHESIS
  always_ff @(posedge clk_i) begin
    if (rst_ni) begin
      assert (!(start_i && state_q != DmaIdle)) else $error("loom_dma_rd: start while busy");
      assert (!(state_q == DmaIdle && flight_q != '0)) else $error("loom_dma_rd: idle in flight");
      // Data and padding never compete for the write port.
      assert (!(pad_we && elem_valid)) else $error("loom_dma_rd: pad and data write together");
      if (ar_valid_o) begin
        assert (burst_bytes != '0) else $error("loom_dma_rd: empty burst");
        assert ((cur_addr_q >> 12) == ((cur_addr_q + burst_bytes - 1'b1) >> 12))
          else $error("loom_dma_rd: burst crosses 4 KiB");
      end
    end
  end
`endif

endmodule : loom_dma_rd
