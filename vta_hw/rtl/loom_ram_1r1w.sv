// One on-chip buffer: a simple dual-port RAM with one write port and one synchronous read port,
// written so that synthesis infers block RAM. A read in the same cycle as a write to the same
// address returns the old contents; the compute pipeline forwards around that (loom_loop_exec).
// There is no reset: buffer contents are undefined when a program starts (docs/isa.md §1.2) and
// survive from one run to the next, as on the boards.
module loom_ram_1r1w #(
  parameter  int unsigned Width = 32,
  parameter  int unsigned Depth = 1024,
  localparam int unsigned AddrW = $clog2(Depth)
) (
  input  logic             clk_i,
  input  logic             we_i,
  input  logic [AddrW-1:0] waddr_i,
  input  logic [Width-1:0] wdata_i,
  input  logic             re_i,
  input  logic [AddrW-1:0] raddr_i,
  output logic [Width-1:0] rdata_o   // valid the cycle after re_i; held until the next read
);

  logic [Width-1:0] mem_q [Depth];
  logic [Width-1:0] rdata_q;

  always_ff @(posedge clk_i) begin
    if (we_i) mem_q[waddr_i] <= wdata_i;
  end

  always_ff @(posedge clk_i) begin
    if (re_i) rdata_q <= mem_q[raddr_i];
  end

  assign rdata_o = rdata_q;

`ifndef SYNTHESIS
  initial begin
    assert (Depth == (1 << AddrW)) else $fatal(1, "loom_ram_1r1w: depth must be a power of two");
  end
`endif

endmodule : loom_ram_1r1w
