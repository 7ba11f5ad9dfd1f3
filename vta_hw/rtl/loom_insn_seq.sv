// The instruction sequencer every module (load, compute, store) runs in front of its execution
// unit: takes the next instruction from the module's command queue, performs its pops, starts it,
// waits for it to complete, performs its pushes (docs/isa.md §1.4), and records it in *_LAST.
//
//   cycle 0:  head of the queue present and its tokens available: pops, start (the queue entry
//             frees here, as in docs/fsim.md)
//   ...       the execution unit works; done_i marks its last cycle, in which the pushes happen
//             if the queues have room
//   next:     the next instruction may start
//
// pop_prev is taken before pop_next, and push_prev before push_next; both of a pair may happen in
// the same cycle. The flags that do not exist for a module never reach here (loom_insn_check).
module loom_insn_seq #(
  localparam int unsigned CmdW = loom_pkg::INSN_IDX_W + loom_hw_pkg::INSN_BITS,
  localparam int unsigned IdxW = loom_pkg::INSN_IDX_W
) (
  input  logic            clk_i,
  input  logic            rst_ni,
  input  logic            clr_i,           // a run starts: *_LAST back to 0
  input  logic            abort_i,
  // command queue head
  input  logic            cmd_valid_i,
  input  logic [CmdW-1:0] cmd_i,           // {index, instruction}
  output logic            cmd_ready_o,
  // token queues: "prev" and "next" as seen from this module
  input  logic            pop_prev_ok_i,
  output logic            pop_prev_o,
  input  logic            pop_next_ok_i,
  output logic            pop_next_o,
  input  logic            push_prev_ok_i,
  output logic            push_prev_o,
  input  logic            push_next_ok_i,
  output logic            push_next_o,
  // execution unit
  output logic            start_o,         // cmd_i is the instruction to execute
  input  logic            done_i,
  // status
  output logic            busy_o,          // executing (a cycle of the module's busy count)
  output logic            idle_o,          // no instruction taken
  output logic [IdxW-1:0] cur_idx_o,       // stream index of the instruction in progress
  output logic [IdxW-1:0] last_o,          // 1 + index of the last completed instruction
  output logic [loom_pkg::SEQ_TRACE_W-1:0] trace_o  // for the simulator's timeline (loom_pkg)
);

  typedef enum logic [1:0] {
    SeqIdle,  // waiting for an instruction and its tokens
    SeqExec,  // the execution unit is working
    SeqPush   // waiting for room in a token queue
  } seq_state_e;

  localparam int unsigned InsnBits = loom_hw_pkg::INSN_BITS;

  logic [IdxW-1:0]     cmd_idx;
  logic [InsnBits-1:0] cmd_insn;
  assign cmd_idx  = cmd_i[InsnBits +: loom_pkg::INSN_IDX_W];
  assign cmd_insn = cmd_i[InsnBits-1:0];

  seq_state_e      state_q, state_d;
  logic            popped_prev_q, popped_next_q, pushed_prev_q;
  logic            need_push_prev_q, need_push_next_q;
  logic [IdxW-1:0] idx_q, last_q;

  // Pops of the instruction at the head.
  logic need_pop_prev, need_pop_next, prev_sat, next_sat, issue;
  assign need_pop_prev = cmd_insn[loom_hw_pkg::FINISH_POP_PREV_LSB];
  assign need_pop_next = cmd_insn[loom_hw_pkg::FINISH_POP_NEXT_LSB];
  assign pop_prev_o    = state_q == SeqIdle && cmd_valid_i && !abort_i && need_pop_prev &&
                         !popped_prev_q && pop_prev_ok_i;
  assign prev_sat      = !need_pop_prev || popped_prev_q || pop_prev_o;
  assign pop_next_o    = state_q == SeqIdle && cmd_valid_i && !abort_i && need_pop_next &&
                         !popped_next_q && prev_sat && pop_next_ok_i;
  assign next_sat      = !need_pop_next || popped_next_q || pop_next_o;
  assign issue         = state_q == SeqIdle && cmd_valid_i && !abort_i && prev_sat && next_sat;
  assign start_o       = issue;
  assign cmd_ready_o   = issue;

  // Pushes after completion.
  logic pushing, pushes_done;
  assign pushing     = !abort_i && ((state_q == SeqExec && done_i) || state_q == SeqPush);
  assign push_prev_o = pushing && need_push_prev_q && !pushed_prev_q && push_prev_ok_i;
  assign push_next_o = pushing && need_push_next_q && push_next_ok_i &&
                       (!need_push_prev_q || pushed_prev_q || push_prev_o);
  assign pushes_done = (!need_push_prev_q || pushed_prev_q || push_prev_o) &&
                       (!need_push_next_q || push_next_o);

  always_comb begin
    state_d = state_q;
    unique case (state_q)
      SeqIdle: if (issue) state_d = SeqExec;
      SeqExec: begin
        if (abort_i) state_d = SeqIdle;
        else if (done_i) state_d = pushes_done ? SeqIdle : SeqPush;
      end
      SeqPush: if (abort_i || pushes_done) state_d = SeqIdle;
      default: state_d = SeqIdle;
    endcase
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      state_q          <= SeqIdle;
      popped_prev_q    <= 1'b0;
      popped_next_q    <= 1'b0;
      pushed_prev_q    <= 1'b0;
      need_push_prev_q <= 1'b0;
      need_push_next_q <= 1'b0;
      idx_q            <= '0;
      last_q           <= '0;
    end else begin
      state_q <= state_d;
      if (pop_prev_o) popped_prev_q <= 1'b1;
      if (pop_next_o) popped_next_q <= 1'b1;
      if (push_prev_o) pushed_prev_q <= 1'b1;
      if (issue) begin
        popped_prev_q    <= 1'b0;
        popped_next_q    <= 1'b0;
        pushed_prev_q    <= 1'b0;
        need_push_prev_q <= cmd_insn[loom_hw_pkg::FINISH_PUSH_PREV_LSB];
        need_push_next_q <= cmd_insn[loom_hw_pkg::FINISH_PUSH_NEXT_LSB];
        idx_q            <= cmd_idx;
      end
      if (pushing && pushes_done) last_q <= idx_q + 1'b1;
      if (clr_i) last_q <= '0;
      if (abort_i) begin
        popped_prev_q <= 1'b0;
        popped_next_q <= 1'b0;
        pushed_prev_q <= 1'b0;
      end
    end
  end

  // The sequencer reads only the dependency flags; the execution unit decodes the rest.
  logic unused_insn;
  assign unused_insn = ^{cmd_insn[InsnBits-1:loom_hw_pkg::FINISH_PUSH_NEXT_LSB+1],
                         cmd_insn[loom_hw_pkg::FINISH_POP_PREV_LSB-1:0]};

  assign busy_o    = issue || state_q == SeqExec;
  assign idle_o    = state_q == SeqIdle && !popped_prev_q && !popped_next_q;
  assign cur_idx_o = state_q == SeqIdle ? cmd_idx : idx_q;
  assign last_o    = last_q;

  // The trace port: what this cycle was spent on.
  logic [2:0] trace_state;
  always_comb begin
    if (issue || state_q == SeqExec) begin  // the cycles *_BUSY counts
      trace_state = loom_pkg::SEQ_EXEC;
    end else if (state_q == SeqPush) begin
      trace_state = need_push_prev_q && !pushed_prev_q && !push_prev_ok_i ?
                    loom_pkg::SEQ_PUSH_PREV : loom_pkg::SEQ_PUSH_NEXT;
    end else if (state_q == SeqIdle && cmd_valid_i) begin
      trace_state = need_pop_prev && !popped_prev_q && !pop_prev_ok_i ?
                    loom_pkg::SEQ_POP_PREV : loom_pkg::SEQ_POP_NEXT;
    end else begin
      trace_state = loom_pkg::SEQ_NO_INSN;
    end
  end
  assign trace_o = {issue, pushing && pushes_done, trace_state};

`ifndef SYNTHESIS
  always_ff @(posedge clk_i) begin
    if (rst_ni) begin
      assert (!(done_i && state_q != SeqExec))
        else $error("loom_insn_seq: done while not executing");
    end
  end
`endif

endmodule : loom_insn_seq
