// fsim host speed: simulated multiply-accumulates per host second on a large blocked GEMM, and
// simulated cycles per host second. Run: build/bin/fsim_bench
#include <benchmark/benchmark.h>

#include "runtime/config/config_file.h"
#include "sim/fsim/fsim.h"
#include "sim/programs/gemm_program.h"

namespace {

using loom::programs::GemmSpec;

void BM_FsimGemm(benchmark::State& state, const char* config_name, GemmSpec spec) {
  loom::HwConfig config;
  if (loom::Status s = loom::LoadHwConfig(config_name, &config); !s.ok()) {
    state.SkipWithError(s.ToString().c_str());
    return;
  }
  const loom::programs::GemmData data = loom::programs::RandomGemmData(config, spec, 7);
  loom::programs::Program program(config);
  loom::programs::GemmOutput where;
  std::unique_ptr<loom::fsim::Simulator> sim;
  loom::Status s = loom::programs::BuildGemm(config, spec, data, &program, &where);
  if (s.ok()) s = loom::fsim::Simulator::Create(config, program.dram_bytes(), &sim);
  if (s.ok()) {
    s = program.Install([&](uint64_t addr, const uint8_t* bytes, size_t n) {
      return sim->dram().Write(addr, bytes, n);
    });
  }
  if (!s.ok()) {
    state.SkipWithError(s.ToString().c_str());
    return;
  }
  loom::fsim::RunOptions options;
  options.insn_addr = program.insn_addr();
  options.insn_count = program.insn_count();
  loom::fsim::Stats stats;
  for (auto _ : state) {
    s = sim->Run(options, &stats);
    if (!s.ok()) {
      state.SkipWithError(s.ToString().c_str());
      return;
    }
  }
  const double iters = static_cast<double>(state.iterations());
  state.counters["MACs/s"] = benchmark::Counter(iters * stats.macs, benchmark::Counter::kIsRate);
  state.counters["cycles/s"] = benchmark::Counter(iters * stats.cycles, benchmark::Counter::kIsRate);
  state.counters["sim_cycles"] = static_cast<double>(stats.cycles);
  state.counters["utilization"] = stats.gemm_utilization();
}

// 512 x 1024 x 1024 on 1x16x16: 537M MACs, tiles that keep the GEMM core busy.
GemmSpec Large16() {
  GemmSpec s;
  s.m = 512;
  s.k = 64;
  s.n = 64;
  s.tile_m = 64;
  s.tile_k = 8;
  s.tile_n = 8;
  s.requant = true;
  s.pre_shift = 4;
  s.post_shift = 19;
  return s;
}

GemmSpec Small8() {
  GemmSpec s;
  s.m = 64;
  s.k = 32;
  s.n = 32;
  s.tile_m = 32;
  s.tile_k = 4;
  s.tile_n = 8;
  return s;
}

}  // namespace

BENCHMARK_CAPTURE(BM_FsimGemm, gemm_512x1024x1024_1x16x16, "1x16x16", Large16())
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_FsimGemm, gemm_64x256x256_1x8x8, "1x8x8", Small8())
    ->Unit(benchmark::kMillisecond);

BENCHMARK_MAIN();
