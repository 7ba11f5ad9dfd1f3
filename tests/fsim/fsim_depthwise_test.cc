// The GEMM depthwise mode on fsim (docs/isa.md §3.3.1), one rule at a time: which window slot and
// which channel each weight column reads, the clear at each instruction's start, the config it
// needs, and that it costs what the plain GEMM costs. The whole-program cases (convolutions, int8
// extremes) are in sim/programs/isa_cases and run on every device.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "runtime/config/config_file.h"
#include "sim/fsim/fsim.h"
#include "sim/programs/program.h"

namespace loom {
namespace {

using isa::Buffer;
using isa::Insn;
using isa::Opcode;
using programs::LoadInsn;
using programs::LoopInsn;
using programs::Program;
using programs::StoreInsn;
using ::testing::HasSubstr;

struct RunResult {
  Status status;
  fsim::Stats stats;
  std::vector<int8_t> out;  // the stored OUT elements
};

RunResult RunProgram(const Program& p, uint64_t out_addr, size_t out_bytes) {
  RunResult r;
  std::unique_ptr<fsim::Simulator> sim;
  r.status = fsim::Simulator::Create(p.config(), p.dram_bytes() + 4096, &sim);
  if (!r.status.ok()) return r;
  r.status =
      p.Install([&](uint64_t a, const uint8_t* b, size_t n) { return sim->dram().Write(a, b, n); });
  if (!r.status.ok()) return r;
  fsim::RunOptions o;
  o.insn_addr = p.insn_addr();
  o.insn_count = p.insn_count();
  r.status = sim->Run(o, &r.stats);
  r.out.resize(out_bytes);
  if (r.status.ok()) r.status = sim->dram().Read(out_addr, r.out.data(), out_bytes);
  return r;
}

// INP element s, channel ch: distinct and nonzero for s * block_in + ch < 254, so a probe that
// reads the wrong element, the wrong channel or an uncleared slot shows.
int8_t Probe(uint32_t s, uint32_t ch, uint32_t block_in) {
  const uint32_t k = s * block_in + ch;
  return static_cast<int8_t>(k % 2 == 0 ? int(k / 2) + 1 : -(int(k / 2) + 1));
}

// A program of block_in depthwise GEMMs, one per probe weight j, each over the same K = T + 2
// input elements (1 x K loop, one element per iteration). Probe j gives lane o a single weight 1,
// in column i = (o + j) mod block_in, so ACC[j*K + k][o] is the one window byte that column reads
// after k + 1 shifts. Every (lane, column) pair is probed once. `depthwise` false gives the same
// program with plain GEMMs, for the timing comparison.
Program ProbeProgram(const HwConfig& c, bool depthwise, uint64_t* out_addr) {
  const uint32_t BI = c.block_in, T = BI / 2, K = T + 2;
  Program p(c);
  std::vector<isa::Uop> uops = {{0, 0, 0}};
  for (uint32_t j = 0; j < BI; ++j) uops.push_back({j * K, 0, j});
  uint64_t uop_addr = 0;
  EXPECT_TRUE(p.AddUops(uops, &uop_addr).ok());
  std::vector<int8_t> inp(size_t{K} * BI), wgt(size_t{BI} * BI * BI, 0);
  for (uint32_t s = 0; s < K; ++s)
    for (uint32_t ch = 0; ch < BI; ++ch) inp[s * BI + ch] = Probe(s, ch, BI);
  for (uint32_t j = 0; j < BI; ++j)
    for (uint32_t o = 0; o < BI; ++o) wgt[(size_t{j} * BI + o) * BI + (o + j) % BI] = 1;
  const uint64_t inp_addr = p.AddData(programs::Bytes(inp), 64);
  const uint64_t wgt_addr =
      p.AddData(programs::Bytes(wgt), std::max<uint64_t>(64, c.wgt_elem_bytes()));
  *out_addr = p.Allocate(size_t{BI} * K * BI, 64);
  const uint32_t n = BI * K;
  p.Emit(LoadInsn(Buffer::kUop, 0, static_cast<uint32_t>(uop_addr / 4), 1, BI + 1, BI + 1));
  p.Emit(LoadInsn(Buffer::kInp, 0, static_cast<uint32_t>(inp_addr / c.inp_elem_bytes()), 1, K, K));
  Insn lw =
      LoadInsn(Buffer::kWgt, 0, static_cast<uint32_t>(wgt_addr / c.wgt_elem_bytes()), 1, BI, BI);
  lw.deps.push_next = true;
  p.Emit(lw);
  Insn reset = LoopInsn(Opcode::kGemm, 0, 1, 1, n);
  reset.reset = true;
  reset.dst_factor_in = 1;
  p.Emit(reset);
  for (uint32_t j = 0; j < BI; ++j) {
    Insn g = LoopInsn(Opcode::kGemm, 1 + j, 1, 1, K);
    g.depthwise = depthwise;
    g.dst_factor_in = 1;
    g.src_factor_in = 1;
    g.deps.pop_prev = j == 0;
    g.deps.push_next = j + 1 == BI;
    p.Emit(g);
  }
  Insn st = StoreInsn(0, static_cast<uint32_t>(*out_addr / c.out_elem_bytes()), 1, n, n);
  st.deps.pop_prev = true;
  p.Emit(st);
  p.Emit(programs::Finish());
  EXPECT_TRUE(p.Finalize().ok());
  return p;
}

class FsimDepthwise : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override { ASSERT_TRUE(LoadHwConfig(GetParam(), &c_).ok()); }
  HwConfig c_;
};

// §3.3.1: after the shift, lane o adds WGT[o][i] * window[i mod T][(o & ~1) | (i div T)], where
// slot t holds the element read t iterations ago and is zero before that (the window starts
// cleared at every instruction, although the previous one left it full).
TEST_P(FsimDepthwise, EachColumnReadsItsSlotAndChannel) {
  const uint32_t BI = c_.block_in, T = BI / 2, K = T + 2;
  ASSERT_EQ(c_.batch, 1u);
  ASSERT_LT(K * BI, 254u) << "Probe values must stay distinct";
  uint64_t out_addr = 0;
  const Program p = ProbeProgram(c_, true, &out_addr);
  const RunResult r = RunProgram(p, out_addr, size_t{BI} * K * BI);
  ASSERT_TRUE(r.status.ok()) << r.status.ToString() << "\n" << p.Listing();
  for (uint32_t j = 0; j < BI; ++j)
    for (uint32_t k = 0; k < K; ++k)
      for (uint32_t o = 0; o < BI; ++o) {
        const uint32_t i = (o + j) % BI, slot = i % T, channel = (o & ~1u) | (i / T);
        const int want = k >= slot ? Probe(k - slot, channel, BI) : 0;
        EXPECT_EQ(r.out[(size_t{j} * K + k) * BI + o], want)
            << "probe " << j << " (lane " << o << " column " << i << "), after " << k + 1
            << " elements: slot " << slot << ", channel " << channel;
      }
}

// The mode changes what the array multiplies, not how long it takes: one iteration per cycle, as
// the plain GEMM (sim/fsim/timing.cc), and the same MAC count.
TEST_P(FsimDepthwise, CostsWhatThePlainGemmCosts) {
  uint64_t out_addr = 0;
  const Program dw = ProbeProgram(c_, true, &out_addr);
  const RunResult a = RunProgram(dw, out_addr, 0);
  const Program plain = ProbeProgram(c_, false, &out_addr);
  const RunResult b = RunProgram(plain, out_addr, 0);
  ASSERT_TRUE(a.status.ok()) << a.status.ToString();
  ASSERT_TRUE(b.status.ok()) << b.status.ToString();
  EXPECT_EQ(a.stats.cycles, b.stats.cycles);
  EXPECT_EQ(a.stats.macs, b.stats.macs);
  for (int m = 0; m < isa::kNumModules; ++m)
    EXPECT_EQ(a.stats.module[m].busy, b.stats.module[m].busy);
}

INSTANTIATE_TEST_SUITE_P(fsim, FsimDepthwise, ::testing::Values("1x8x8", "1x16x16"),
                         [](const ::testing::TestParamInfo<std::string>& p) { return p.param; });

// The lane pairs of §3.3.1 need block_in == block_out; fsim says so, naming the config. The same
// program without `depthwise` runs, so the config itself is fine.
TEST(FsimDepthwiseConfig, NeedsBlockInEqualToBlockOut) {
  HwConfig c;
  ASSERT_TRUE(LoadHwConfig("1x16x16", &c).ok());
  c = programs::HalfOutputBlock(c);
  ASSERT_TRUE(c.Validate().ok()) << c.Validate().ToString();
  for (bool depthwise : {false, true}) {
    Program p(c);
    ASSERT_TRUE(programs::OneGemmProgram(depthwise, &p).ok());
    const RunResult r = RunProgram(p, 0, 0);
    if (!depthwise) {
      EXPECT_TRUE(r.status.ok()) << r.status.ToString();
      continue;
    }
    EXPECT_EQ(r.status.code(), StatusCode::kInvalidArgument) << r.status.ToString();
    EXPECT_THAT(r.status.message(), HasSubstr("instruction 1 (gemm depthwise"));
    EXPECT_THAT(r.status.message(), HasSubstr("block_in == block_out"));
    EXPECT_THAT(r.status.message(), HasSubstr("config 1x16x8 has 16x8"));
  }
}

}  // namespace
}  // namespace loom
