// Shares the AXI4 read channel among the units that read DRAM (fetch, load, compute). Up to
// DMA_READS_IN_FLIGHT bursts are outstanding: a client wins the address channel for one burst, and
// the data beats, which the slave returns in address order, go to the owners of the bursts in that
// order (a FIFO of owners), each burst's up to the beat with RLAST. With the FIFO full no address
// goes out.
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

  typedef enum logic {
    ArbIdle,  // no address held; the oldest request is presented if a burst may go out
    ArbAddr   // the owner's address is presented and not yet accepted
  } arb_state_e;

  localparam int unsigned Depth = loom_hw_pkg::DMA_READS_IN_FLIGHT;
  localparam int unsigned PtrW = Depth > 1 ? $clog2(Depth) : 1;
  localparam int unsigned FillW = $clog2(Depth + 1);

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

  // The owners of the bursts in flight, oldest (the one receiving data) first.
  logic [IdxW-1:0]  fifo_q[Depth];
  logic [PtrW-1:0]  head_q, tail_q;
  logic [FillW-1:0] fill_q;
  logic             full, r_end;
  logic [IdxW-1:0]  r_owner;
  assign full    = fill_q == FillW'(Depth);
  assign r_owner = fifo_q[head_q];

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
    // Address channel.
    m_arvalid_o = state_q == ArbAddr || (any_req && !full);
    ar_ready_o[owner] = m_arready_i && m_arvalid_o;
    if (m_arvalid_o) begin
      grant_d = owner;
      state_d = m_arready_i ? ArbIdle : ArbAddr;
    end
    // Data channel: the oldest burst's owner.
    if (fill_q != '0) begin
      r_valid_o[r_owner] = m_rvalid_i;
      m_rready_o         = r_ready_i[r_owner];
    end
  end
  assign ar_hs = m_arvalid_o && m_arready_i;
  assign r_end = m_rvalid_i && m_rready_o && m_rlast_i;

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
      head_q   <= '0;
      tail_q   <= '0;
      fill_q   <= '0;
      for (int unsigned k = 0; k < Depth; k++) fifo_q[k] <= '0;
    end else begin
      state_q  <= state_d;
      grant_q  <= grant_d;
      count_q  <= count_d;
      queued_q <= queued_d;
      order_q  <= order_d;
      if (ar_hs) begin
        fifo_q[tail_q] <= owner;
        tail_q         <= PtrW'(tail_q + 1'b1);
      end
      if (r_end) head_q <= PtrW'(head_q + 1'b1);
      fill_q <= fill_q + FillW'(ar_hs) - FillW'(r_end);
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
