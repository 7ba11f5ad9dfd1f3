// fsim's timing model: latency hiding by virtual threads, an exact cycle count computed by hand
// from the model's formulas (sim/fsim/timing.h and the scheduler in sim/fsim/fsim.cc), the cycle
// accounting, and the trace.
#include <gtest/gtest.h>

#include <cstdio>
#include <memory>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "runtime/config/config_file.h"
#include "runtime/core/roofline.h"
#include "sim/fsim/fsim.h"
#include "sim/fsim/timing.h"
#include "sim/programs/gemm_program.h"

namespace loom {
namespace {

using programs::GemmSpec;

struct GemmRun {
  Status status;
  fsim::Stats stats;
  std::vector<int8_t> out;
  std::vector<sim::TraceEvent> trace;
  std::vector<isa::Insn> insns;
  std::string trace_json;
};

GemmRun RunGemm(const HwConfig& c, const GemmSpec& spec, const programs::GemmData& data,
                bool trace, bool timing_only = false) {
  GemmRun r;
  programs::Program p(c);
  programs::GemmOutput where;
  r.status = programs::BuildGemm(c, spec, data, &p, &where);
  std::unique_ptr<fsim::Simulator> sim;
  if (r.status.ok()) r.status = fsim::Simulator::Create(c, p.dram_bytes(), &sim);
  if (r.status.ok()) {
    r.status = p.Install(
        [&](uint64_t a, const uint8_t* b, size_t n) { return sim->dram().Write(a, b, n); });
  }
  if (!r.status.ok()) return r;
  fsim::RunOptions o;
  o.insn_addr = p.insn_addr();
  o.insn_count = p.insn_count();
  o.trace = trace;
  o.timing_only = timing_only;
  r.status = sim->Run(o, &r.stats);
  if (!r.status.ok()) return r;
  std::vector<uint8_t> blocked(where.bytes);
  r.status = sim->dram().Read(where.addr, blocked.data(), blocked.size());
  r.out = programs::UnblockOutput(c, spec, blocked);
  r.trace = sim->trace();
  r.insns = sim->program();
  if (trace) r.trace_json = fsim::TraceToJson(r.trace, r.insns, c);
  return r;
}

GemmSpec SmallSpec(uint32_t virtual_threads) {
  GemmSpec s;
  s.m = s.k = s.n = 8;
  s.tile_m = s.tile_k = s.tile_n = 4;  // 4 tiles, 2 K chunks each
  s.virtual_threads = virtual_threads;
  s.requant = s.relu = true;
  s.pre_shift = 4;
  s.post_shift = 19;
  return s;
}

void ExpectAccountingFits(const fsim::Stats& st) {
  for (int m = 0; m < isa::kNumModules; ++m) {
    EXPECT_GT(st.module[m].busy, 0u) << "module " << m;
    EXPECT_LE(st.module[m].busy + st.module[m].stalls(), st.cycles) << "module " << m;
  }
}

class FsimTimingTest : public ::testing::TestWithParam<std::string> {};

// (a) + (c): with two virtual threads, loads, GEMMs and stores overlap; the result does not change.
TEST_P(FsimTimingTest, VirtualThreadsHideLatency) {
  HwConfig c;
  ASSERT_TRUE(LoadHwConfig(GetParam(), &c).ok());
  const programs::GemmData data = programs::RandomGemmData(c, SmallSpec(2), 7);
  const GemmRun serial = RunGemm(c, SmallSpec(1), data, false);
  const GemmRun overlapped = RunGemm(c, SmallSpec(2), data, false);
  ASSERT_TRUE(serial.status.ok()) << serial.status.ToString();
  ASSERT_TRUE(overlapped.status.ok()) << overlapped.status.ToString();
  EXPECT_EQ(serial.out, programs::ReferenceGemm(c, SmallSpec(1), data));
  EXPECT_EQ(overlapped.out, serial.out);
  EXPECT_LT(overlapped.stats.cycles, serial.stats.cycles);
  EXPECT_EQ(overlapped.stats.macs, serial.stats.macs);
  EXPECT_EQ(serial.stats.macs, programs::GemmMacs(c, SmallSpec(1)));
  ExpectAccountingFits(serial.stats);
  ExpectAccountingFits(overlapped.stats);
}

// The compiler's cost model times schedules with timing_only: it must see exactly the cycles and
// statistics of a full run, and must not touch DRAM.
TEST_P(FsimTimingTest, TimingOnlyMatchesFullRun) {
  HwConfig c;
  ASSERT_TRUE(LoadHwConfig(GetParam(), &c).ok());
  const programs::GemmData data = programs::RandomGemmData(c, SmallSpec(2), 11);
  const GemmRun full = RunGemm(c, SmallSpec(2), data, false);
  const GemmRun timed = RunGemm(c, SmallSpec(2), data, false, /*timing_only=*/true);
  ASSERT_TRUE(full.status.ok()) << full.status.ToString();
  ASSERT_TRUE(timed.status.ok()) << timed.status.ToString();
  EXPECT_EQ(timed.stats.cycles, full.stats.cycles);
  EXPECT_EQ(timed.stats.macs, full.stats.macs);
  EXPECT_EQ(timed.stats.alu_lanes, full.stats.alu_lanes);
  EXPECT_EQ(timed.stats.bytes_stored, full.stats.bytes_stored);
  EXPECT_EQ(timed.stats.total_bytes_loaded(), full.stats.total_bytes_loaded());
  for (int m = 0; m < isa::kNumModules; ++m) {
    EXPECT_EQ(timed.stats.module[m].busy, full.stats.module[m].busy);
    EXPECT_EQ(timed.stats.module[m].stalls(), full.stats.module[m].stalls());
  }
  // The output region was never written: it is still zero.
  EXPECT_EQ(timed.out, std::vector<int8_t>(full.out.size(), 0));
  EXPECT_NE(full.out, timed.out);
}

// (b) A strictly serialized program whose cycle count is worked out below from the timing model.
// Every instruction waits for the previous one through a token, so the total is a plain sum.
// The roofline's DRAM rate (runtime/core/roofline.h) is the rate this model sustains: a large
// aligned contiguous load takes its bytes / DramBytesPerCycle, up to the issue cycle, one burst
// latency (paid once: later bursts are in flight behind the first) and rounding.
TEST_P(FsimTimingTest, LargeLoadRunsAtTheRooflineRate) {
  HwConfig c;
  ASSERT_TRUE(LoadHwConfig(GetParam(), &c).ok());
  const fsim::TimingModel tm(c);
  isa::Insn load;
  load.opcode = isa::Opcode::kLoad;
  load.buffer = isa::Buffer::kInp;
  load.y_size = 1;
  load.x_size = 4096;
  load.x_stride = 4096;
  const uint64_t bytes = uint64_t{load.x_size} * c.inp_elem_bytes();
  const uint64_t bound = Roofline(c, 0, bytes, 0).dram_cycles;
  const uint64_t cycles = tm.DmaCycles(load, c.inp_elem_bytes());
  EXPECT_GE(cycles, bound);
  EXPECT_LE(cycles, bound + fsim::TimingModel::kIssueCycles + c.dma_burst_latency + 1);
}

// (Parameterized for the ctest name only: the arithmetic is for 1x16x16.)
class FsimHandTimingTest : public ::testing::TestWithParam<std::string> {};

TEST_P(FsimHandTimingTest, SerializedProgramCycles) {
  HwConfig c;
  ASSERT_TRUE(LoadHwConfig(GetParam(), &c).ok());
  // The arithmetic below assumes these timing parameters.
  ASSERT_EQ(c.axi_data_bits, 64u);  // 8-byte beats
  ASSERT_EQ(c.dma_burst_latency, 32u);
  ASSERT_EQ(c.dma_max_burst_beats, 256u);
  ASSERT_EQ(c.inp_elem_bytes(), 16u);
  ASSERT_EQ(c.wgt_elem_bytes(), 256u);
  ASSERT_EQ(c.out_elem_bytes(), 16u);

  programs::Program p(c);
  uint64_t uop_addr = 1;
  ASSERT_TRUE(p.AddUops({{0, 0, 0}}, &uop_addr).ok());
  const uint64_t x_addr = p.AddData(std::vector<uint8_t>(8 * 16, 1));  // 8 inp elements
  p.Allocate(3840 - p.dram_bytes());                                   // WGT straddles 4 KiB
  const uint64_t w_addr = p.AddData(std::vector<uint8_t>(2 * 256, 1), 256);
  const uint64_t o_addr = p.Allocate(16);
  ASSERT_EQ(uop_addr, 0u);
  ASSERT_EQ(x_addr, 64u);
  ASSERT_EQ(w_addr, 3840u);
  char text[1024];
  std::snprintf(text, sizeof text, R"(
    load.uop sram=0 dram=0 y=1 x=1 stride=1 @push_prev
    load.inp sram=0 dram=%u y=2 x=3 stride=5 pad=1,0,0,0 @pop_next
    load.wgt sram=0 dram=%u y=1 x=2 stride=2 @push_next
    gemm uop=0:1 loop=1x1 dst=0,0 src=0,0 wgt=0,0 @pop_prev
    alu.add uop=0:1 loop=1x1 dst=0,0 imm=0 @push_next
    store.out sram=0 dram=%u y=1 x=1 stride=1 @pop_prev @push_prev
    finish @pop_next)",
                static_cast<unsigned>(x_addr / 16), static_cast<unsigned>(w_addr / 256),
                static_cast<unsigned>(o_addr / 16));
  std::vector<isa::Insn> insns;
  ASSERT_TRUE(isa::Assemble(p.layout(), text, &insns).ok());
  for (const isa::Insn& i : insns) p.Emit(i);
  ASSERT_TRUE(p.Finalize().ok());
  std::unique_ptr<fsim::Simulator> sim;
  ASSERT_TRUE(fsim::Simulator::Create(c, p.dram_bytes(), &sim).ok());
  ASSERT_TRUE(p.Install([&](uint64_t a, const uint8_t* b, size_t n) {
                 return sim->dram().Write(a, b, n);
               }).ok());
  fsim::RunOptions o;
  o.insn_addr = p.insn_addr();
  o.insn_count = p.insn_count();
  fsim::Stats st;
  const Status s = sim->Run(o, &st);
  ASSERT_TRUE(s.ok()) << s.ToString();

