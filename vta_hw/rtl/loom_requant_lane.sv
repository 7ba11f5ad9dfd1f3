// One int32 lane of the fused REQUANT (docs/isa.md §3.4.1) around the ALU lane's multiplier: the
// front half adds the bias and applies the rounding pre-shift, the ALU lane (op MUL) multiplies
// by the channel's multiplier, and the back half applies the rounding post-shift and the clip.
// Sharing the ALU's multiplier keeps the DSP count of the design. The adder and the clip are
// loom_alu_lanes with constant ops (the ALU's own arithmetic; synthesis keeps only that op).
//
// REQUANT's shifts go right only, by 0..31 (the decoder rejects the field's top bit, §2.7.1), so
// its rounding shifts need none of SHR_RND's left-shift logic and no 33-bit sum:
//   (a + 2^(n-1)) >> n  ==  (a >> n) + a[n-1]   for n in 1..31,
// because the sum carries into bit n exactly when the bits below n are at least 2^(n-1), that is
// when a[n-1] is set; (a >> n) + 1 cannot overflow for n >= 1. Yosys (xc7): 358 LUTs per lane
// against 942 with two SHR_RND lanes (docs/rtl.md "Fused requantization").
module loom_requant_lane (
  // Front: ACC[d] + bias, then SHR_RND by the pre-shift; goes to the ALU lane's MUL.
  input  logic [31:0]                                  a_i,
  input  logic [31:0]                                  bias_i,
  input  logic [loom_hw_pkg::REQUANT_PRE_SHIFT_W-1:0]  pre_shift_i,  // 0..31
  output logic [31:0]                                  pre_o,
  // Back: the product, SHR_RND by the post-shift, then max/min with the clip bounds.
  input  logic [31:0]                                  prod_i,
  input  logic [loom_hw_pkg::REQUANT_POST_SHIFT_W-1:0] post_shift_i,  // 0..31
  input  logic [loom_hw_pkg::REQUANT_CLIP_LO_W-1:0]    clip_lo_i,  // two's complement
  input  logic [loom_hw_pkg::REQUANT_CLIP_HI_W-1:0]    clip_hi_i,
  output logic [31:0]                                  y_o
);

  function automatic logic [31:0] shr_rnd(logic [31:0] v, logic [4:0] n);
    logic [31:0] q;
    logic        half;
    q       = 32'($signed(v) >>> n);
    half    = n != 5'd0 && v[n-5'd1];
    shr_rnd = q + {31'b0, half};
  endfunction

  logic [31:0] biased, post, lo;

  loom_alu_lane u_bias (
    .op_i(loom_hw_pkg::ALU_ADD),
    .a_i (a_i),
    .x_i (bias_i),
    .y_o (biased)
  );
  assign pre_o = shr_rnd(biased, pre_shift_i[4:0]);
  assign post  = shr_rnd(prod_i, post_shift_i[4:0]);
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

  logic unused;
  assign unused = ^{pre_shift_i[loom_hw_pkg::REQUANT_PRE_SHIFT_W-1:5],
                    post_shift_i[loom_hw_pkg::REQUANT_POST_SHIFT_W-1:5]};

endmodule : loom_requant_lane
