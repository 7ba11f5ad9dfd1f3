// Loom accelerator: constants and helpers shared by the RTL modules that do not depend on the
// hardware config.
//
// Everything that depends on the config comes from the generated loom_hw_pkg (shape, buffer
// depths, AXI width, and the LSB/width of every instruction and micro-op field); modules refer to
// it as loom_hw_pkg::NAME. No bit position of an instruction field is written in the RTL by hand.
//
// The RTL is written in the SystemVerilog subset that both Verilator 5 and Yosys 0.23 read, which
// is why packages are referenced with `::` instead of imported, functions assign their result to
// the function name, and instructions travel as words sliced with loom_hw_pkg's field positions
// rather than as structs.
package loom_pkg;

  // A package is a menu: each module uses some of these constants.
  /* verilator lint_off UNUSEDPARAM */

  // RTL version reported in the VERSION register: 0x00MMmmpp.
  localparam logic [31:0] RTL_VERSION = 32'h0001_0000;

  // AXI4 master: byte addresses (an element index times its size can exceed 32 bits).
  localparam int unsigned AXI_ADDR_W = 64;
  localparam int unsigned AXI_4K = 4096;  // a burst never crosses 4 KiB
  // AXI-Lite slave: 32-bit registers at offsets 0x00-0xFF (docs/registers.md).
  localparam int unsigned AXIL_ADDR_W = 8;

  // Index of an instruction in the stream (INSN_COUNT is a 32-bit register). A command-queue
  // entry is {index, instruction word}.
  localparam int unsigned INSN_IDX_W = 32;

  // The executing modules (docs/isa.md §1.1).
  localparam logic [1:0] MOD_LOAD = 2'd0;
  localparam logic [1:0] MOD_COMPUTE = 2'd1;
  localparam logic [1:0] MOD_STORE = 2'd2;

  // Token queues (docs/isa.md §1.3): indices into the top level's token vectors.
  localparam int unsigned Q_L2C = 0;  // load -> compute
  localparam int unsigned Q_C2L = 1;  // compute -> load
  localparam int unsigned Q_C2S = 2;  // compute -> store
  localparam int unsigned Q_S2C = 3;  // store -> compute
  localparam int unsigned NUM_QUEUES = 4;

  // STATUS[7:4] (docs/registers.md).
  localparam logic [3:0] ERR_NONE = 4'd0;
  localparam logic [3:0] ERR_INSN = 4'd1;    // invalid instruction
  localparam logic [3:0] ERR_TOKENS = 4'd2;  // a token queue not empty when FINISH retired
  localparam logic [3:0] ERR_DRAM = 4'd3;    // SLVERR/DECERR on an AXI response
  localparam logic [3:0] ERR_STREAM = 4'd4;  // INSN_COUNT 0, or no FINISH at the end

  /* verilator lint_on UNUSEDPARAM */

  // What a module's instruction sequencer does in a cycle, on loom_top's trace port: the
  // simulator builds its per-instruction timeline from it (docs/rtl.md, "Trace port"). Hardware
  // leaves the port unconnected and synthesis removes it.
  // One module's entry: {start, done, state[2:0]}: start = an instruction issues this cycle, done =
  // it completes (pushes included) this cycle, state = one of SEQ_*. Plain bits rather than a
  // packed struct, which Yosys does not take on ports.
  localparam int unsigned SEQ_TRACE_W = 5;
  localparam logic [2:0] SEQ_NO_INSN = 3'd0;    // no instruction at the queue head, or none left
  localparam logic [2:0] SEQ_EXEC = 3'd1;       // issuing or executing
  localparam logic [2:0] SEQ_POP_PREV = 3'd2;   // the head waits for a token from the previous module
  localparam logic [2:0] SEQ_POP_NEXT = 3'd3;   // the head waits for a token from the next module
  localparam logic [2:0] SEQ_PUSH_PREV = 3'd4;  // done, no room in the queue to the previous module
  localparam logic [2:0] SEQ_PUSH_NEXT = 3'd5;  // done, no room in the queue to the next module

  // saturate_int8 of docs/isa.md §3.3: what every ACC write leaves in OUT.
  function automatic logic [7:0] sat8(logic [31:0] v);
    if (v[31:7] == {25{v[31]}}) sat8 = v[7:0];
    else sat8 = v[31] ? 8'h80 : 8'h7f;
  endfunction

  // A 4-bit pad count times a padded row width, for the DMA's padding runs. Written as shifts and
  // adds so that synthesis builds it from a few adders instead of a DSP slice.
  function automatic logic [20:0] mul_pad(logic [3:0] pad, logic [16:0] width);
    logic [20:0] p;
    p = '0;
    for (int unsigned k = 0; k < 4; k++) begin
      if (pad[k]) p = p + (21'(width) << k);
    end
    mul_pad = p;
  endfunction

endpackage : loom_pkg