  // Fetch: one burst holds 256 beats / 2 beats per instruction = 128 instructions, so all 7 come
  // in one burst: the burst latency, then 2 beats each. Instruction i reaches its queue at
  // 32 + 2(i + 1): 34, 36, 38, ...
  const uint64_t dispatch0 = 32 + 2;
  // 0 load.uop (compute): starts when fetched. DMA = issue 1 + one burst of 4 bytes
  //   (latency 32 + max(1 beat, 1 element)) = 34.
  const uint64_t uop_dma = 1 + 32 + 1;
  const uint64_t end0 = dispatch0 + uop_dma;  // 68, pushes compute->load
  // 1 load.inp: pops that token, so starts at 68 (fetched at 36). x_stride 5 != x_size 3, so one
  //   burst per row: 3 elements x 16 bytes = 48 bytes = 6 beats (start 16-byte aligned, inside
  //   one 4 KiB page). The second row's address goes out a cycle after the first's, so its data
  //   follow the first row's at once: 32 + 6 + 6. Padding: (1 + 2) x 3 - 2 x 3 = 3 elements, 1
  //   cycle each. Plus issue 1.
  const uint64_t inp_dma = 1 + 32 + 2 * 6 + 3;  // 48
  const uint64_t end1 = end0 + inp_dma;         // 116
  // 2 load.wgt: y_size 1, one transfer of 2 x 256 = 512 bytes from 3840, split at 4096 into two
  //   bursts of 256 bytes = 32 beats (1 element) each, in flight together: 32 + 2 x 32, plus
  //   issue 1.
  const uint64_t wgt_dma = 1 + 32 + 2 * 32;  // 97
  const uint64_t end2 = end1 + wgt_dma;      // 213, pushes load->compute
  // 3 gemm: pops at 277. Issue 1 + pipeline 4 + 1 iteration.
  const uint64_t end3 = end2 + 1 + 4 + 1;  // 219
  // 4 alu (immediate): issue 1 + pipeline 3 + 1 iteration x 1 cycle; pushes compute->store.
  const uint64_t end4 = end3 + 1 + 3 + 1;  // 224
  // 5 store: pops at 224; 16 bytes = 2 beats, 1 element: issue 1 + 32 + 2. Pushes store->compute.
  const uint64_t store_dma = 1 + 32 + 2;   // 35
  const uint64_t end5 = end4 + store_dma;  // 259
  // 6 finish: pops at 259; load (idle since 213) and store (259) are done; issue 1.
  const uint64_t end6 = end5 + 1;  // 260
  EXPECT_EQ(st.cycles, end6);
  EXPECT_EQ(st.cycles, 260u);
  EXPECT_EQ(st.macs, 256u);  // one 1 x 16 x 16 block
  EXPECT_DOUBLE_EQ(st.gemm_utilization(), 256.0 / (260.0 * 256.0));

