// Model (model.h) over one Verilated loom_top. Included only by the per-config adapter that
// sim/tsim/CMakeLists.txt generates, which is compiled together with the Verilator output.
#ifndef LOOM_SIM_TSIM_VERILATED_MODEL_H_
#define LOOM_SIM_TSIM_VERILATED_MODEL_H_

#include <verilated.h>
#include <verilated_fst_c.h>

#include <cstdint>
#include <memory>
#include <string>

#include "sim/tsim/model.h"

namespace loom::tsim {
namespace port {

// Verilator stores a port of up to 8/16/32/64 bits in CData/SData/IData/QData and wider ports in
// VlWide<N>; these copy between them and the 32-bit word arrays of Ports.
template <typename T>
void FromWords(T& port, const uint32_t* w) {
  if constexpr (sizeof(T) <= 4) {
    port = static_cast<T>(w[0]);
  } else {
    port = static_cast<T>(uint64_t{w[0]} | uint64_t{w[1]} << 32);
  }
}
template <std::size_t N>
void FromWords(VlWide<N>& port, const uint32_t* w) {
  for (std::size_t i = 0; i < N; ++i) port[i] = w[i];
}
template <typename T>
void ToWords(const T& port, uint32_t* w) {
  w[0] = static_cast<uint32_t>(port);
  if constexpr (sizeof(T) > 4) w[1] = static_cast<uint32_t>(static_cast<uint64_t>(port) >> 32);
}
template <std::size_t N>
void ToWords(const VlWide<N>& port, uint32_t* w) {
  for (std::size_t i = 0; i < N; ++i) w[i] = port[i];
}

}  // namespace port

template <class V>
class VerilatedModel final : public Model {
 public:
  explicit VerilatedModel(bool trace)
      : context_(std::make_unique<VerilatedContext>()), tracing_allowed_(trace) {
    // Assertions in the RTL stop the simulation loudly instead of letting a bug pass.
    context_->fatalOnError(true);
    if (trace) context_->traceEverOn(true);
    top_ = std::make_unique<V>(context_.get(), "TOP");
  }
  ~VerilatedModel() override {
    CloseTrace();
    top_->final();
  }

  void Eval(Ports* p) override {
    V& t = *top_;
    t.clk_i = p->clk;
    t.rst_ni = p->rst_n;
    t.s_axil_awvalid_i = p->axil_awvalid;
    t.s_axil_awaddr_i = p->axil_awaddr;
    t.s_axil_wvalid_i = p->axil_wvalid;
    t.s_axil_wdata_i = p->axil_wdata;
    t.s_axil_wstrb_i = p->axil_wstrb;
    t.s_axil_bready_i = p->axil_bready;
    t.s_axil_arvalid_i = p->axil_arvalid;
    t.s_axil_araddr_i = p->axil_araddr;
    t.s_axil_rready_i = p->axil_rready;
    t.m_axi_arready_i = p->arready;
    t.m_axi_rvalid_i = p->rvalid;
    port::FromWords(t.m_axi_rdata_i, p->rdata.data());
    t.m_axi_rresp_i = p->rresp;
    t.m_axi_rlast_i = p->rlast;
    t.m_axi_awready_i = p->awready;
    t.m_axi_wready_i = p->wready;
    t.m_axi_bvalid_i = p->bvalid;
    t.m_axi_bresp_i = p->bresp;

    t.eval();

    p->axil_awready = t.s_axil_awready_o;
    p->axil_wready = t.s_axil_wready_o;
    p->axil_bvalid = t.s_axil_bvalid_o;
    p->axil_bresp = t.s_axil_bresp_o;
    p->axil_arready = t.s_axil_arready_o;
    p->axil_rvalid = t.s_axil_rvalid_o;
    p->axil_rdata = t.s_axil_rdata_o;
    p->axil_rresp = t.s_axil_rresp_o;
    p->arvalid = t.m_axi_arvalid_o;
    p->araddr = t.m_axi_araddr_o;
    p->arlen = t.m_axi_arlen_o;
    p->arsize = t.m_axi_arsize_o;
    p->arburst = t.m_axi_arburst_o;
    p->rready = t.m_axi_rready_o;
    p->awvalid = t.m_axi_awvalid_o;
    p->awaddr = t.m_axi_awaddr_o;
    p->awlen = t.m_axi_awlen_o;
    p->awsize = t.m_axi_awsize_o;
    p->awburst = t.m_axi_awburst_o;
    p->wvalid = t.m_axi_wvalid_o;
    port::ToWords(t.m_axi_wdata_o, p->wdata.data());
    port::ToWords(t.m_axi_wstrb_o, p->wstrb.data());
    p->wlast = t.m_axi_wlast_o;
    p->bready = t.m_axi_bready_o;
    p->irq = t.irq_o;
    p->trace = t.trace_o;
  }

  bool OpenTrace(const std::string& path) override {
    if (!tracing_allowed_ || trace_) return false;
    trace_ = std::make_unique<VerilatedFstC>();
    top_->trace(trace_.get(), 99);
    trace_->open(path.c_str());
    return trace_->isOpen();
  }
  void DumpTrace(uint64_t time) override {
    if (trace_) trace_->dump(time);
  }
  void CloseTrace() override {
    if (trace_) trace_->close();
    trace_.reset();
  }

 private:
  std::unique_ptr<VerilatedContext> context_;
  bool tracing_allowed_;
  std::unique_ptr<V> top_;
  std::unique_ptr<VerilatedFstC> trace_;
};

}  // namespace loom::tsim

#endif  // LOOM_SIM_TSIM_VERILATED_MODEL_H_
