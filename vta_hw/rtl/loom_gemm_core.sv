// The GEMM array: for every batch row b and output lane o, the dot product
//   sum[b][o] = sum over i of INP[b][i] * WGT[o][i]          (int8 x int8, summed in int32)
// of one INP element and one WGT element (docs/isa.md §3.3). Two pipeline stages: the products
// are registered (en_i captures the operands' products), the sums come out of the adder trees of
// the captured products.
//
// Two products share one multiplier: output lanes 2p and 2p+1 multiply the same input byte, so
//   P = (WGT[2p+1][i] * 2^16 + WGT[2p][i]) * INP[b][i]            (25 x 8 bits, one DSP slice)
// holds both: L = WGT[2p][i] * INP[b][i] lies in [-16256, 16384], so it is the sign-extended low
// 16 bits of P, and WGT[2p+1][i] * INP[b][i] = (P >>> 16) + P[15] (P[15] is the borrow L < 0
// took from the upper half). The upper-half corrections of a whole dot product are summed as
// one count. This halves the DSP slices of the array, which is what lets 1x16x16 fit a Zynq-7020.
//
// Depthwise mode (dw_i, docs/isa.md §3.3.1): the multiplier of pair p and column i takes the
// byte window[i mod T][b][2p + (i div T)] instead of INP[b][i], T = BlockIn/2: a 2:1 mux per
// (b, p, i); the weights, the pair trick and the adder trees are the same. Slot 0 of the window is
// inp_i itself (the element this iteration read), slots 1..T-1 are registers that en_i shifts
// while dw_i is set, so every iteration shifts exactly once, whenever the pipeline issues it.
// clr_i (an instruction's start) empties the window. Lanes 2p and 2p+1 read channels 2p and 2p+1
// from the same column halves, so they still share one input byte per column.
module loom_gemm_core #(
  localparam int unsigned Batch = loom_hw_pkg::BATCH,
  localparam int unsigned BlockIn = loom_hw_pkg::BLOCK_IN,
  localparam int unsigned BlockOut = loom_hw_pkg::BLOCK_OUT
) (
  input  logic                          clk_i,
  input  logic                          en_i,   // an iteration's operands are on inp_i, wgt_i
  input  logic                          dw_i,   // depthwise mode; en_i also shifts the window
  input  logic                          clr_i,  // empties the window (not with en_i)
  input  logic [Batch*BlockIn*8-1:0]    inp_i,  // [b][i] int8
  input  logic [BlockOut*BlockIn*8-1:0] wgt_i,  // [o][i] int8
  output logic [Batch*BlockOut*32-1:0]  sum_o   // [b][o] int32
);

  localparam int unsigned Pairs = BlockOut / 2;
  localparam int unsigned ProdW = 33;                       // 25 x 8 bits, signed
  localparam int unsigned SumW = 16 + $clog2(BlockIn) + 1;  // a dot product of one half
  localparam int unsigned ElemW = Batch * BlockIn * 8;      // one INP element
  localparam int unsigned Taps = BlockIn / 2;               // T, the window's slots
  // The depthwise datapath needs block_in == block_out (fsim and the runtime refuse other configs);
  // without it the array is the plain one and dw_i is ignored.
  localparam bit HasDw = BlockIn == BlockOut && BlockIn % 2 == 0 && Taps >= 2;
  localparam int unsigned HistW = HasDw ? (Taps - 1) * ElemW : 1;

  // The multipliers' input bytes: mul_in[b][p][i] at [((b*Pairs + p)*BlockIn + i)*8 +: 8].
  logic [Batch*Pairs*BlockIn*8-1:0] mul_in;

  if (HasDw) begin : g_dw
    // window[t] = the element read t iterations ago; slot 0 is inp_i, slots 1..T-1 registered.
    logic [Taps*ElemW-1:0]     window;
    logic [HistW-1:0]          hist_q;  // slots 1..T-1
    always_ff @(posedge clk_i) begin
      if (clr_i) hist_q <= '0;
      else if (en_i && dw_i) hist_q <= HistW'({hist_q, inp_i});  // the oldest slot drops out
    end
    assign window = {hist_q, inp_i};
    for (genvar b = 0; b < Batch; b++) begin : g_batch
      for (genvar p = 0; p < Pairs; p++) begin : g_pair
        for (genvar i = 0; i < BlockIn; i++) begin : g_col
          assign mul_in[((b*Pairs + p)*BlockIn + i)*8 +: 8] =
              dw_i ? window[(i % Taps)*ElemW + (b*BlockIn + 2*p + i / Taps)*8 +: 8]
                   : inp_i[(b*BlockIn + i)*8 +: 8];
        end
      end
    end
  end else begin : g_plain
    for (genvar b = 0; b < Batch; b++) begin : g_batch
      for (genvar p = 0; p < Pairs; p++) begin : g_pair
        assign mul_in[(b*Pairs + p)*BlockIn*8 +: BlockIn*8] = inp_i[b*BlockIn*8 +: BlockIn*8];
      end
    end
    logic unused;
    assign unused = ^{dw_i, clr_i};
  end

  // Both products of lanes (2p, 2p+1) with input byte x, in one multiplication.
  function automatic logic [ProdW-1:0] pair_product(logic [7:0] w_hi, logic [7:0] w_lo,
                                                    logic [7:0] x);
    logic signed [24:0]      w;
    logic signed [7:0]       xs;
    logic signed [ProdW-1:0] p;
    w  = $signed({w_hi[7], w_hi, 16'b0}) + $signed({{17{w_lo[7]}}, w_lo});
    xs = $signed(x);
    p  = w * xs;
    pair_product = p;
  endfunction

  for (genvar b = 0; b < Batch; b++) begin : g_batch
    for (genvar p = 0; p < Pairs; p++) begin : g_pair
      logic [BlockIn*ProdW-1:0] prod_q;  // product i at [i*ProdW +: ProdW]

      always_ff @(posedge clk_i) begin
        if (en_i) begin
          for (int unsigned i = 0; i < BlockIn; i++) begin
            prod_q[i*ProdW +: ProdW] <= pair_product(wgt_i[((2*p+1)*BlockIn + i)*8 +: 8],
                                                     wgt_i[((2*p)*BlockIn + i)*8 +: 8],
                                                     mul_in[((b*Pairs + p)*BlockIn + i)*8 +: 8]);
          end
        end
      end

      // Adder trees over i (written as a loop; synthesis balances it).
      logic signed [SumW-1:0] lo, hi;
      always_comb begin
        lo = '0;
        hi = '0;
        for (int unsigned i = 0; i < BlockIn; i++) begin
          lo = lo + SumW'($signed(prod_q[i*ProdW +: 16]));
          hi = hi + SumW'($signed(prod_q[i*ProdW+16 +: 17])) + SumW'({1'b0, prod_q[i*ProdW+15]});
        end
      end
      assign sum_o[(b*BlockOut + 2*p)*32 +: 32]     = 32'(lo);
      assign sum_o[(b*BlockOut + 2*p + 1)*32 +: 32] = 32'(hi);
    end
  end

`ifndef SYNTHESIS
  always_ff @(posedge clk_i) begin
    assert (!(clr_i && en_i)) else $error("loom_gemm_core: window cleared during an iteration");
    assert (HasDw || !(en_i && dw_i))
      else $error("loom_gemm_core: depthwise mode needs BLOCK_IN == BLOCK_OUT, even");
  end
`endif

endmodule : loom_gemm_core
