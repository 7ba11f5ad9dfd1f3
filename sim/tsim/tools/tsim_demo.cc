// loom-tsim-demo: runs a double-buffered blocked GEMM with per-channel requantization on the RTL
// (tsim), checks the result bit for bit against the C++ reference and fsim, and prints the RTL's
// counters next to fsim's cycle estimate. --waves FILE records an FST waveform (GTKWave).
#include <CLI/CLI.hpp>
#include <cstdio>
#include <memory>

#include "runtime/config/config_file.h"
#include "runtime/drivers/tsim/tsim_bench.h"
#include "sim/fsim/fsim.h"
#include "sim/programs/gemm_flags.h"
#include "sim/programs/gemm_program.h"

namespace {

using loom::Status;

int Fail(const Status& s) {
  std::fprintf(stderr, "loom-tsim-demo: %s\n", s.ToString().c_str());
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Run an int8 GEMM + requantization program on the accelerator RTL (Verilator)"};
  std::string config_name = "1x8x8", waves;
  loom::programs::GemmSpec spec;
  spec.m = spec.k = spec.n = 8;
  spec.tile_m = spec.tile_k = spec.tile_n = 4;
  spec.requant = spec.relu = true;
  spec.pre_shift = 4;
  spec.post_shift = 19;
  app.add_option("--config", config_name, "hardware config with a tsim model")
      ->capture_default_str();
  loom::programs::AddGemmSizeFlags(app, &spec);
  app.add_option("--virtual-threads", spec.virtual_threads)->capture_default_str();
  app.add_option("--waves", waves, "write an FST waveform of the run to this file");
  CLI11_PARSE(app, argc, argv);

  loom::HwConfig config;
  if (Status s = loom::LoadHwConfig(config_name, &config); !s.ok()) return Fail(s);
  const loom::programs::GemmData data = loom::programs::RandomGemmData(config, spec, 1);
  loom::programs::Program program(config);
  loom::programs::GemmOutput where;
  if (Status s = loom::programs::BuildGemm(config, spec, data, &program, &where); !s.ok()) {
    return Fail(s);
  }
  auto install = [&](loom::sim::Dram& dram) {
    return program.Install(
        [&](uint64_t a, const uint8_t* b, size_t n) { return dram.Write(a, b, n); });
  };

  // On the RTL through the accelerator protocol, as a board runs it.
  std::unique_ptr<loom::runtime::TsimBench> device;
  if (Status s = loom::runtime::TsimBench::Create(config, program.dram_bytes(), &device, waves);
      !s.ok()) {
    return Fail(s);
  }
  if (Status s = install(device->dram()); !s.ok()) return Fail(s);
  loom::runtime::DeviceCounters stats;
  if (Status s = device->Run({program.insn_addr(), program.insn_count()}, &stats); !s.ok()) {
    return Fail(s);
  }
  std::vector<uint8_t> blocked(where.bytes);
  if (Status s = device->dram().Read(where.addr, blocked.data(), blocked.size()); !s.ok()) {
    return Fail(s);
  }
  const bool match = loom::programs::UnblockOutput(config, spec, blocked) ==
                     loom::programs::ReferenceGemm(config, spec, data);

  std::unique_ptr<loom::fsim::Simulator> sim;
  loom::fsim::Stats fstats;
  if (Status s = loom::fsim::Simulator::Create(config, program.dram_bytes(), &sim); !s.ok()) {
    return Fail(s);
  }
  if (Status s = install(sim->dram()); !s.ok()) return Fail(s);
  if (Status s = sim->Run({program.insn_addr(), program.insn_count(), false}, &fstats); !s.ok()) {
    return Fail(s);
  }

  std::printf("tsim %s: GEMM %ux%ux%u, %u instructions: %s the C++ reference\n",
              config.name.c_str(), spec.m * config.batch, spec.k * config.block_in,
              spec.n * config.block_out, program.insn_count(), match ? "matches" : "DIFFERS FROM");
  std::printf("cycles       %llu (fsim estimate %llu, ratio %.3f)\n",
              static_cast<unsigned long long>(stats.cycles),
              static_cast<unsigned long long>(fstats.cycles),
              static_cast<double>(fstats.cycles) / static_cast<double>(stats.cycles));
  std::printf("busy         load %llu, compute %llu, store %llu\n",
              static_cast<unsigned long long>(stats.busy[0]),
              static_cast<unsigned long long>(stats.busy[1]),
              static_cast<unsigned long long>(stats.busy[2]));
  std::printf("macs         %llu (GEMM utilization %.1f %%)\n",
              static_cast<unsigned long long>(stats.macs),
              100.0 * static_cast<double>(stats.macs) /
                  (static_cast<double>(stats.cycles) * config.macs_per_cycle()));
  std::printf("DRAM bytes   read %llu, written %llu\n",
              static_cast<unsigned long long>(stats.bytes_loaded),
              static_cast<unsigned long long>(stats.bytes_stored));
  if (!waves.empty()) std::printf("waveform     %s\n", waves.c_str());
  return match ? 0 : 1;
}
