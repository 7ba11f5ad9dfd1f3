// Shares the AXI4 read channel among the units that read DRAM (fetch, load, compute). One burst
// is outstanding at a time: a client wins the address channel, then receives every data beat of
// its burst, and the channel is free again after the beat with RLAST.
//
// Clients are served first come, first served: requests queue in the order they were raised
// (lower client index first within a cycle), which is the order fsim's timing model gives the
// DRAM port to instructions. A client re-requests for each burst, so a long LOAD cannot starve
// instruction fetch: every other waiting client gets one burst in between.
//
// When nothing is queued, a new request goes straight to the bus, so an uncontended burst pays no
// arbitration cycle; once presented, a request is held until the slave takes it (AXI forbids
// changing a valid address).
module loom_axi_rd_arb #(
  parameter  int unsigned NumClients = 3,
  parameter  int unsigned AddrW = 64,
  localparam int unsigned IdxW = NumClients > 1 ? $clog2(NumClients) : 1,
  localparam int unsigned CntW = $clog2(NumClients + 1)
) (
  input  logic                        clk_i,
  input  logic                        rst_ni,
  // clients
  input  logic [NumClients-1:0]       ar_valid_i,
  output logic [NumClients-1:0]       ar_ready_o,
  input  logic [NumClients*AddrW-1:0] ar_addr_i,    // client c at [c*AddrW +: AddrW]
  input  logic [NumClients*8-1:0]     ar_len_i,     // client c at [c*8 +: 8]
  output logic [NumClients-1:0]       r_valid_o,    // data, resp and last are shared by all clients
  input  logic [NumClients-1:0]       r_ready_i,
  // master
  output logic                        m_arvalid_o,
  input  logic                        m_arready_i,
  output logic [AddrW-1:0]            m_araddr_o,
  output logic [7:0]                  m_arlen_o,
  input  logic                        m_rvalid_i,
  output logic                        m_rready_o,
  input  logic                        m_rlast_i
);

  typedef enum logic [1:0] {
    ArbIdle,  // nobody owns the channel; the oldest request is presented
    ArbAddr,  // the owner's address is presented and not yet accepted
    ArbData   // the owner's burst is in flight
  } arb_state_e;

  arb_state_e      state_q, state_d;
  logic [IdxW-1:0] grant_q, grant_d, owner;

  // Arrival order of the requests not yet accepted.
  logic [NumClients*IdxW-1:0] order_q;   // entry k at [k*IdxW +: IdxW], oldest first
  logic [CntW-1:0]            count_q;
  logic [NumClients-1:0]      queued_q;  // client has an entry in order_q
  logic [IdxW-1:0]            first_new;
  logic                       any_new;
  logic [NumClients-1:0]      fresh;     // requests raised this cycle

  assign fresh = ar_valid_i & ~queued_q;
  always_comb begin
    first_new = '0;
    any_new   = 1'b0;
    for (int unsigned c = 0; c < NumClients; c++) begin
      if (!any_new && fresh[c]) begin
        any_new   = 1'b1;
        first_new = IdxW'(c);
      end
    end
  end

  // The oldest request, or with none queued the first one raised this cycle.
  logic any_req;
  assign any_req = count_q != '0 || any_new;
  assign owner   = state_q != ArbIdle ? grant_q : (count_q != '0 ? order_q[IdxW-1:0] : first_new);

  logic ar_hs;
  always_comb begin
    m_arvalid_o = 1'b0;
    m_araddr_o  = ar_addr_i[AddrW-1:0];
    m_arlen_o   = ar_len_i[7:0];
    for (int unsigned c = 1; c < NumClients; c++) begin
      if (owner == IdxW'(c)) begin
        m_araddr_o = ar_addr_i[c*AddrW +: AddrW];
        m_arlen_o  = ar_len_i[c*8 +: 8];
      end
    end
    ar_ready_o  = '0;
    r_valid_o   = '0;
    m_rready_o  = 1'b0;
    state_d     = state_q;
    grant_d     = grant_q;
    unique case (state_q)
      ArbIdle, ArbAddr: begin
        m_arvalid_o = state_q == ArbAddr || any_req;
        ar_ready_o[owner] = m_arready_i && m_arvalid_o;
        if (m_arvalid_o) begin
          grant_d = owner;
          state_d = m_arready_i ? ArbData : ArbAddr;
        end
      end
      ArbData: begin
        r_valid_o[grant_q] = m_rvalid_i;
        m_rready_o         = r_ready_i[grant_q];
        if (m_rvalid_i && m_rready_o && m_rlast_i) state_d = ArbIdle;
      end
      default: state_d = ArbIdle;
    endcase
  end
  assign ar_hs = m_arvalid_o && m_arready_i;

  // The queue: append the fresh requests in client order, then drop the accepted one (always the
  // oldest entry, or with an empty queue the one appended first).
  logic [NumClients*IdxW-1:0] order_app, order_d;
  logic [CntW-1:0]            count_app, count_d;
  logic [NumClients-1:0]      queued_d;
  always_comb begin
    order_app = order_q;
    count_app = count_q;
    queued_d  = queued_q;
    for (int unsigned c = 0; c < NumClients; c++) begin
      if (fresh[c]) begin
        for (int unsigned k = 0; k < NumClients; k++) begin
          if (CntW'(k) == count_app) order_app[k*IdxW +: IdxW] = IdxW'(c);
        end
        count_app = count_app + 1'b1;
        queued_d[c] = 1'b1;
      end
    end
    order_d = order_app;
    count_d = count_app;
    if (ar_hs) begin
      order_d = order_app >> IdxW;
      count_d         = count_app - 1'b1;
      queued_d[owner] = 1'b0;
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      state_q  <= ArbIdle;
      grant_q  <= '0;
      count_q  <= '0;
      queued_q <= '0;
      order_q  <= '0;
    end else begin
      state_q  <= state_d;
      grant_q  <= grant_d;
      count_q  <= count_d;
      queued_q <= queued_d;
      order_q  <= order_d;
    end
  end

`ifndef SYNTHESIS
  // A client keeps its request up until it is accepted.
  always_ff @(posedge clk_i) begin
    if (rst_ni) begin
      assert ((queued_q & ~ar_valid_i) == '0) else $error("loom_axi_rd_arb: request withdrawn");
    end
  end
`endif

endmodule : loom_axi_rd_arb
