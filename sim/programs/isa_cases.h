// Instruction-level test programs: small, complete accelerator programs, each with the DRAM bytes
// it must leave behind, computed in plain C++ straight from docs/isa.md.
//
// The cases depend only on the ISA, never on a simulator, so the same list runs on fsim, on the
// Verilator RTL (tsim) and on hardware: every program follows the token protocol of docs/isa.md
// §1.3-1.7 (it is race-free and well-formed), reads only buffer elements it wrote, and makes every
// effect observable through STOREs of the OUT buffer.
#ifndef LOOM_SIM_PROGRAMS_ISA_CASES_H_
#define LOOM_SIM_PROGRAMS_ISA_CASES_H_

#include <cstdint>
#include <string>
#include <vector>

#include "runtime/core/hw_config.h"
#include "runtime/core/status.h"
#include "sim/programs/program.h"

namespace loom::programs {

// After the run, DRAM bytes [addr, addr + expected.size()) must equal `expected`. A region may
// include bytes the program must leave untouched (gaps of a strided STORE); those hold the
// program's initial contents in `expected`. `what` says what the bytes are, for failure messages.
struct Check {
  std::string what;
  uint64_t addr = 0;
  std::vector<uint8_t> expected;
};

struct IsaCase {
  std::string name;  // [a-z0-9_], unique; usable as a test name
  Program program;   // finalized, ends with FINISH
  std::vector<Check> checks;
};

// Builds every case for `config` (any valid config whose buffers hold at least 1024 acc and inp
// elements, which includes 1x8x8, 1x16x16 and 1x32x32). Data is seeded, so the programs and their
// expectations are the same on every run. The case names are the same for every config, except
// that the depthwise GEMM cases (docs/isa.md §3.3.1) exist only where block_in == block_out.
Status BuildIsaCases(const HwConfig& config, std::vector<IsaCase>* out);

// A well-formed program that would run for hours on any simulator: for the limits of a run
// (device time, wall clock). Compute runs one GEMM at the largest loop counts over up to 1024
// micro-ops, about 2.7e11 cycles; meanwhile the store module waits for its result on
// compute->store and the load module for leave to reuse its buffers on compute->load, so a run
// stopped early has a position to report for every module:
//   0 load.uop (compute)   1 load.inp   2 load.wgt @push_next
//   3 gemm 16383x16383 @pop_prev @push_prev @push_next   4 store @pop_prev
//   5 load.inp @pop_next   6 finish
// Appends it to `out`; its `checks` are empty: nobody waits for the result.
Status BuildLongRunningCase(const HwConfig& config, std::vector<IsaCase>* out);

}  // namespace loom::programs

#endif  // LOOM_SIM_PROGRAMS_ISA_CASES_H_
