// Test helper: runs one program on fsim and on tsim (through the accelerator protocol,
// runtime/drivers/tsim/tsim_bench.h) and keeps both DRAM images and statistics.
#ifndef LOOM_TESTS_TSIM_RUN_BOTH_H_
#define LOOM_TESTS_TSIM_RUN_BOTH_H_

#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "runtime/drivers/driver.h"
#include "runtime/drivers/tsim/tsim_bench.h"
#include "sim/fsim/fsim.h"
#include "sim/programs/program.h"

namespace loom::testing {

struct Outcome {
  fsim::Stats fsim;
  runtime::DeviceCounters tsim;
  std::vector<uint8_t> fsim_dram, tsim_dram;
  std::vector<isa::Insn> tsim_program;         // with trace: the stream tsim decoded
  std::vector<sim::TraceEvent> tsim_trace;     // with trace: tsim's instruction timeline
};

// DRAM for a program: what it uses, plus slack for stores past its data.
inline uint64_t DramBytesFor(const programs::Program& p) { return p.dram_bytes() + 4096; }

// `stall_percent` > 0 makes the DRAM model apply random back-pressure (AxiDram::SetStalls).
inline Status RunBoth(const HwConfig& config, const programs::Program& p, Outcome* o,
                      uint32_t stall_percent = 0, uint64_t timeout_cycles = 4000000,
                      bool trace = false) {
  const uint64_t bytes = DramBytesFor(p);
  auto install = [&](sim::Dram& dram) {
    return p.Install([&](uint64_t a, const uint8_t* b, size_t n) { return dram.Write(a, b, n); });
  };
  std::unique_ptr<fsim::Simulator> sim;
  LOOM_RETURN_IF_ERROR(fsim::Simulator::Create(config, bytes, &sim));
  LOOM_RETURN_IF_ERROR(install(sim->dram()));
  LOOM_RETURN_IF_ERROR(
      sim->Run({p.insn_addr(), p.insn_count(), false}, &o->fsim).WithContext("fsim"));
  std::unique_ptr<runtime::TsimBench> dev;
  LOOM_RETURN_IF_ERROR(runtime::TsimBench::Create(config, bytes, &dev));
  LOOM_RETURN_IF_ERROR(install(dev->dram()));
  dev->harness().bus().SetStalls(stall_percent, static_cast<uint32_t>(p.insn_count()));
  runtime::TsimRunOptions options;
  options.insn_addr = p.insn_addr();
  options.insn_count = p.insn_count();
  options.timeout_cycles = timeout_cycles;
  options.trace = trace;
  LOOM_RETURN_IF_ERROR(dev->Run(options, &o->tsim).WithContext("tsim"));
  o->tsim_program = dev->program();
  o->tsim_trace = dev->trace();
  o->fsim_dram.resize(bytes);
  o->tsim_dram.resize(bytes);
  LOOM_RETURN_IF_ERROR(sim->dram().Read(0, o->fsim_dram.data(), bytes));
  return dev->dram().Read(0, o->tsim_dram.data(), bytes);
}

// "N bytes differ:" and the first few, for failure messages.
inline std::string FirstDifferences(const std::vector<uint8_t>& want,
                                    const std::vector<uint8_t>& got) {
  std::string s;
  size_t total = 0;
  for (size_t i = 0; i < want.size() && i < got.size(); ++i) {
    if (want[i] == got[i]) continue;
    if (total++ < 8) {
      char line[96];
      std::snprintf(line, sizeof line, "  byte %zu: expected 0x%02x, got 0x%02x\n", i, want[i],
                    got[i]);
      s += line;
    }
  }
  return std::to_string(total) + " bytes differ:\n" + s;
}

}  // namespace loom::testing

#endif  // LOOM_TESTS_TSIM_RUN_BOTH_H_
