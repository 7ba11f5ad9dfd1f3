#include "sim/tsim/axi_dram.h"

#include <algorithm>
#include <cstdio>

namespace loom::tsim {

namespace {
constexpr uint32_t kOkay = 0;
constexpr uint32_t kSlvErr = 2;
constexpr uint32_t kIncr = 1;
constexpr uint64_t k4K = 4096;
}  // namespace

AxiDram::AxiDram(sim::Dram& dram, uint32_t axi_bytes, uint32_t latency)
    : dram_(dram), axi_bytes_(axi_bytes), latency_(std::max<uint32_t>(latency, 1)) {
  reads_.Reserve(HwConfig::kDmaReadsInFlight + 1);
  writes_.Reserve(2);
  early_beats_.Reserve(256);  // a whole burst's data may come before its address
  responses_.Reserve(2);
}

void AxiDram::Check(bool ok, const char* what, uint64_t cycle) {
  if (!ok && error_.empty()) error_ = "cycle " + std::to_string(cycle) + ": " + what;
}

AxiDram::Burst AxiDram::Accept(uint64_t addr, uint32_t len, uint32_t size, uint32_t burst,
                               const char* kind, uint64_t cycle) {
  Burst b;
  b.addr = addr;
  b.beats = len + 1;
  const uint64_t bytes = uint64_t{b.beats} * axi_bytes_;
  // The burst's description is built only for a rule it breaks.
  auto check = [&](bool ok, const char* rule) {
    if (ok) return;
    char at[96];
    std::snprintf(at, sizeof at, "%s burst at 0x%llx (%u beats) %s", kind,
                  static_cast<unsigned long long>(addr), b.beats, rule);
    Check(false, at, cycle);
  };
  check(burst == kIncr, "is not INCR");
  check((1u << size) == axi_bytes_, "does not use full-width beats");
  check(addr % axi_bytes_ == 0, "is not aligned to the bus width");
  check(addr / k4K == (addr + bytes - 1) / k4K, "crosses a 4 KiB boundary");
  b.in_range = dram_.Contains(addr, bytes);
  return b;
}

void AxiDram::SetStalls(uint32_t percent, uint32_t seed) {
  stall_percent_ = percent;
  rng_ = 0x9e3779b97f4a7c15ull ^ seed;
}

bool AxiDram::Stall() {
  if (stall_percent_ == 0) return false;
  rng_ ^= rng_ << 13;  // xorshift64
  rng_ ^= rng_ >> 7;
  rng_ ^= rng_ << 17;
  return rng_ % 100 < stall_percent_;
}

void AxiDram::Reset(Ports* p) {
  reads_.clear();
  writes_.clear();
  early_beats_.clear();
  responses_.clear();
  p->arready = true;
  p->rvalid = false;
  p->rlast = false;
  p->rresp = kOkay;
  p->awready = true;
  p->wready = true;
  p->bvalid = false;
  p->bresp = kOkay;
}

void AxiDram::WriteBeat(const Beat& beat, uint64_t cycle) {
  Burst& b = writes_.front();
  const uint64_t addr = b.addr + uint64_t{b.done} * axi_bytes_;
  if (b.in_range) {
    uint8_t* bytes = dram_.At(addr);
    for (uint32_t i = 0; i < axi_bytes_; ++i) {
      if (beat.strb[i / 32] >> (i % 32) & 1) {
        bytes[i] = static_cast<uint8_t>(beat.data[i / 4] >> (8 * (i % 4)));
      }
    }
  }
  ++b.done;
  Check(beat.last == (b.done == b.beats), "WLAST does not mark the last beat of a write burst",
        cycle);
  if (b.done == b.beats) {
    responses_.push_back({cycle + latency_, b.in_range ? kOkay : kSlvErr});
    writes_.pop_front();
  }
}

void AxiDram::Sample(const Ports& p, uint64_t cycle) {
  // Read address, then data.
  if (p.arvalid && p.arready) {
    // Reads pipeline (HwConfig::kDmaReadsInFlight): each burst's first beat comes the latency
    // after its address, and after the beats of the bursts before it (AXI returns one ID in order).
    Check(reads_.size() < HwConfig::kDmaReadsInFlight,
          "more read bursts in flight than the "
          "accelerator's limit (HwConfig::kDmaReadsInFlight)",
          cycle);
    Burst b = Accept(p.araddr, p.arlen, p.arsize, p.arburst, "read", cycle);
    b.ready = cycle + latency_;
    reads_.push_back(b);
    ++read_bursts_;
  }
  if (p.rvalid && p.rready) {
    Burst& b = reads_.front();
    if (++b.done == b.beats) reads_.pop_front();
  }
  // Write address, data, response.
  if (p.awvalid && p.awready) {
    Check(writes_.empty() && responses_.empty(), "a second write burst while one is outstanding",
          cycle);
    writes_.push_back(Accept(p.awaddr, p.awlen, p.awsize, p.awburst, "write", cycle));
    ++write_bursts_;
    while (!early_beats_.empty() && !writes_.empty()) {
      WriteBeat(early_beats_.front(), cycle);
      early_beats_.pop_front();
    }
  }
  if (p.wvalid && p.wready) {
    Beat beat{p.wdata, p.wstrb, p.wlast};
    if (writes_.empty()) {
      early_beats_.push_back(beat);
    } else {
      WriteBeat(beat, cycle);
    }
  }
  if (p.bvalid && p.bready) responses_.pop_front();
}

void AxiDram::Drive(Ports* p, uint64_t cycle) {
  p->arready = !Stall();
  p->awready = !Stall();
  p->wready = !Stall();
  // A beat or response already offered and not yet taken stays offered.
  const bool keep_r = p->rvalid && !reads_.empty();
  const bool keep_b = p->bvalid && !responses_.empty();
  p->rvalid = false;
  p->rlast = false;
  if (!reads_.empty() && reads_.front().ready <= cycle && (keep_r || !Stall())) {
    const Burst& b = reads_.front();
    const uint64_t addr = b.addr + uint64_t{b.done} * axi_bytes_;
    p->rvalid = true;
    p->rlast = b.done + 1 == b.beats;
    p->rresp = b.in_range ? kOkay : kSlvErr;
    p->rdata.fill(0);
    if (b.in_range) {
      const uint8_t* bytes = dram_.At(addr);
      for (uint32_t i = 0; i < axi_bytes_; ++i)
        p->rdata[i / 4] |= uint32_t{bytes[i]} << (8 * (i % 4));
    }
  }
  p->bvalid = !responses_.empty() && responses_.front().ready <= cycle && (keep_b || !Stall());
  p->bresp = p->bvalid ? responses_.front().resp : kOkay;
}

}  // namespace loom::tsim
