// One int32 lane of the fused REQUANT (docs/isa.md §3.4.1) around the ALU lane's multiplier: the
// front half adds the bias and applies the rounding pre-shift, the ALU lane (op MUL) multiplies
// by the channel's multiplier, and the back half applies the rounding post-shift and the clip.
// Sharing the ALU's multiplier keeps the DSP count of the design; the four stages here are
// loom_alu_lanes with constant ops, so they are the ALU's own arithmetic and synthesis keeps only
// an adder, two rounding shifters and two comparators per lane.
module loom_requant_lane (
  // Front: ACC[d] + bias, then SHR_RND by the pre-shift; goes to the ALU lane's MUL.
  input  logic [31:0]                                  a_i,
  input  logic [31:0]                                  bias_i,
  input  logic [loom_hw_pkg::REQUANT_PRE_SHIFT_W-1:0]  pre_shift_i,  // two's complement
  output logic [31:0]                                  pre_o,
  // Back: the product, SHR_RND by the post-shift, then max/min with the clip bounds.
  input  logic [31:0]                                  prod_i,
  input  logic [loom_hw_pkg::REQUANT_POST_SHIFT_W-1:0] post_shift_i,
  input  logic [loom_hw_pkg::REQUANT_CLIP_LO_W-1:0]    clip_lo_i,  // two's complement
  input  logic [loom_hw_pkg::REQUANT_CLIP_HI_W-1:0]    clip_hi_i,
  output logic [31:0]                                  y_o
);

  logic [31:0] biased, post, lo;

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
    .y_o (pre_o)
  );
  loom_alu_lane u_post (
    .op_i(loom_hw_pkg::ALU_SHR_RND),
    .a_i (prod_i),
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
