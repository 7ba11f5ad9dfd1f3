// One int32 lane of the ALU (docs/isa.md §3.4): y = op(a, x), all arithmetic wrapping.
module loom_alu_lane (
  input  logic [2:0]  op_i,  // loom_hw_pkg::ALU_*
  input  logic [31:0] a_i,
  input  logic [31:0] x_i,
  output logic [31:0] y_o
);

  // Shift amount: n = |clamp(x, -31, 31)|, left when x < 0.
  logic       left;
  logic [4:0] n;
  always_comb begin
    left = x_i[31];
    if ($signed(x_i) > 32'sd31 || $signed(x_i) < -32'sd31) n = 5'd31;
    else if (left) n = 5'(-x_i);
    else n = x_i[4:0];
  end

  // SHR, SHR_RND and the left shifts share one 33-bit arithmetic right shifter (a barrel shifter
  // per lane is most of the ALU's logic):
  //   SHR_RND, n > 0: (a + 2^(n-1)) >> n, the sum in 33 bits so that nothing overflows;
  //   SHR:            a >> n;
  //   x < 0:          a << n, as the bit-reversed a shifted right with zeros coming in.
  function automatic logic [31:0] reverse(logic [31:0] v);
    for (int unsigned k = 0; k < 32; k++) reverse[k] = v[31-k];
  endfunction

  logic [32:0] shift_in, shifted;
  always_comb begin
    if (left) begin
      shift_in = {1'b0, reverse(a_i)};
    end else if (op_i == loom_hw_pkg::ALU_SHR_RND && n != '0) begin
      shift_in = {a_i[31], a_i} + (33'd1 << (n - 5'd1));
    end else begin
      shift_in = {a_i[31], a_i};
    end
  end
  assign shifted = 33'($signed(shift_in) >>> n);

  logic [31:0] shift;
  assign shift = left ? reverse(shifted[31:0]) : shifted[31:0];

  // Low 32 bits of a * x from three 16 x 16 products (the fourth only reaches bits >= 32): three
  // DSP slices per lane instead of four.
  logic [31:0] mul_ll, mul_hl, mul_lh, mul;
  assign mul_ll = 32'(a_i[15:0]) * 32'(x_i[15:0]);
  assign mul_hl = 32'(a_i[31:16]) * 32'(x_i[15:0]);
  assign mul_lh = 32'(a_i[15:0]) * 32'(x_i[31:16]);
  assign mul    = mul_ll + {mul_hl[15:0] + mul_lh[15:0], 16'b0};

  always_comb begin
    unique case (op_i)
      loom_hw_pkg::ALU_MIN:     y_o = $signed(a_i) < $signed(x_i) ? a_i : x_i;
      loom_hw_pkg::ALU_MAX:     y_o = $signed(a_i) > $signed(x_i) ? a_i : x_i;
      loom_hw_pkg::ALU_ADD:     y_o = a_i + x_i;
      loom_hw_pkg::ALU_SHR:     y_o = shift;
      loom_hw_pkg::ALU_SHR_RND: y_o = shift;
      loom_hw_pkg::ALU_MUL:     y_o = mul;
      default:                  y_o = a_i;  // decoding rejects ALU ops 6-7
    endcase
  end

  logic unused;
  assign unused = ^{mul_hl[31:16], mul_lh[31:16], shifted[32]};

endmodule : loom_alu_lane
