// The command-line flags of a GemmSpec's sizes, shared by the fsim and tsim demos so both take the
// same --m/--k/--n/--tile-* with the same meaning. Header-only: only the tools that already link
// CLI11 include it, so loom_programs itself stays free of it.
#ifndef LOOM_SIM_PROGRAMS_GEMM_FLAGS_H_
#define LOOM_SIM_PROGRAMS_GEMM_FLAGS_H_

#include <CLI/CLI.hpp>

#include "sim/programs/gemm_program.h"

namespace loom::programs {

// Registers --m, --k, --n, --tile-m, --tile-k, --tile-n on `app`, defaulting to spec's values.
inline void AddGemmSizeFlags(CLI::App& app, GemmSpec* spec) {
  app.add_option("--m", spec->m, "rows, in batch blocks")->capture_default_str();
  app.add_option("--k", spec->k, "reduction size, in block_in blocks")->capture_default_str();
  app.add_option("--n", spec->n, "output channels, in block_out blocks")->capture_default_str();
  app.add_option("--tile-m", spec->tile_m)->capture_default_str();
  app.add_option("--tile-k", spec->tile_k)->capture_default_str();
  app.add_option("--tile-n", spec->tile_n)->capture_default_str();
}

}  // namespace loom::programs

#endif  // LOOM_SIM_PROGRAMS_GEMM_FLAGS_H_
