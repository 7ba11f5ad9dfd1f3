// loom-fsim-demo: runs a double-buffered blocked GEMM with per-channel requantization on fsim,
// checks it bit for bit against the C++ reference, and prints the cycle report next to the same
// work serialized (one virtual thread), so the effect of latency hiding is visible.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <fstream>

#include "runtime/config/config_file.h"
#include "sim/fsim/fsim.h"
#include "sim/programs/gemm_flags.h"
#include "sim/programs/gemm_program.h"

namespace {

using loom::Status;
using loom::programs::GemmSpec;

struct RunResult {
  loom::fsim::Stats stats;
  std::vector<int8_t> out;
  std::vector<loom::sim::TraceEvent> trace;
  std::vector<loom::isa::Insn> program;
};

Status RunGemm(const loom::HwConfig& config, const GemmSpec& spec,
               const loom::programs::GemmData& data, bool trace, RunResult* result) {
  loom::programs::Program program(config);
  loom::programs::GemmOutput where;
  LOOM_RETURN_IF_ERROR(loom::programs::BuildGemm(config, spec, data, &program, &where));
  std::unique_ptr<loom::fsim::Simulator> sim;
  LOOM_RETURN_IF_ERROR(loom::fsim::Simulator::Create(config, program.dram_bytes(), &sim));
  LOOM_RETURN_IF_ERROR(program.Install([&](uint64_t addr, const uint8_t* bytes, size_t n) {
    return sim->dram().Write(addr, bytes, n);
  }));
  loom::fsim::RunOptions options;
  options.insn_addr = program.insn_addr();
  options.insn_count = program.insn_count();
  options.trace = trace;
  LOOM_RETURN_IF_ERROR(sim->Run(options, &result->stats));
  std::vector<uint8_t> blocked(where.bytes);
  LOOM_RETURN_IF_ERROR(sim->dram().Read(where.addr, blocked.data(), blocked.size()));
  result->out = loom::programs::UnblockOutput(config, spec, blocked);
  result->trace = sim->trace();
  result->program = sim->program();
  return Status::Ok();
}

int Fail(const Status& s) {
  std::fprintf(stderr, "loom-fsim-demo: %s\n", s.ToString().c_str());
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Run a double-buffered int8 GEMM + requantization program on the fsim simulator"};
  std::string config_name = "1x16x16", trace_path;
  GemmSpec spec;
  spec.m = 128;
  spec.k = 16;
  spec.n = 24;
  spec.tile_m = 64;
  spec.tile_k = 8;
  spec.tile_n = 12;
  uint32_t seed = 1;
  app.add_option("--config", config_name, "hardware config name or JSON file")->capture_default_str();
  loom::programs::AddGemmSizeFlags(app, &spec);
  app.add_option("--seed", seed, "random data seed")->capture_default_str();
  app.add_option("--trace", trace_path, "write the Perfetto/Chrome timeline of the double-buffered run");
  CLI11_PARSE(app, argc, argv);

  loom::HwConfig config;
  if (Status s = loom::LoadHwConfig(config_name, &config); !s.ok()) return Fail(s);
  spec.requant = true;
  spec.pre_shift = 4;
  spec.post_shift = 19;
  spec.relu = true;
  const loom::programs::GemmData data = loom::programs::RandomGemmData(config, spec, seed);
  const std::vector<int8_t> expected = loom::programs::ReferenceGemm(config, spec, data);

  std::printf("Loom fsim demo: int8 GEMM %ux%ux%u (M x K x N) + per-channel requantization + ReLU\n",
              spec.m * config.batch, spec.k * config.block_in, spec.n * config.block_out);
  std::printf("config %s (hash %s), tiles %u x %u x %u blocks\n\n", config.name.c_str(),
              config.HashHex().c_str(), spec.tile_m, spec.tile_k, spec.tile_n);

  RunResult serial, overlapped;
  GemmSpec serial_spec = spec;
  serial_spec.virtual_threads = 1;
  if (Status s = RunGemm(config, serial_spec, data, false, &serial); !s.ok()) return Fail(s);
  if (Status s = RunGemm(config, spec, data, !trace_path.empty(), &overlapped); !s.ok()) return Fail(s);

  for (const RunResult* r : {&serial, &overlapped}) {
    if (r->out != expected) {
      std::fprintf(stderr, "loom-fsim-demo: MISMATCH against the C++ reference\n");
      return 1;
    }
  }
  std::printf("result: %zu int8 outputs match the C++ reference bit for bit; first row:",
              expected.size());
  for (size_t i = 0; i < std::min<size_t>(expected.size(), 12); ++i) std::printf(" %d", overlapped.out[i]);
  std::printf(" ...\n\n-- double-buffered (2 virtual threads) --\n%s",
              loom::fsim::FormatReport(overlapped.stats, config).c_str());
  std::printf("\n-- serialized (1 virtual thread) --\n%s",
              loom::fsim::FormatReport(serial.stats, config).c_str());
  std::printf("\nlatency hiding: %.2fx fewer cycles\n",
              static_cast<double>(serial.stats.cycles) / overlapped.stats.cycles);
  if (!trace_path.empty()) {
    std::ofstream(trace_path) << loom::fsim::TraceToJson(overlapped.trace, overlapped.program, config);
    std::printf("timeline written to %s (open in https://ui.perfetto.dev)\n", trace_path.c_str());
  }
  return 0;
}
