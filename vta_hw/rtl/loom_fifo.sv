// A first-word-fall-through FIFO: rdata_o shows the head whenever rvalid_o is set. Storage is a
// plain array with an asynchronous read, which maps to distributed (LUT) RAM; the command queues
// and the fetch buffer are a few dozen entries deep, too shallow to be worth a block RAM.
module loom_fifo #(
  parameter  int unsigned Width = 8,
  parameter  int unsigned Depth = 4,
  localparam int unsigned CountW = $clog2(Depth + 1)
) (
  input  logic              clk_i,
  input  logic              rst_ni,
  input  logic              clr_i,     // drop every entry
  input  logic              wvalid_i,
  output logic              wready_o,  // not full
  input  logic [Width-1:0]  wdata_i,
  output logic              rvalid_o,  // not empty
  input  logic              rready_i,
  output logic [Width-1:0]  rdata_o,
  output logic [CountW-1:0] count_o
);

  localparam int unsigned PtrW = Depth > 1 ? $clog2(Depth) : 1;
  localparam logic [PtrW-1:0] LastPtr = PtrW'(Depth - 1);

  logic [Width-1:0]  mem_q [Depth];
  logic [PtrW-1:0]   wptr_q, rptr_q;
  logic [CountW-1:0] count_q;
  logic              push, pop;

  assign wready_o = count_q != CountW'(Depth);
  assign rvalid_o = count_q != '0;
  assign rdata_o  = mem_q[rptr_q];
  assign count_o  = count_q;
  assign push     = wvalid_i && wready_o;
  assign pop      = rready_i && rvalid_o;

  // No reset on the storage, so that it can map to RAM.
  always_ff @(posedge clk_i) begin
    if (push) mem_q[wptr_q] <= wdata_i;
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      wptr_q  <= '0;
      rptr_q  <= '0;
      count_q <= '0;
    end else if (clr_i) begin
      wptr_q  <= '0;
      rptr_q  <= '0;
      count_q <= '0;
    end else begin
      if (push) wptr_q <= wptr_q == LastPtr ? '0 : wptr_q + 1'b1;
      if (pop) rptr_q <= rptr_q == LastPtr ? '0 : rptr_q + 1'b1;
      unique case ({push, pop})
        2'b10:   count_q <= count_q + 1'b1;
        2'b01:   count_q <= count_q - 1'b1;
        default: count_q <= count_q;
      endcase
    end
  end

`ifndef SYNTHESIS
  // wvalid_i/wready_o and rvalid_o/rready_i are handshakes: an entry moves only when both are
  // set. The count stays within the storage.
  always_ff @(posedge clk_i) begin
    if (rst_ni) begin
      assert (count_q <= CountW'(Depth)) else $error("loom_fifo: count beyond depth");
    end
  end
`endif

endmodule : loom_fifo
