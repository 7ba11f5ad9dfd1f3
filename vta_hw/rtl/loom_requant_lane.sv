// One int32 lane of the fused REQUANT (docs/isa.md §3.4.1): the ADD, SHR_RND, MUL, SHR_RND, MAX
// and MIN chain it replaces, built from the same lane so the two cannot disagree by a bit. Each
// stage's op is a constant, so synthesis keeps only that op's logic: an adder, two rounding
// shifters, one multiplier (3 DSP slices) and two comparators per lane.
module loom_requant_lane (
  input  logic [31:0] a_i,         // ACC[d]
  input  logic [31:0] bias_i,      // parameter register
  input  logic [31:0] mult_i,
  input  logic [5:0]  pre_shift_i, // two's complement, as SHR_RND's operand
  input  logic [5:0]  post_shift_i,
  input  logic [7:0]  clip_lo_i,   // two's complement
  input  logic [7:0]  clip_hi_i,
  output logic [31:0] y_o
);

  logic [31:0] biased, pre, scaled, post, lo;

  loom_alu_lane u_bias (
    .op_i(loom_hw_pkg::ALU_ADD),
    .a_i (a_i),
    .x_i (bias_i),
    .y_o (biased)
  );
  loom_alu_lane u_pre (
    .op_i(loom_hw_pkg::ALU_SHR_RND),
    .a_i (biased),
    .x_i (32'(signed'(pre_shift_i))),
    .y_o (pre)
  );
  loom_alu_lane u_mult (
    .op_i(loom_hw_pkg::ALU_MUL),
    .a_i (pre),
    .x_i (mult_i),
    .y_o (scaled)
  );
  loom_alu_lane u_post (
    .op_i(loom_hw_pkg::ALU_SHR_RND),
    .a_i (scaled),
    .x_i (32'(signed'(post_shift_i))),
    .y_o (post)
  );
  loom_alu_lane u_lo (
    .op_i(loom_hw_pkg::ALU_MAX),
    .a_i (post),
    .x_i (32'(signed'(clip_lo_i))),
    .y_o (lo)
  );
  loom_alu_lane u_hi (
    .op_i(loom_hw_pkg::ALU_MIN),
    .a_i (lo),
    .x_i (32'(signed'(clip_hi_i))),
    .y_o (y_o)
  );

endmodule : loom_requant_lane
