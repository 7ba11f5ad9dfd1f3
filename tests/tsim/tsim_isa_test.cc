// Every instruction-level case of sim/programs/isa_cases, plus two larger blocked GEMMs (double
// buffered and serialized), runs on the RTL (tsim) and on fsim, for every config this build has
// an RTL model of (1x8x8, and 1x16x16 unless -DLOOM_TSIM_1X16X16=OFF). The checks of each case
// must hold on tsim, and tsim must leave exactly fsim's DRAM image behind. fsim's cycle estimate
// must be within 10 % of the RTL's cycle count on every program (docs/fsim.md); the table of both
// is printed.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstdio>
#include <map>
#include <memory>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "runtime/config/config_file.h"
#include "sim/fsim/fsim.h"
#include "sim/programs/gemm_program.h"
#include "sim/programs/isa_cases.h"
#include "sim/tsim/harness.h"
#include "tests/tsim/run_both.h"

namespace loom {
namespace {

using programs::IsaCase;

// fsim's cycles / tsim's cycles must lie in [1 - kTolerance, 1 + kTolerance].
constexpr double kTolerance = 0.10;

using testing::FirstDifferences;
using testing::Outcome;
using testing::RunBoth;

struct Cases {
  Status status;
  HwConfig config;
  std::vector<IsaCase> cases;
};

// A blocked GEMM large enough that the steady state, not the start-up, dominates.
Status AddGemm(const HwConfig& c, const char* name, uint32_t vt, std::vector<IsaCase>* out) {
  programs::GemmSpec s;
  s.m = s.k = s.n = 8;
  s.tile_m = s.tile_k = s.tile_n = 4;
  s.virtual_threads = vt;
  s.requant = s.relu = true;
  s.pre_shift = 4;
  s.post_shift = 19;
  const programs::GemmData d = programs::RandomGemmData(c, s, 7);
  programs::Program p(c);
  programs::GemmOutput where;
  LOOM_RETURN_IF_ERROR(programs::BuildGemm(c, s, d, &p, &where));
  const std::vector<int8_t> ref = programs::ReferenceGemm(c, s, d);
  // Block the reference like the program's output.
  std::vector<uint8_t> blocked;
  const size_t N = size_t{s.n} * c.block_out;
  for (size_t mb = 0; mb < s.m; ++mb)
    for (size_t nb = 0; nb < s.n; ++nb)
      for (size_t b = 0; b < c.batch; ++b)
        for (size_t o = 0; o < c.block_out; ++o)
          blocked.push_back(
              static_cast<uint8_t>(ref[(mb * c.batch + b) * N + nb * c.block_out + o]));
  out->push_back({name, p, {{"blocked GEMM output", where.addr, blocked}}});
  return Status::Ok();
}

const Cases& CasesFor(const std::string& config_name) {
  static std::map<std::string, Cases> cache;
  auto it = cache.find(config_name);
  if (it != cache.end()) return it->second;
  Cases c;
  c.status = LoadHwConfig(config_name, &c.config);
  if (c.status.ok()) c.status = programs::BuildIsaCases(c.config, &c.cases);
  if (c.status.ok()) c.status = AddGemm(c.config, "build_gemm_double_buffered", 2, &c.cases);
  if (c.status.ok()) c.status = AddGemm(c.config, "build_gemm_serialized", 1, &c.cases);
  return cache.emplace(config_name, std::move(c)).first->second;
}

// (config, case) for every RTL model in the build. The case list is the same for every config.
std::vector<std::tuple<std::string, std::string>> AllParams() {
  std::vector<std::tuple<std::string, std::string>> params;
  for (const tsim::ModelInfo& m : tsim::BuiltModels()) {
    const Cases& c = CasesFor(m.name);
    if (c.cases.empty()) params.emplace_back(m.name, "cases_do_not_build");
    for (const IsaCase& ic : c.cases) params.emplace_back(m.name, ic.name);
  }
  return params;
}

const IsaCase* FindCase(const Cases& all, const std::string& name) {
  for (const IsaCase& c : all.cases) {
    if (c.name == name) return &c;
  }
  return nullptr;
}

class TsimIsaTest : public ::testing::TestWithParam<std::tuple<std::string, std::string>> {};

TEST_P(TsimIsaTest, MatchesFsimBitForBit) {
  const auto& [config_name, case_name] = GetParam();
  const Cases& all = CasesFor(config_name);
  ASSERT_TRUE(all.status.ok()) << all.status.ToString();
  const IsaCase* ic = FindCase(all, case_name);
  ASSERT_NE(ic, nullptr);
  Outcome o;
  const Status s = RunBoth(all.config, ic->program, &o, 0, 4000000, /*trace=*/true);
  ASSERT_TRUE(s.ok()) << s.ToString() << "\nprogram:\n" << ic->program.Listing();

  for (const programs::Check& check : ic->checks) {
    const std::vector<uint8_t> got(o.tsim_dram.begin() + check.addr,
                                   o.tsim_dram.begin() + check.addr + check.expected.size());
    EXPECT_EQ(got, check.expected) << check.what << ": " << FirstDifferences(check.expected, got);
  }
  EXPECT_EQ(o.tsim_dram, o.fsim_dram)
      << "DRAM after the run: " << FirstDifferences(o.fsim_dram, o.tsim_dram);

  // The hardware counters agree with fsim's statistics.
  EXPECT_EQ(o.tsim.macs, o.fsim.macs);
  EXPECT_EQ(o.tsim.bytes_loaded, o.fsim.total_bytes_loaded());
  EXPECT_EQ(o.tsim.bytes_stored, o.fsim.bytes_stored);
  EXPECT_EQ(o.tsim.insns, o.fsim.insns);
  EXPECT_GT(o.tsim.cycles, 0u);
  for (int m = 0; m < isa::kNumModules; ++m) EXPECT_LE(o.tsim.busy[m], o.tsim.cycles) << m;

  // The trace port's timeline (sim/tsim/insn_tracer.h): every instruction executes once, on its
  // own module, each module's executions in stream order without overlap, and their lengths add
  // up to the module's *_BUSY counter.
  ASSERT_EQ(o.tsim_program.size(), ic->program.insn_count());
  std::vector<int> executed(o.tsim_program.size(), 0);
  std::array<uint64_t, isa::kNumModules> busy{}, last_end{};
  std::array<int64_t, isa::kNumModules> last_insn;
  last_insn.fill(-1);
  for (const sim::TraceEvent& e : o.tsim_trace) {
    ASSERT_LT(e.insn, o.tsim_program.size());
    EXPECT_LT(e.begin, e.end) << "insn " << e.insn;
    EXPECT_LE(e.end, o.tsim.cycles + 1) << "insn " << e.insn;
    EXPECT_EQ(e.module, o.tsim_program[e.insn].module()) << "insn " << e.insn;
    if (e.kind != sim::TraceEvent::Kind::kExec) continue;
    const auto m = static_cast<size_t>(e.module);
    ++executed[e.insn];
    EXPECT_GT(static_cast<int64_t>(e.insn), last_insn[m]) << "module " << m << " out of order";
    EXPECT_GE(e.begin, last_end[m]) << "insn " << e.insn << " overlaps its predecessor";
    last_insn[m] = e.insn;
    last_end[m] = e.end;
    busy[m] += e.end - e.begin;
  }
  for (size_t i = 0; i < executed.size(); ++i) EXPECT_EQ(executed[i], 1) << "insn " << i;
  for (int m = 0; m < isa::kNumModules; ++m) {
    EXPECT_EQ(busy[static_cast<size_t>(m)], o.tsim.busy[static_cast<size_t>(m)]) << "module " << m;
  }
}

INSTANTIATE_TEST_SUITE_P(Cases, TsimIsaTest, ::testing::ValuesIn(AllParams()),
                         [](const ::testing::TestParamInfo<TsimIsaTest::ParamType>& p) {
                           return std::get<0>(p.param) + "_" + std::get<1>(p.param);
                         });

// The timing model's promise (docs/fsim.md): fsim's estimate within 10 % of the RTL, program by
// program. One test, so that the whole table is printed together.
TEST(TsimCycles, FsimWithinTenPercent) {
  std::vector<std::pair<std::string, double>> outside;
  for (const tsim::ModelInfo& m : tsim::BuiltModels()) {
    const Cases& all = CasesFor(m.name);
    ASSERT_TRUE(all.status.ok()) << all.status.ToString();
    std::printf("\n%-34s %8s %8s %7s\n", ("program (" + std::string(m.name) + ")").c_str(), "fsim",
                "tsim", "ratio");
    for (const IsaCase& ic : all.cases) {
      Outcome o;
      const Status s = RunBoth(all.config, ic.program, &o);
      ASSERT_TRUE(s.ok()) << m.name << " " << ic.name << ": " << s.ToString();
      const double ratio = static_cast<double>(o.fsim.cycles) / static_cast<double>(o.tsim.cycles);
      const bool out = std::fabs(ratio - 1.0) > kTolerance;
      std::printf("%-34s %8llu %8llu %7.3f%s\n", ic.name.c_str(),
                  static_cast<unsigned long long>(o.fsim.cycles),
                  static_cast<unsigned long long>(o.tsim.cycles), ratio,
                  out ? "  <-- outside 10 %" : "");
      if (out) outside.emplace_back(std::string(m.name) + " " + ic.name, ratio);
    }
  }
  std::fflush(stdout);
  for (const auto& [name, ratio] : outside) {
    ADD_FAILURE() << name << ": fsim / tsim cycles = " << ratio << ", outside 1 +- " << kTolerance;
  }
}

}  // namespace
}  // namespace loom
