// Runs every instruction-level case of sim/programs/isa_cases on fsim, for each shipped config,
// and compares the DRAM bytes each case names with the expectation the case computed from
// docs/isa.md (never from fsim). Also checks that the run's statistics agree with what the
// instructions move and compute, counted here from the instruction list.
#include <gtest/gtest.h>

#include <cstdio>
#include <map>
#include <memory>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "runtime/config/config_file.h"
#include "sim/fsim/fsim.h"
#include "sim/programs/isa_cases.h"

namespace loom {
namespace {

using programs::IsaCase;

const char* const kConfigs[] = {"1x8x8", "1x16x16", "1x32x32"};

struct ConfigCases {
  Status status;
  HwConfig config;
  std::vector<IsaCase> cases;
};

// The cases of one config, built once per process.
const ConfigCases& CasesFor(const std::string& name) {
  static std::map<std::string, ConfigCases> cache;
  auto it = cache.find(name);
  if (it != cache.end()) return it->second;
  ConfigCases cc;
  cc.status = LoadHwConfig(name, &cc.config);
  if (cc.status.ok()) cc.status = programs::BuildIsaCases(cc.config, &cc.cases);
  return cache.emplace(name, std::move(cc)).first->second;
}

// (config, case) pairs. The names are the same for every config; if the cases do not build, a
// single placeholder makes the failure visible as a failing test instead of an empty suite.
std::vector<std::tuple<std::string, std::string>> AllParams() {
  std::vector<std::tuple<std::string, std::string>> params;
  const ConfigCases& first = CasesFor(kConfigs[0]);
  std::vector<std::string> names;
  for (const IsaCase& c : first.cases) names.push_back(c.name);
  if (names.empty()) names.push_back("cases_do_not_build");
  for (const char* config : kConfigs)
    for (const std::string& n : names) params.emplace_back(config, n);
  return params;
}


// "offset 40 (element 5, byte 0): expected 0x12, got 0x00" for the first few differing bytes.
std::string Differences(const std::vector<uint8_t>& want, const std::vector<uint8_t>& got,
                        uint32_t elem_bytes) {
  std::string s;
  size_t shown = 0, total = 0;
  for (size_t i = 0; i < want.size(); ++i) {
    if (want[i] == got[i]) continue;
    ++total;
    if (shown++ >= 8) continue;
    char line[128];
    std::snprintf(line, sizeof line,
                  "  offset %zu (out element %zu, lane %zu): expected 0x%02x, got 0x%02x\n", i,
                  i / elem_bytes, i % elem_bytes, want[i], got[i]);
    s += line;
  }
  return std::to_string(total) + " of " + std::to_string(want.size()) + " bytes differ:\n" + s;
}

// docs/isa.md §1.7: tsim and hardware run the same cases with other timings and queue depths, so
// every case must be well-formed, which fsim finishing it does not prove. A sequential replay must
// never pop an empty queue, never exceed token_queue_depth, and end with all queues empty. Modules
// and queues follow the tables of §1.1 and §1.3. Returns "" or the first violation.
std::string ReplayTokens(const std::vector<isa::Insn>& insns, uint32_t depth) {
  enum { kLC, kCL, kCS, kSC, kNone };
  const char* names[] = {"load->compute", "compute->load", "compute->store", "store->compute"};
  uint32_t count[4] = {};
  for (size_t n = 0; n < insns.size(); ++n) {
    const isa::Insn& i = insns[n];
    const bool load = i.opcode == isa::Opcode::kLoad &&
                      (i.buffer == isa::Buffer::kInp || i.buffer == isa::Buffer::kWgt);
    const bool store = i.opcode == isa::Opcode::kStore;
    const int pops[2] = {load ? kNone : (store ? kCS : kLC), load ? kCL : (store ? kNone : kSC)};
    const int pushes[2] = {load ? kNone : (store ? kSC : kCL), load ? kLC : (store ? kNone : kCS)};
    const bool pop_flags[2] = {i.deps.pop_prev, i.deps.pop_next};
    const bool push_flags[2] = {i.deps.push_prev, i.deps.push_next};
    for (int k = 0; k < 2; ++k) {
      if (!pop_flags[k]) continue;
      if (pops[k] == kNone) return "instruction " + std::to_string(n) + ": invalid pop flag";
      if (count[pops[k]]-- == 0) {
        return "instruction " + std::to_string(n) + " pops empty " + names[pops[k]];
      }
    }
    for (int k = 0; k < 2; ++k) {
      if (!push_flags[k]) continue;
      if (pushes[k] == kNone) return "instruction " + std::to_string(n) + ": invalid push flag";
      if (++count[pushes[k]] > depth) {
        return "instruction " + std::to_string(n) + " overfills " + names[pushes[k]];
      }
    }
  }
  for (int q = 0; q < 4; ++q) {
    if (count[q] != 0) return std::string(names[q]) + " not empty at the end";
  }
  return "";
}

class FsimIsaTest : public ::testing::TestWithParam<std::tuple<std::string, std::string>> {};

TEST_P(FsimIsaTest, MatchesSpec) {
  const auto& [config_name, case_name] = GetParam();
  const ConfigCases& cc = CasesFor(config_name);
  ASSERT_TRUE(cc.status.ok()) << cc.status.ToString();
  const HwConfig& config = cc.config;
  const IsaCase* ic = nullptr;
  for (const IsaCase& c : cc.cases) ic = c.name == case_name ? &c : ic;
  ASSERT_NE(ic, nullptr) << "no case " << case_name << " for " << config_name;
  const programs::Program& p = ic->program;
  EXPECT_EQ(ReplayTokens(p.insns(), config.token_queue_depth), "") << p.Listing();

  std::unique_ptr<fsim::Simulator> sim;
  ASSERT_TRUE(fsim::Simulator::Create(config, p.dram_bytes() + 4096, &sim).ok());
  ASSERT_TRUE(p.Install([&](uint64_t addr, const uint8_t* bytes, size_t n) {
                 return sim->dram().Write(addr, bytes, n);
               }).ok());
  fsim::RunOptions options;
  options.insn_addr = p.insn_addr();
  options.insn_count = p.insn_count();
  fsim::Stats stats;
  const Status run = sim->Run(options, &stats);
  ASSERT_TRUE(run.ok()) << run.ToString() << "\nprogram:\n" << p.Listing();

  ASSERT_FALSE(ic->checks.empty());
  for (const programs::Check& check : ic->checks) {
    std::vector<uint8_t> got(check.expected.size());
    ASSERT_TRUE(sim->dram().Read(check.addr, got.data(), got.size()).ok()) << check.what;
    if (got != check.expected) {
      ADD_FAILURE() << "DRAM at " << check.addr << " (" << check.what
                    << "): " << Differences(check.expected, got, config.out_elem_bytes())
                    << "program:\n"
                    << p.Listing();
    }
  }

  // What the statistics must say, counted from the instructions: DMAs move y*x elements (padding
  // reads no DRAM), a non-reset GEMM iteration is one block of MACs, and every instruction runs.
  uint64_t stored = 0, loaded = 0, macs = 0;
  uint64_t per_module[isa::kNumModules] = {};
  for (const isa::Insn& i : p.insns()) {
    per_module[static_cast<int>(i.module())]++;
    const uint64_t moved = uint64_t{i.y_size} * i.x_size * ElemBytes(config, i.buffer);
    if (i.opcode == isa::Opcode::kStore) stored += moved;
    if (i.opcode == isa::Opcode::kLoad) loaded += moved;
    if (i.opcode == isa::Opcode::kGemm && !i.reset) {
      macs += uint64_t{i.loop_out} * i.loop_in * (i.uop_end - i.uop_bgn) * config.batch *
              config.block_in * config.block_out;
    }
  }
  EXPECT_GT(stats.cycles, 0u);
  EXPECT_EQ(stats.insns, p.insn_count());
  for (int m = 0; m < isa::kNumModules; ++m) EXPECT_EQ(stats.module[m].insns, per_module[m]) << m;
  EXPECT_EQ(stats.bytes_stored, stored);
  EXPECT_EQ(stats.total_bytes_loaded(), loaded);
  EXPECT_EQ(stats.bytes_fetched, uint64_t{p.insn_count()} * HwConfig::kInsnBytes);
  EXPECT_EQ(stats.macs, macs);
  for (int m = 0; m < isa::kNumModules; ++m) {
    EXPECT_LE(stats.module[m].busy + stats.module[m].stalls(), stats.cycles) << m;
  }
}

// "fsim" prefix: the ctest names then match `ctest -R fsim`.
INSTANTIATE_TEST_SUITE_P(fsim, FsimIsaTest, ::testing::ValuesIn(AllParams()),
                         [](const ::testing::TestParamInfo<FsimIsaTest::ParamType>& p) {
                           return std::get<0>(p.param) + "_" + std::get<1>(p.param);
                         });

// The list must not shrink silently: every category of the test plan has a case, on every config.
class IsaCasesTest : public ::testing::TestWithParam<std::string> {};

TEST_P(IsaCasesTest, CoverEveryCategory) {
  const ConfigCases& cc = CasesFor(GetParam());
  ASSERT_TRUE(cc.status.ok()) << cc.status.ToString();
  // clang-format off
  for (const char* name :
       {"out_roundtrip", "padded_load_inp_top", "padded_load_inp_bottom", "padded_load_inp_left",
        "padded_load_inp_right", "padded_load_inp_all", "padded_load_inp_max", "padded_load_acc",
        "padded_load_acc_max", "padded_load_inp_padval_min", "padded_load_inp_padval_37",
        "gemm_reset_accumulate", "gemm_virtual_threads", "alu_reg_ops", "alu_imm_ops",
        "alu_src_dst_loops", "requant_relu", "zero_size_token_carrier", "depthwise_3x3",
        "depthwise_3x3_stride2", "depthwise_5tap", "depthwise_extremes",
        "depthwise_window_carry_clear", "depthwise_long_walk"}) {
    // clang-format on
    bool found = false;
    for (const IsaCase& c : cc.cases) found = found || c.name == name;
    EXPECT_TRUE(found) << name;
  }
}

INSTANTIATE_TEST_SUITE_P(fsim, IsaCasesTest, ::testing::Values("1x8x8", "1x16x16", "1x32x32"),
                         [](const ::testing::TestParamInfo<std::string>& p) { return p.param; });

}  // namespace
}  // namespace loom
