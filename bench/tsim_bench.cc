// tsim host speed: simulated accelerator cycles per host second for every RTL model in the build
// (1x8x8, and 1x16x16 unless -DLOOM_TSIM_1X16X16=OFF), running a double-buffered GEMM + requant.
// program through the accelerator protocol (runtime/drivers/tsim/tsim_bench.h). Not a test: numbers
// depend on the host.
//
//   build/bin/tsim_bench                 # table with cycles/s, MACs/s
#include "runtime/drivers/tsim/tsim_bench.h"

#include <benchmark/benchmark.h>

#include <memory>
#include <string>

#include "runtime/config/config_file.h"
#include "sim/programs/gemm_program.h"
#include "sim/tsim/model.h"

namespace {

using loom::Status;

void BM_TsimGemm(benchmark::State& state, const std::string& config_name) {
  loom::HwConfig config;
  Status s = loom::LoadHwConfig(config_name, &config);
  loom::programs::GemmSpec spec;
  spec.m = spec.k = spec.n = 8;
  spec.tile_m = spec.tile_k = spec.tile_n = 4;
  spec.requant = spec.relu = true;
  spec.pre_shift = 4;
  spec.post_shift = 19;
  loom::programs::Program program(config);
  loom::programs::GemmOutput where;
  if (s.ok()) {
    s = loom::programs::BuildGemm(config, spec, loom::programs::RandomGemmData(config, spec, 1),
                                  &program, &where);
  }
  std::unique_ptr<loom::runtime::TsimBench> device;
  if (s.ok()) s = loom::runtime::TsimBench::Create(config, program.dram_bytes(), &device);
  if (s.ok()) {
    s = program.Install(
        [&](uint64_t a, const uint8_t* b, size_t n) { return device->dram().Write(a, b, n); });
  }
  if (!s.ok()) {
    state.SkipWithError(s.ToString().c_str());
    return;
  }
  uint64_t cycles = 0, macs = 0;
  for (auto _ : state) {
    loom::runtime::DeviceCounters stats;
    s = device->Run({program.insn_addr(), program.insn_count()}, &stats);
    if (!s.ok()) {
      state.SkipWithError(s.ToString().c_str());
      return;
    }
    cycles += stats.cycles;
    macs += stats.macs;
  }
  state.counters["cycles/s"] =
      benchmark::Counter(static_cast<double>(cycles), benchmark::Counter::kIsRate);
  state.counters["MACs/s"] =
      benchmark::Counter(static_cast<double>(macs), benchmark::Counter::kIsRate);
  state.counters["cycles/run"] =
      static_cast<double>(cycles) / static_cast<double>(state.iterations());
}

}  // namespace

int main(int argc, char** argv) {
  for (const loom::tsim::ModelInfo& m : loom::tsim::BuiltModels()) {
    benchmark::RegisterBenchmark(("tsim_gemm/" + std::string(m.name)).c_str(), BM_TsimGemm,
                                 std::string(m.name))
        ->Unit(benchmark::kMillisecond);
  }
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
