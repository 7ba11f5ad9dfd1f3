#include "sim/tsim/axil_master.h"

#include <cstdio>
#include <string>

namespace loom::tsim {

namespace {
std::string Hex(uint32_t v) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "0x%02x", v);
  return buf;
}
}  // namespace

Status AxilMaster::Write(uint32_t offset, uint32_t value, uint32_t strobes) {
  op_ = Op::kWrite;
  addr_ = offset;
  data_ = value;
  strobes_ = strobes;
  addr_done_ = data_done_ = resp_done_ = false;
  const bool ok = ctrl_.StepUntil([&] { return resp_done_; }, kTimeoutCycles);
  op_ = Op::kNone;
  if (!ok) return Internal("AXI-Lite write to " + Hex(offset) + " got no response");
  if (resp_ != 0) return Internal("AXI-Lite write to " + Hex(offset) + " answered " + Hex(resp_));
  return Status::Ok();
}

Status AxilMaster::Read(uint32_t offset, uint32_t* value) {
  op_ = Op::kRead;
  addr_ = offset;
  addr_done_ = resp_done_ = false;
  const bool ok = ctrl_.StepUntil([&] { return resp_done_; }, kTimeoutCycles);
  op_ = Op::kNone;
  if (!ok) return Internal("AXI-Lite read of " + Hex(offset) + " got no response");
  if (resp_ != 0) return Internal("AXI-Lite read of " + Hex(offset) + " answered " + Hex(resp_));
  *value = data_;
  return Status::Ok();
}

void AxilMaster::Reset(Ports* p) {
  p->axil_awvalid = p->axil_wvalid = p->axil_arvalid = false;
  p->axil_bready = p->axil_rready = false;
}

void AxilMaster::Sample(const Ports& p, uint64_t /*cycle*/) {
  if (p.axil_awvalid && p.axil_awready) addr_done_ = true;
  if (p.axil_wvalid && p.axil_wready) data_done_ = true;
  if (p.axil_bvalid && p.axil_bready) {
    resp_done_ = true;
    resp_ = p.axil_bresp;
  }
  if (p.axil_arvalid && p.axil_arready) addr_done_ = true;
  if (p.axil_rvalid && p.axil_rready) {
    resp_done_ = true;
    resp_ = p.axil_rresp;
    data_ = p.axil_rdata;
  }
}

void AxilMaster::Drive(Ports* p, uint64_t /*cycle*/) {
  const bool write = op_ == Op::kWrite && !resp_done_;
  const bool read = op_ == Op::kRead && !resp_done_;
  p->axil_awvalid = write && !addr_done_;
  p->axil_awaddr = addr_;
  p->axil_wvalid = write && !data_done_;
  p->axil_wdata = data_;
  p->axil_wstrb = strobes_;
  p->axil_bready = write;
  p->axil_arvalid = read && !addr_done_;
  p->axil_araddr = addr_;
  p->axil_rready = read;
}

}  // namespace loom::tsim
