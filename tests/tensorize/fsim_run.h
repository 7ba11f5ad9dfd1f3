// One fsim run of emitted accelerator code, for the emitter tests: the arena and constants are
// byte images (the code's element offsets are relative to them), linked at 4 KiB-aligned bases.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "compiler/tensorize/accel_code.h"
#include "sim/fsim/fsim.h"
#include "sim/programs/program.h"

namespace loom::tensorize {

// Runs `code` to FINISH; `arena` holds the arena after the run.
inline Status RunOnFsim(const HwConfig& config, const AccelCode& code,
                        const std::vector<int8_t>& constants, std::vector<int8_t>* arena,
                        fsim::Stats* stats = nullptr) {
  programs::Program p(config);
  const uint64_t arena_addr = p.AddData(programs::Bytes(*arena), 4096);
  const uint64_t consts_addr = p.AddData(programs::Bytes(constants), 4096);
  uint64_t uops = 0;
  LOOM_RETURN_IF_ERROR(p.AddUops(code.uops, &uops));
  std::vector<isa::Insn> linked;
  LOOM_RETURN_IF_ERROR(Link(config, code, RegionBases{arena_addr, consts_addr, uops}, &linked));
  for (const isa::Insn& i : linked) p.Emit(i);
  p.Emit(programs::Finish());
  LOOM_RETURN_IF_ERROR(p.Finalize());
  std::unique_ptr<fsim::Simulator> sim;
  LOOM_RETURN_IF_ERROR(fsim::Simulator::Create(config, p.dram_bytes(), &sim));
  LOOM_RETURN_IF_ERROR(p.Install(
      [&](uint64_t a, const uint8_t* b, size_t n) { return sim->dram().Write(a, b, n); }));
  fsim::RunOptions o;
  o.insn_addr = p.insn_addr();
  o.insn_count = p.insn_count();
  fsim::Stats local;
  LOOM_RETURN_IF_ERROR(sim->Run(o, stats ? stats : &local));
  return sim->dram().Read(arena_addr, reinterpret_cast<uint8_t*>(arena->data()), arena->size());
}

}  // namespace loom::tensorize
