// Turns the AXI read beats of one transfer into a stream of buffer elements, one element per
// cycle at most. A transfer is a run of `count_i` consecutive elements in DRAM, possibly spread
// over several bursts; the data side does not see burst boundaries (they fall on beat boundaries).
//
// Element sizes and the bus width are powers of two, and an element starts at a multiple of its
// size, so there are two cases:
//   - an element spans one or more whole beats: beats are collected and with every
//     ElemBytes/BeatBytes-th beat an element comes out, in the same cycle (the bus sets the pace);
//   - a beat holds several elements: the first beat of the transfer starts at slot `offset_i`, and
//     the elements of a beat come out one per cycle (the buffer's write port sets the pace), while
//     the next beat waits on the bus.
// The output cannot be stalled: it feeds a buffer write port or a FIFO with space reserved.
module loom_beat_unpack #(
  parameter  int unsigned ElemBytes = 8,
  parameter  int unsigned BeatBytes = 8,
  localparam int unsigned ElemW = ElemBytes * 8,
  localparam int unsigned BeatW = BeatBytes * 8,
  localparam int unsigned Slots = ElemBytes < BeatBytes ? BeatBytes / ElemBytes : 1,
  localparam int unsigned SlotW = Slots > 1 ? $clog2(Slots) : 1
) (
  input  logic             clk_i,
  input  logic             rst_ni,
  input  logic             clr_i,         // abandon the transfer (the run was aborted)
  input  logic             start_i,       // begin a transfer; only while ready_o
  input  logic [SlotW-1:0] offset_i,      // slot of the first element in the first beat
  input  logic [31:0]      count_i,       // elements in the transfer, > 0
  input  logic             beat_valid_i,
  output logic             beat_ready_o,
  input  logic [BeatW-1:0] beat_data_i,
  output logic             elem_valid_o,
  output logic [ElemW-1:0] elem_data_o,
  output logic             last_o,        // the element out now is the transfer's last
  output logic             ready_o,       // the next transfer may start (this one's last element is
                                       // out or going out)
  output logic             busy_o         // an element of the transfer is still to come out
);

  logic [31:0] left_q;  // elements of the transfer not yet emitted
  logic        beat_hs;

  assign beat_hs = beat_valid_i && beat_ready_o;

  if (ElemBytes >= BeatBytes) begin : g_wide
    // ---- an element is BeatsPerElem whole beats ----
    // The element leaves in the cycle its last beat arrives (straight from the bus into the
    // buffer's write port), so a transfer is written completely when its last beat is taken.
    localparam int unsigned BeatsPerElem = ElemBytes / BeatBytes;
    logic unused_offset;
    assign unused_offset = ^offset_i;

    if (BeatsPerElem == 1) begin : g_one
      assign elem_valid_o = beat_hs;
      assign elem_data_o  = beat_data_i;
      always_ff @(posedge clk_i or negedge rst_ni) begin
        if (!rst_ni) begin
          left_q <= '0;
        end else if (clr_i) begin
          left_q <= '0;
        end else if (start_i) begin
          left_q <= count_i;
        end else if (beat_hs) begin
          left_q <= left_q - 1'b1;
        end
      end
    end else begin : g_multi
      localparam int unsigned BeatCntW = $clog2(BeatsPerElem);
      localparam logic [BeatCntW-1:0] LastBeat = BeatCntW'(BeatsPerElem - 1);
      logic [BeatCntW-1:0]    beat_q;
      logic [ElemW-BeatW-1:0] lower_q;  // the element's beats before the last one
      assign elem_valid_o = beat_hs && beat_q == LastBeat;
      assign elem_data_o  = {beat_data_i, lower_q};
      // Slot by slot with constant positions: a part-select at a variable position would make
      // synthesis build a shifter across the whole element.
      always_ff @(posedge clk_i) begin
        for (int unsigned k = 0; k + 1 < BeatsPerElem; k++) begin
          if (beat_hs && beat_q == BeatCntW'(k)) lower_q[k*BeatW +: BeatW] <= beat_data_i;
        end
      end
      always_ff @(posedge clk_i or negedge rst_ni) begin
        if (!rst_ni) begin
          left_q <= '0;
          beat_q <= '0;
        end else if (clr_i) begin
          left_q <= '0;
          beat_q <= '0;
        end else if (start_i) begin
          left_q <= count_i;
          beat_q <= '0;
        end else if (beat_hs) begin
          beat_q <= beat_q + 1'b1;  // wraps to 0 after the last beat of an element
          if (beat_q == LastBeat) left_q <= left_q - 1'b1;
        end
      end
    end

    assign beat_ready_o = left_q != '0;
    assign last_o       = elem_valid_o && left_q == 32'd1;
    assign ready_o      = left_q == '0 || last_o;
    assign busy_o       = left_q != '0;

  end else begin : g_narrow
    // ---- a beat holds Slots elements ----
    localparam logic [SlotW-1:0] LastSlot = SlotW'(Slots - 1);
    logic [BeatW-1:0] beat_q;
    logic             have_q;   // beat_q holds elements still to emit
    logic             first_q;  // the next beat is the transfer's first
    logic [SlotW-1:0] slot_q, offset_q;
    logic             last_of_beat;

    assign last_of_beat = slot_q == LastSlot || left_q == 32'd1;
    assign beat_ready_o = left_q != '0 && (!have_q || (last_of_beat && left_q != 32'd1));
    assign elem_valid_o = have_q;
    always_comb begin
      elem_data_o = beat_q[ElemW-1:0];
      for (int unsigned k = 1; k < Slots; k++) begin
        if (slot_q == SlotW'(k)) elem_data_o = beat_q[k*ElemW +: ElemW];
      end
    end
    assign ready_o      = left_q == '0 || (have_q && left_q == 32'd1);
    assign busy_o       = left_q != '0;
    assign last_o       = have_q && left_q == 32'd1;

    always_ff @(posedge clk_i) begin
      if (beat_hs) beat_q <= beat_data_i;
    end

    always_ff @(posedge clk_i or negedge rst_ni) begin
      if (!rst_ni) begin
        left_q   <= '0;
        have_q   <= 1'b0;
        first_q  <= 1'b0;
        slot_q   <= '0;
        offset_q <= '0;
      end else if (clr_i) begin
        left_q <= '0;
        have_q <= 1'b0;
      end else if (start_i) begin
        left_q   <= count_i;
        have_q   <= 1'b0;
        first_q  <= 1'b1;
        offset_q <= offset_i;
      end else begin
        if (have_q) begin
          left_q <= left_q - 1'b1;
          slot_q <= slot_q + 1'b1;
          if (last_of_beat) have_q <= 1'b0;
        end
        if (beat_hs) begin
          have_q  <= 1'b1;
          first_q <= 1'b0;
          slot_q  <= first_q ? offset_q : '0;
        end
      end
    end
  end

`ifndef SYNTHESIS
  always_ff @(posedge clk_i) begin
    if (rst_ni) begin
      assert (!(start_i && !ready_o)) else $error("loom_beat_unpack: start while busy");
      assert (!(start_i && count_i == '0)) else $error("loom_beat_unpack: empty transfer");
    end
  end
`endif

endmodule : loom_beat_unpack
