// Executes GEMM and ALU instructions (docs/isa.md §3.3-3.4): the two-level loop nest over the
// micro-ops [uop_bgn, uop_end), one iteration per cycle (two for an ALU with a register operand,
// whose two ACC operands share the buffer's one read port). REQUANT (§3.4.1) reads ACC[d] and the
// parameter buffer RQP, which has its own port, so it runs one iteration per cycle; RQPARAM is a
// register-form ALU op that writes RQP instead of ACC. Both take the RQP entry from the
// micro-op's wgt field, read in S1 like INP and WGT, written in S2.
//
//   S0   loop counters; read the micro-op
//   S1   d, s, w = micro-op fields + loop offsets; read INP[s] and WGT[w] (GEMM) or ACC[d] then
//        ACC[s] (ALU)
//   S2   GEMM: products (loom_gemm_core), read ACC[d];   ALU: result of the op -> S3
//   S2b  GEMM: ACC[d] + dot products (or 0 with reset) -> S3
//   S3   write ACC[d] and OUT[d] = saturate_int8(ACC[d])
//   S4   GEMM with a fused REQUANT's epilogue (§3.4.2) only: OUT[d] = REQUANT of the sum S3 held,
//        on the ALU lanes' requantization datapath, which a GEMM does not otherwise use; S3 wrote
//        ACC[d] zero
// so a GEMM takes 1 + 4 + iterations cycles from its start (1 + 5 with the epilogue), an ALU
// 1 + 3 + iterations (x2 with a register operand; 1 + 2 for RQPARAM and a fused REQUANT, which
// write no buffer).
//
// Sequential semantics: an iteration reads ACC after the writes of the iterations before it. A
// read issued in cycle t returns the buffer as it was before the write of cycle t, so the two
// writes it can miss are forwarded: the one in S3 (being written now) and the one just written
// (kept in S4). Everything older is already in the buffer.
module loom_loop_exec #(
  localparam int unsigned InsnBits = loom_hw_pkg::INSN_BITS,
  localparam int unsigned InpW = loom_hw_pkg::INP_ELEM_BYTES * 8,
  localparam int unsigned WgtW = loom_hw_pkg::WGT_ELEM_BYTES * 8,
  localparam int unsigned AccW = loom_hw_pkg::ACC_ELEM_BYTES * 8,
  localparam int unsigned OutW = loom_hw_pkg::OUT_ELEM_BYTES * 8
) (
  input  logic                                  clk_i,
  input  logic                                  rst_ni,
  input  logic                                  abort_i,
  input  logic                                  start_i,
  input  logic [InsnBits-1:0]                   insn_i,       // a GEMM or ALU
  output logic                                  done_o,       // the last write is now
  output logic                                  gemm_iter_o,  // a multiplying GEMM iteration ended
  // UOP buffer
  output logic                                  uop_re_o,
  output logic [loom_hw_pkg::UOP_IDX_BITS-1:0]  uop_raddr_o,
  // The micro-op's fields: the buffer does not keep its reserved bits.
  input  logic [loom_hw_pkg::UOP_USED_BITS-1:0] uop_rdata_i,
  // INP and WGT buffers
  output logic                                  inp_re_o,
  output logic [loom_hw_pkg::INP_IDX_BITS-1:0]  inp_raddr_o,
  input  logic [InpW-1:0]                       inp_rdata_i,
  output logic                                  wgt_re_o,
  output logic [loom_hw_pkg::WGT_IDX_BITS-1:0]  wgt_raddr_o,
  input  logic [WgtW-1:0]                       wgt_rdata_i,
  // ACC buffer
  output logic                                  acc_re_o,
  output logic [loom_hw_pkg::ACC_IDX_BITS-1:0]  acc_raddr_o,
  input  logic [AccW-1:0]                       acc_rdata_i,
  output logic                                  acc_we_o,
  output logic [loom_hw_pkg::ACC_IDX_BITS-1:0]  acc_waddr_o,
  output logic [AccW-1:0]                       acc_wdata_o,
  // OUT buffer: with ACC's write in S3, or in S4 under a fused REQUANT's epilogue
  output logic                                  out_we_o,
  output logic [loom_hw_pkg::ACC_IDX_BITS-1:0]  out_waddr_o,
  output logic [OutW-1:0]                       out_wdata_o
);

  localparam int unsigned AW = loom_hw_pkg::ACC_IDX_BITS;
  localparam int unsigned SW = loom_hw_pkg::UOP_SRC_W;  // INP (GEMM) or ACC (ALU) index
  localparam int unsigned WW = loom_hw_pkg::WGT_IDX_BITS;
  localparam int unsigned InpIdxW = loom_hw_pkg::INP_IDX_BITS;
  localparam int unsigned Lanes = loom_hw_pkg::BATCH * loom_hw_pkg::BLOCK_OUT;
  localparam int unsigned UopBgnW = loom_hw_pkg::GEMM_UOP_BGN_W;
  localparam int unsigned UopEndW = loom_hw_pkg::GEMM_UOP_END_W;
  localparam int unsigned LoopOutW = loom_hw_pkg::GEMM_LOOP_OUT_W;
  localparam int unsigned LoopInW = loom_hw_pkg::GEMM_LOOP_IN_W;
  localparam int unsigned RqpDepth = loom_hw_pkg::RQP_DEPTH;
  localparam int unsigned RqpW = $clog2(RqpDepth);
  localparam int unsigned ShiftW = loom_hw_pkg::REQUANT_PRE_SHIFT_W;  // = REQUANT_POST_SHIFT_W
  localparam int unsigned ClipW = loom_hw_pkg::REQUANT_CLIP_LO_W;     // = REQUANT_CLIP_HI_W

  // ---------------------------------------------------------------------------------------------
  // The instruction's fields (docs/isa.md §2.6-2.7). GEMM and ALU share the loop nest; the src
  // factors index INP (GEMM) or ACC (ALU), so they are as wide as the micro-op's src field.
  logic                              is_alu, use_imm, reset, depthwise;
  logic [2:0]                        alu_op;
  logic [loom_hw_pkg::ALU_IMM_W-1:0] imm;
  logic [ShiftW-1:0]                 pre_shift, post_shift;  // REQUANT
  logic [ClipW-1:0]                  clip_lo, clip_hi;
  logic                              rq_clear;  // REQUANT: leave ACC zero (§3.4.1)
  logic                              rq_fuse;   // REQUANT: arm the next GEMM's epilogue (§3.4.2)
  logic [UopBgnW-1:0]                uop_bgn;
  logic [UopEndW-1:0]                uop_end;
  logic [LoopOutW-1:0]               loop_out;
  logic [LoopInW-1:0]                loop_in;
  logic [AW-1:0]                     dst_fo, dst_fi;
  logic [SW-1:0]                     src_fo, src_fi;
  logic [WW-1:0]                     wgt_fo, wgt_fi;

  assign is_alu = insn_i[loom_hw_pkg::FINISH_OPCODE_LSB +: loom_hw_pkg::FINISH_OPCODE_W] ==
                  loom_hw_pkg::OPCODE_ALU;
  assign reset   = !is_alu && insn_i[loom_hw_pkg::GEMM_RESET_LSB];
  // The runtime refuses depthwise with reset (docs/isa.md §3.3.1), so the RTL need not.
  assign depthwise = !is_alu && insn_i[loom_hw_pkg::GEMM_DEPTHWISE_LSB];
  assign alu_op  = insn_i[loom_hw_pkg::ALU_ALU_OP_LSB +: loom_hw_pkg::ALU_ALU_OP_W];
  assign use_imm = insn_i[loom_hw_pkg::ALU_USE_IMM_LSB];
  assign imm     = insn_i[loom_hw_pkg::ALU_IMM_LSB +: loom_hw_pkg::ALU_IMM_W];
  assign pre_shift  = insn_i[loom_hw_pkg::REQUANT_PRE_SHIFT_LSB +: ShiftW];
  assign post_shift = insn_i[loom_hw_pkg::REQUANT_POST_SHIFT_LSB +: ShiftW];
  assign clip_lo    = insn_i[loom_hw_pkg::REQUANT_CLIP_LO_LSB +: ClipW];
  assign clip_hi    = insn_i[loom_hw_pkg::REQUANT_CLIP_HI_LSB +: ClipW];
  assign rq_clear   = insn_i[loom_hw_pkg::REQUANT_CLEAR_LSB];  // an imm bit in other ALU formats
  assign rq_fuse    = insn_i[loom_hw_pkg::REQUANT_FUSE_LSB];
  always_comb begin
    if (is_alu) begin
      uop_bgn  = insn_i[loom_hw_pkg::ALU_UOP_BGN_LSB +: UopBgnW];
      uop_end  = insn_i[loom_hw_pkg::ALU_UOP_END_LSB +: UopEndW];
      loop_out = insn_i[loom_hw_pkg::ALU_LOOP_OUT_LSB +: LoopOutW];
      loop_in  = insn_i[loom_hw_pkg::ALU_LOOP_IN_LSB +: LoopInW];
      dst_fo   = insn_i[loom_hw_pkg::ALU_DST_FACTOR_OUT_LSB +: AW];
      dst_fi   = insn_i[loom_hw_pkg::ALU_DST_FACTOR_IN_LSB +: AW];
      src_fo   = SW'(insn_i[loom_hw_pkg::ALU_SRC_FACTOR_OUT_LSB +: AW]);
      src_fi   = SW'(insn_i[loom_hw_pkg::ALU_SRC_FACTOR_IN_LSB +: AW]);
      wgt_fo   = '0;
      wgt_fi   = '0;
    end else begin
      uop_bgn  = insn_i[loom_hw_pkg::GEMM_UOP_BGN_LSB +: UopBgnW];
      uop_end  = insn_i[loom_hw_pkg::GEMM_UOP_END_LSB +: UopEndW];
      loop_out = insn_i[loom_hw_pkg::GEMM_LOOP_OUT_LSB +: LoopOutW];
      loop_in  = insn_i[loom_hw_pkg::GEMM_LOOP_IN_LSB +: LoopInW];
      dst_fo   = insn_i[loom_hw_pkg::GEMM_DST_FACTOR_OUT_LSB +: AW];
      dst_fi   = insn_i[loom_hw_pkg::GEMM_DST_FACTOR_IN_LSB +: AW];
      src_fo   = SW'(insn_i[loom_hw_pkg::GEMM_SRC_FACTOR_OUT_LSB +: InpIdxW]);
      src_fi   = SW'(insn_i[loom_hw_pkg::GEMM_SRC_FACTOR_IN_LSB +: InpIdxW]);
      wgt_fo   = insn_i[loom_hw_pkg::GEMM_WGT_FACTOR_OUT_LSB +: WW];
      wgt_fi   = insn_i[loom_hw_pkg::GEMM_WGT_FACTOR_IN_LSB +: WW];
    end
  end

  // Latched at start.
  logic                              is_alu_q, use_imm_q, reset_q, depthwise_q;
  logic [2:0]                        alu_op_q;
  logic [loom_hw_pkg::ALU_IMM_W-1:0] imm_q;
  logic [ShiftW-1:0]                 pre_shift_q, post_shift_q;
  logic [ClipW-1:0]                  clip_lo_q, clip_hi_q;
  logic                              rq_clear_q, rq_fuse_q;
  logic [UopBgnW-1:0]                uop_bgn_q;
  logic [UopEndW-1:0]                uop_end_q;
  logic [LoopOutW-1:0]               loop_out_q;
  logic [LoopInW-1:0]                loop_in_q;
  logic [AW-1:0]                     dst_fo_q, dst_fi_q;
  logic [SW-1:0]                     src_fo_q, src_fi_q;
  logic [WW-1:0]                     wgt_fo_q, wgt_fi_q;
  logic                              two_cycle;  // ALU with a second ACC operand
  logic                              requant_q, rqparam_q, arm_q, no_write_q;
  assign requant_q  = is_alu_q && alu_op_q == loom_hw_pkg::ALU_REQUANT && !rq_fuse_q;
  assign rqparam_q  = is_alu_q && alu_op_q == loom_hw_pkg::ALU_RQPARAM;
  assign arm_q      = is_alu_q && alu_op_q == loom_hw_pkg::ALU_REQUANT && rq_fuse_q;
  assign no_write_q = rqparam_q || arm_q;  // write RQP or the epilogue's registers, not ACC
  assign two_cycle  = is_alu_q && !use_imm_q && alu_op_q != loom_hw_pkg::ALU_REQUANT;

  // The epilogue a fused REQUANT armed: its shifts, clip and last iteration's RQP entry, kept
  // until the next GEMM, which runs with epi_q set.
  logic              epi_armed_q, epi_q;
  logic [ShiftW-1:0] epi_pre_q, epi_post_q;
  logic [ClipW-1:0]  epi_lo_q, epi_hi_q;
  logic [RqpW-1:0]   epi_p_q;

  // ---------------------------------------------------------------------------------------------
  // S0: loop counters.
  logic                                    gen_q, phase_q, empty_q;
  logic [loom_hw_pkg::GEMM_UOP_END_W-1:0]  u_q;
  logic [loom_hw_pkg::GEMM_LOOP_OUT_W-1:0] i0_q;
  logic [loom_hw_pkg::GEMM_LOOP_IN_W-1:0]  i1_q;
  logic [AW-1:0]                           d_out_q, d_q;  // dst offset at (i0, 0) and at (i0, i1)
  logic [SW-1:0]                           s_out_q, s_q;
  logic [WW-1:0]                           w_out_q, w_q;
  logic                                    emit, last_u, last_i1, last_i0;

  assign emit    = gen_q && !(two_cycle && phase_q);
  assign last_u  = u_q + 1'b1 == uop_end_q;
  assign last_i1 = i1_q + 1'b1 == loop_in_q;
  assign last_i0 = i0_q + 1'b1 == loop_out_q;
  assign uop_re_o    = emit;
  assign uop_raddr_o = u_q[loom_hw_pkg::UOP_IDX_BITS-1:0];

  logic start_empty;
  assign start_empty = loop_out == '0 || loop_in == '0 ||
                       UopEndW'(uop_bgn) >= uop_end;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      is_alu_q   <= 1'b0;
      use_imm_q  <= 1'b0;
      reset_q    <= 1'b0;
      depthwise_q <= 1'b0;
      alu_op_q   <= '0;
      imm_q      <= '0;
      pre_shift_q  <= '0;
      post_shift_q <= '0;
      clip_lo_q    <= '0;
      clip_hi_q    <= '0;
      rq_clear_q   <= 1'b0;
      rq_fuse_q    <= 1'b0;
      uop_bgn_q  <= '0;
      uop_end_q  <= '0;
      loop_out_q <= '0;
      loop_in_q  <= '0;
      dst_fo_q   <= '0;
      dst_fi_q   <= '0;
      src_fo_q   <= '0;
      src_fi_q   <= '0;
      wgt_fo_q   <= '0;
      wgt_fi_q   <= '0;
      gen_q   <= 1'b0;
      phase_q <= 1'b0;
      empty_q <= 1'b0;
      u_q     <= '0;
      i0_q    <= '0;
      i1_q    <= '0;
      d_out_q <= '0;
      d_q     <= '0;
      s_out_q <= '0;
      s_q     <= '0;
      w_out_q <= '0;
      w_q     <= '0;
    end else if (abort_i) begin
      gen_q   <= 1'b0;
      empty_q <= 1'b0;
    end else if (start_i) begin
      is_alu_q   <= is_alu;
      use_imm_q  <= use_imm;
      reset_q    <= reset;
      depthwise_q <= depthwise;
      alu_op_q   <= alu_op;
      imm_q      <= imm;
      pre_shift_q  <= pre_shift;
      post_shift_q <= post_shift;
      clip_lo_q    <= clip_lo;
      clip_hi_q    <= clip_hi;
      rq_clear_q   <= rq_clear;
      rq_fuse_q    <= rq_fuse;
      uop_bgn_q  <= uop_bgn;
      uop_end_q  <= uop_end;
      loop_out_q <= loop_out;
      loop_in_q  <= loop_in;
      dst_fo_q   <= dst_fo;
      dst_fi_q   <= dst_fi;
      src_fo_q   <= src_fo;
      src_fi_q   <= src_fi;
      wgt_fo_q   <= wgt_fo;
      wgt_fi_q   <= wgt_fi;
      gen_q   <= !start_empty;
      empty_q <= start_empty;
      phase_q <= 1'b0;
      u_q     <= UopEndW'(uop_bgn);
      i0_q    <= '0;
      i1_q    <= '0;
      d_out_q <= '0;
      d_q     <= '0;
      s_out_q <= '0;
      s_q     <= '0;
      w_out_q <= '0;
      w_q     <= '0;
    end else begin
      empty_q <= 1'b0;
      if (gen_q) phase_q <= two_cycle && !phase_q;
      if (emit) begin
        if (!last_u) begin
          u_q <= u_q + 1'b1;
        end else begin
          u_q <= UopEndW'(uop_bgn_q);
          if (!last_i1) begin
            i1_q <= i1_q + 1'b1;
            d_q  <= d_q + dst_fi_q;
            s_q  <= s_q + src_fi_q;
            w_q  <= w_q + wgt_fi_q;
          end else begin
            i1_q <= '0;
            if (!last_i0) begin
              i0_q    <= i0_q + 1'b1;
              d_out_q <= d_out_q + dst_fo_q;
              d_q     <= d_out_q + dst_fo_q;
              s_out_q <= s_out_q + src_fo_q;
              s_q     <= s_out_q + src_fo_q;
              w_out_q <= w_out_q + wgt_fo_q;
              w_q     <= w_out_q + wgt_fo_q;
            end else begin
              gen_q <= 1'b0;
            end
          end
        end
      end
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      epi_armed_q <= 1'b0;
      epi_q       <= 1'b0;
      epi_pre_q   <= '0;
      epi_post_q  <= '0;
      epi_lo_q    <= '0;
      epi_hi_q    <= '0;
      epi_p_q     <= '0;
    end else if (abort_i) begin
      epi_armed_q <= 1'b0;
      epi_q       <= 1'b0;
    end else if (start_i) begin
      // A GEMM takes the armed epilogue; any other instruction runs without one.
      epi_q <= !is_alu && epi_armed_q;
      if (!is_alu) epi_armed_q <= 1'b0;
    end else if (v2_q && arm_q) begin
      epi_armed_q <= 1'b1;
      epi_pre_q   <= pre_shift_q;
      epi_post_q  <= post_shift_q;
      epi_lo_q    <= clip_lo_q;
      epi_hi_q    <= clip_hi_q;
      epi_p_q     <= w2_q;
    end
  end

  // ---------------------------------------------------------------------------------------------
  // S1: buffer indices and reads.
  logic          v1_q, ph1_q, last1_q;
  logic [AW-1:0] d_off1_q;
  logic [SW-1:0] s_off1_q;
  logic [WW-1:0] w_off1_q;
  logic [AW-1:0] d1;
  logic [SW-1:0] s1;
  logic [WW-1:0] w1;
  logic          adv1;  // S1 hands its iteration to S2 this cycle

  assign d1   = AW'(uop_rdata_i[loom_hw_pkg::UOP_DST_LSB +: loom_hw_pkg::UOP_DST_W]) + d_off1_q;
  assign s1   = SW'(uop_rdata_i[loom_hw_pkg::UOP_SRC_LSB +: loom_hw_pkg::UOP_SRC_W]) + s_off1_q;
  assign w1   = WW'(uop_rdata_i[loom_hw_pkg::UOP_WGT_LSB +: loom_hw_pkg::UOP_WGT_W]) + w_off1_q;
  assign adv1 = v1_q && (!two_cycle || ph1_q);

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      v1_q     <= 1'b0;
      ph1_q    <= 1'b0;
      last1_q  <= 1'b0;
      d_off1_q <= '0;
      s_off1_q <= '0;
      w_off1_q <= '0;
    end else if (abort_i) begin
      v1_q <= 1'b0;
    end else if (emit) begin
      v1_q     <= 1'b1;
      ph1_q    <= 1'b0;
      last1_q  <= last_u && last_i1 && last_i0;
      d_off1_q <= d_q;
      s_off1_q <= s_q;
      w_off1_q <= w_q;
    end else if (v1_q && two_cycle && !ph1_q) begin
      ph1_q <= 1'b1;
    end else begin
      v1_q <= 1'b0;
    end
  end

  // GEMM reads INP and WGT in S1 and ACC in S2; the ALU reads ACC[d], then ACC[s], in S1.
  logic            v2_q, last2_q;
  logic [AW-1:0]   d2_q;
  logic [AW-1:0]   s2_q;
  logic [RqpW-1:0] w2_q;  // RQPARAM's RQP entry
  assign inp_re_o    = v1_q && !is_alu_q && !reset_q;
  assign inp_raddr_o = s1[InpIdxW-1:0];
  assign wgt_re_o    = v1_q && !is_alu_q && !reset_q;
  assign wgt_raddr_o = w1;
  always_comb begin
    if (is_alu_q) begin
      acc_re_o    = v1_q;
      acc_raddr_o = two_cycle && ph1_q ? AW'(s1) : d1;
    end else begin
      acc_re_o    = v2_q && !reset_q;
      acc_raddr_o = d2_q;
    end
  end

  // ---------------------------------------------------------------------------------------------
  // Forwarding: the value of ACC[idx] given the buffer's read data of the previous cycle.
  logic            v3_q, last3_q, gemm3_q, v4_q;
  logic [AW-1:0]   d3_q, d4_q;
  logic [AccW-1:0] data3_q, data4_q;

  function automatic logic [AccW-1:0] fwd(logic [AW-1:0] idx, logic [AccW-1:0] ram,
                                                logic v3, logic [AW-1:0] d3,
                                                logic [AccW-1:0] data3, logic v4,
                                                logic [AW-1:0] d4,
                                                logic [AccW-1:0] data4);
    if (v3 && d3 == idx) fwd = data3;
    else if (v4 && d4 == idx) fwd = data4;
    else fwd = ram;
  endfunction

  // What ACC holds for the writes in S3 and S4: under the epilogue, zero (data3_q and data4_q keep
  // the sums, which S4 requantizes).
  logic [AccW-1:0] acc3, acc4;
  assign acc3 = epi_q ? '0 : data3_q;
  assign acc4 = epi_q ? '0 : data4_q;

  // ---------------------------------------------------------------------------------------------
  // S2.
  logic [AccW-1:0] a2_q;  // ALU register form: ACC[d], read in S1's first cycle

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      v2_q    <= 1'b0;
      last2_q <= 1'b0;
      d2_q    <= '0;
      s2_q    <= '0;
      w2_q    <= '0;
      a2_q    <= '0;
    end else if (abort_i) begin
      v2_q <= 1'b0;
    end else begin
      v2_q <= adv1;
      if (adv1) begin
        last2_q <= last1_q;
        d2_q    <= d1;
        s2_q    <= AW'(s1);
        w2_q    <= w1[RqpW-1:0];
      end
      if (v1_q && two_cycle && ph1_q) begin
        a2_q <= fwd(d1, acc_rdata_i, v3_q, d3_q, acc3, v4_q, d4_q, acc4);
      end
    end
  end

  // ALU: the operation, lane by lane.
  logic [AccW-1:0] alu_a, alu_x, alu_y;
  always_comb begin
    if (two_cycle) begin
      alu_a = a2_q;
      alu_x = fwd(s2_q, acc_rdata_i, v3_q, d3_q, acc3, v4_q, d4_q, acc4);
    end else begin
      alu_a = fwd(d2_q, acc_rdata_i, v3_q, d3_q, acc3, v4_q, d4_q, acc4);
      alu_x = {Lanes{32'(signed'(imm_q))}};
    end
  end

  // The parameter buffer RQP: per entry and lane, the bias and multiplier RQPARAM copied from
  // ACC[d] and ACC[s].
  logic [AccW-1:0] rq_bias_q, rq_mult_q, rq_y, op_y;
  logic            rqp_we;
  assign rqp_we = v2_q && rqparam_q && !abort_i;
  loom_ram_1r1w #(.Width(AccW), .Depth(RqpDepth)) u_rqp_bias (
    .clk_i,
    .we_i   (rqp_we),
    .waddr_i(w2_q),
    .wdata_i(alu_a),
    .re_i   (v1_q && requant_q || epi_q),
    .raddr_i(epi_q ? epi_p_q : w1[RqpW-1:0]),
    .rdata_o(rq_bias_q)
  );
  loom_ram_1r1w #(.Width(AccW), .Depth(RqpDepth)) u_rqp_mult (
    .clk_i,
    .we_i   (rqp_we),
    .waddr_i(w2_q),
    .wdata_i(alu_x),
    .re_i   (v1_q && requant_q || epi_q),
    .raddr_i(epi_q ? epi_p_q : w1[RqpW-1:0]),
    .rdata_o(rq_mult_q)
  );

  // REQUANT multiplies on the ALU lane's own multiplier (no DSP slices of its own): the lane gets
  // MUL of the pre-shifted value and the multiplier, and its product goes on to the post-shift.
  // Under a GEMM's epilogue the same datapath requantizes the sum in S3 (data3_q), with the
  // armed epilogue's fields.
  logic [AccW-1:0]   lane_a, lane_x, rq_pre, rq_in;
  logic [2:0]        lane_op;
  logic              rq_mode;
  logic [ShiftW-1:0] rq_pre_shift, rq_post_shift;
  logic [ClipW-1:0]  rq_lo, rq_hi;
  assign rq_mode       = requant_q || epi_q;
  assign rq_in         = epi_q ? data3_q : alu_a;
  assign rq_pre_shift  = epi_q ? epi_pre_q : pre_shift_q;
  assign rq_post_shift = epi_q ? epi_post_q : post_shift_q;
  assign rq_lo         = epi_q ? epi_lo_q : clip_lo_q;
  assign rq_hi         = epi_q ? epi_hi_q : clip_hi_q;
  assign lane_op = rq_mode ? 3'(loom_hw_pkg::ALU_MUL) : alu_op_q;
  assign lane_a  = rq_mode ? rq_pre : alu_a;
  assign lane_x  = rq_mode ? rq_mult_q : alu_x;
  for (genvar l = 0; l < Lanes; l++) begin : g_alu
    loom_alu_lane u_lane (
      .op_i(lane_op),
      .a_i (lane_a[l*32 +: 32]),
      .x_i (lane_x[l*32 +: 32]),
      .y_o (op_y[l*32 +: 32])
    );
    loom_requant_lane u_requant (
      .a_i         (rq_in[l*32 +: 32]),
      .bias_i      (rq_bias_q[l*32 +: 32]),
      .pre_shift_i (rq_pre_shift),
      .pre_o       (rq_pre[l*32 +: 32]),
      .prod_i      (op_y[l*32 +: 32]),
      .post_shift_i(rq_post_shift),
      .clip_lo_i   (rq_lo),
      .clip_hi_i   (rq_hi),
      .y_o         (rq_y[l*32 +: 32])
    );
  end
  assign alu_y = requant_q ? rq_y : op_y;

  // GEMM: products of this iteration's INP and WGT elements. S2 holds each iteration for exactly
  // one cycle, in order (the loop never stalls: ACC hazards are forwarded), so en_i is also the
  // depthwise window's shift; the window clears when any instruction starts.
  logic [AccW-1:0] dot;
  loom_gemm_core u_gemm (
    .clk_i,
    .en_i (v2_q && !is_alu_q && !reset_q),
    .dw_i (depthwise_q),
    .clr_i(start_i),
    .inp_i(inp_rdata_i),
    .wgt_i(wgt_rdata_i),
    .sum_o(dot)
  );

  // ---------------------------------------------------------------------------------------------
  // S2b (GEMM only): accumulate.
  logic            vb_q, lastb_q;
  logic [AW-1:0]   db_q;
  logic [AccW-1:0] acc_old, acc_new;

  assign acc_old = fwd(db_q, acc_rdata_i, v3_q, d3_q, acc3, v4_q, d4_q, acc4);
  for (genvar l = 0; l < Lanes; l++) begin : g_acc
    assign acc_new[l*32 +: 32] = reset_q ? 32'd0 : acc_old[l*32 +: 32] + dot[l*32 +: 32];
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      vb_q    <= 1'b0;
      lastb_q <= 1'b0;
      db_q    <= '0;
    end else if (abort_i) begin
      vb_q <= 1'b0;
    end else begin
      vb_q    <= v2_q && !is_alu_q;
      lastb_q <= last2_q;
      db_q    <= d2_q;
    end
  end

  // ---------------------------------------------------------------------------------------------
  // S3: write; S4: the last write, for forwarding. ACC and OUT share the write address; their
  // data differ only for REQUANT with clear, which writes OUT and leaves ACC zero (data3_q is
  // always what ACC holds, so forwarding sees the zero).
  logic s3_from_alu;
  assign s3_from_alu = v2_q && is_alu_q && !no_write_q;
  logic [Lanes*8-1:0] out3_q;
  function automatic logic [Lanes*8-1:0] sat_lanes(logic [AccW-1:0] v);
    for (int l = 0; l < Lanes; l++) sat_lanes[l*8 +: 8] = loom_pkg::sat8(v[l*32 +: 32]);
  endfunction

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      v3_q    <= 1'b0;
      last3_q <= 1'b0;
      gemm3_q <= 1'b0;
      d3_q    <= '0;
      data3_q <= '0;
      out3_q  <= '0;
      v4_q    <= 1'b0;
      d4_q    <= '0;
      data4_q <= '0;
    end else if (abort_i || start_i) begin
      // A new instruction starts with nothing to forward: LOAD ACC may have written ACC since.
      v3_q <= 1'b0;
      v4_q <= 1'b0;
    end else begin
      v3_q <= s3_from_alu || vb_q;
      if (s3_from_alu) begin
        last3_q <= last2_q;
        gemm3_q <= 1'b0;
        d3_q    <= d2_q;
        data3_q <= requant_q && rq_clear_q ? '0 : alu_y;
        out3_q  <= sat_lanes(alu_y);
      end else if (vb_q) begin
        last3_q <= lastb_q;
        gemm3_q <= !reset_q;
        d3_q    <= db_q;
        data3_q <= acc_new;
        out3_q  <= sat_lanes(acc_new);
      end
      if (v3_q) begin
        v4_q    <= 1'b1;
        d4_q    <= d3_q;
        data4_q <= data3_q;
      end
    end
  end

  // S4 of the epilogue: the requantized sums, one cycle behind ACC's zero.
  logic               ow4_q, olast4_q;
  logic [AW-1:0]      od4_q;
  logic [Lanes*8-1:0] out4_q;
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      ow4_q    <= 1'b0;
      olast4_q <= 1'b0;
      od4_q    <= '0;
      out4_q   <= '0;
    end else if (abort_i || start_i) begin
      ow4_q <= 1'b0;
    end else begin
      ow4_q <= v3_q && epi_q;
      if (v3_q && epi_q) begin
        olast4_q <= last3_q;
        od4_q    <= d3_q;
        out4_q   <= sat_lanes(rq_y);
      end
    end
  end

  assign acc_we_o    = v3_q;
  assign acc_waddr_o = d3_q;
  assign acc_wdata_o = acc3;
  assign out_we_o    = epi_q ? ow4_q : v3_q;
  assign out_waddr_o = epi_q ? od4_q : d3_q;
  assign out_wdata_o = epi_q ? out4_q : out3_q;
  assign gemm_iter_o = v3_q && gemm3_q;
  assign done_o      = (epi_q ? ow4_q && olast4_q : v3_q && last3_q) || empty_q ||
                       (v2_q && no_write_q && last2_q);

`ifndef SYNTHESIS
  always_ff @(posedge clk_i) begin
    if (rst_ni) begin
      assert (!(start_i && (gen_q || v1_q || v2_q || vb_q || v3_q)))
        else $error("loom_loop_exec: start while busy");
    end
  end
`endif

endmodule : loom_loop_exec