  const fsim::ModuleStats& load = st.module[0];
  const fsim::ModuleStats& compute = st.module[1];
  const fsim::ModuleStats& store = st.module[2];
  EXPECT_EQ(load.busy, inp_dma + wgt_dma);
  EXPECT_EQ(compute.busy, uop_dma + 6 + 5 + 1);
  EXPECT_EQ(store.busy, store_dma);
  // Compute waits for the first fetch, then for the loads (68 -> 213), then for the store.
  EXPECT_EQ(compute.stall_fetch, dispatch0);
  EXPECT_EQ(compute.stall_pop[static_cast<int>(isa::Queue::kLoadToCompute)], end2 - end0);
  EXPECT_EQ(compute.stall_pop[static_cast<int>(isa::Queue::kStoreToCompute)], end5 - end4);
  EXPECT_EQ(compute.busy + compute.stalls(), st.cycles);  // compute runs until the end
  for (const fsim::ModuleStats* m : {&load, &compute, &store}) {
    EXPECT_LE(m->busy + m->stalls(), st.cycles);
  }
}

// (d) The trace has one exec interval per instruction, on the right module, with begin < end,
// and its JSON export parses.
TEST_P(FsimTimingTest, TraceCoversEveryInstruction) {
  HwConfig c;
  ASSERT_TRUE(LoadHwConfig(GetParam(), &c).ok());
  const GemmRun r = RunGemm(c, SmallSpec(2), programs::RandomGemmData(c, SmallSpec(2), 3), true);
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  std::vector<int> execs(r.insns.size(), 0);
  for (const sim::TraceEvent& e : r.trace) {
    EXPECT_LE(e.begin, e.end);
    EXPECT_LE(e.end, r.stats.cycles);
    if (e.kind != sim::TraceEvent::Kind::kExec) continue;
    ASSERT_LT(e.insn, r.insns.size());
    execs[e.insn]++;
    EXPECT_LT(e.begin, e.end) << "instruction " << e.insn;
    EXPECT_EQ(e.module, r.insns[e.insn].module()) << "instruction " << e.insn;
  }
  for (size_t i = 0; i < execs.size(); ++i) EXPECT_EQ(execs[i], 1) << "instruction " << i;

  const nlohmann::json j = nlohmann::json::parse(r.trace_json, nullptr, /*allow_exceptions=*/false);
  ASSERT_FALSE(j.is_discarded());
  ASSERT_TRUE(j.contains("traceEvents"));
  ASSERT_TRUE(j["traceEvents"].is_array());
  size_t complete = 0;
  for (const auto& ev : j["traceEvents"]) complete += ev.value("ph", "") == "X";
  EXPECT_GE(complete, r.insns.size());
}

// The ALU's cost per form, as docs/rtl.md's timing table measures the RTL: one ACC read per
// iteration with an immediate and for REQUANT, two with a register operand; RQPARAM reads two but
// writes RQP in the ALU stage, so it ends one stage before a register-form op of the same loop.
TEST(FsimAluTiming, CostPerForm) {
  HwConfig c;
  ASSERT_TRUE(LoadHwConfig("1x16x16", &c).ok());
  const fsim::TimingModel m(c);
  isa::Insn i;
  i.opcode = isa::Opcode::kAlu;
  i.uop_bgn = 0;
  i.uop_end = 2;
  i.loop_out = 3;
  i.loop_in = 5;  // 30 iterations
  i.alu_op = isa::AluOp::kAdd;
  EXPECT_EQ(m.AluCycles(i), 1u + 3u + 2u * 30u);
  i.alu_op = isa::AluOp::kRqParam;
  EXPECT_EQ(m.AluCycles(i), 1u + 2u + 2u * 30u);
  i.alu_op = isa::AluOp::kRequant;
  EXPECT_EQ(m.AluCycles(i), 1u + 3u + 30u);
  i.alu_op = isa::AluOp::kMax;
  i.use_imm = true;
  EXPECT_EQ(m.AluCycles(i), 1u + 3u + 30u);
}

// The depthwise mode (docs/isa.md §3.3.1) changes what the array multiplies, not its rate: one
// iteration per cycle, as the plain GEMM (fsim_depthwise_test compares whole runs).
TEST(FsimGemmTiming, DepthwiseCostsThePlainGemm) {
  HwConfig c;
  ASSERT_TRUE(LoadHwConfig("1x16x16", &c).ok());
  const fsim::TimingModel m(c);
  isa::Insn i;
  i.opcode = isa::Opcode::kGemm;
  i.uop_bgn = 3;
  i.uop_end = 10;
  i.loop_out = 4;
  i.loop_in = 3;  // 84 iterations
  const uint64_t plain = m.GemmCycles(i);
  EXPECT_EQ(plain, fsim::TimingModel::kIssueCycles + fsim::TimingModel::kGemmPipeline + 84u);
  i.depthwise = true;
  EXPECT_EQ(m.GemmCycles(i), plain);
}

// "fsim" prefix: the ctest names then match `ctest -R fsim`.
auto ConfigName = [](const ::testing::TestParamInfo<std::string>& p) { return p.param; };
INSTANTIATE_TEST_SUITE_P(fsim, FsimTimingTest, ::testing::Values("1x8x8", "1x16x16", "1x32x32"),
                         ConfigName);
INSTANTIATE_TEST_SUITE_P(fsim, FsimHandTimingTest, ::testing::Values("1x16x16"), ConfigName);

}  // namespace
}  // namespace loom
