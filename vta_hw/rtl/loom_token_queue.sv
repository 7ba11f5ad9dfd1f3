// One dependency token queue (docs/isa.md §1.3): a counter from 0 to Depth. Tokens carry no data.
// The modules only push when can_push_o and pop when can_pop_o, which makes a pop wait for a
// token and a push into a full queue stall. Both flags look at the count before this cycle's
// operations, so a slot freed or a token added becomes usable one cycle later.
module loom_token_queue #(
  parameter  int unsigned Depth = 32,
  localparam int unsigned CountW = $clog2(Depth + 1)
) (
  input  logic              clk_i,
  input  logic              rst_ni,
  input  logic              clr_i,       // start of a run: empty
  input  logic              push_i,
  input  logic              pop_i,
  output logic              can_push_o,
  output logic              can_pop_o,
  output logic [CountW-1:0] count_o
);

  logic [CountW-1:0] count_q;

  assign can_push_o = count_q != CountW'(Depth);
  assign can_pop_o  = count_q != '0;
  assign count_o    = count_q;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      count_q <= '0;
    end else if (clr_i) begin
      count_q <= '0;
    end else begin
      unique case ({push_i, pop_i})
        2'b10:   count_q <= count_q + 1'b1;
        2'b01:   count_q <= count_q - 1'b1;
        default: count_q <= count_q;
      endcase
    end
  end

`ifndef SYNTHESIS
  always_ff @(posedge clk_i) begin
    if (rst_ni && !clr_i) begin
      assert (!(push_i && !can_push_o)) else $error("loom_token_queue: push into a full queue");
      assert (!(pop_i && !can_pop_o)) else $error("loom_token_queue: pop from an empty queue");
    end
  end
`endif

endmodule : loom_token_queue
