// A blocked int8 GEMM with optional per-channel requantization, as an accelerator program, plus
// the plain C++ reference it must match bit for bit.
//
//   C[M][N] = A[M][K] x B[N][K]^T       (int32)
//   out     = sat8(relu?(shr_rnd(low32(shr_rnd(C, pre_shift) * multiplier[n]), post_shift)))
//
// The program tiles the output into tile_m x tile_n blocks, streams K in tile_k chunks, and with
// virtual_threads = 2 double-buffers inp/wgt/acc so loads, GEMMs and stores overlap, ordered only
// by dependency tokens. virtual_threads = 1 is the same work serialized.
#ifndef LOOM_SIM_PROGRAMS_GEMM_PROGRAM_H_
#define LOOM_SIM_PROGRAMS_GEMM_PROGRAM_H_

#include <cstdint>
#include <vector>

#include "sim/programs/program.h"

namespace loom::programs {

struct GemmSpec {
  // Sizes in blocks: M = m * batch, K = k * block_in, N = n * block_out.
  uint32_t m = 1, k = 1, n = 1;
  // Tile sizes in blocks; each must divide its dimension.
  uint32_t tile_m = 1, tile_k = 1, tile_n = 1;
  uint32_t virtual_threads = 2;  // 1 or 2
  bool requant = false;
  int32_t pre_shift = 0;
  int32_t post_shift = 0;
  bool relu = false;
};

struct GemmData {
  std::vector<int8_t> a;            // M x K, row-major
  std::vector<int8_t> b;            // N x K, row-major (output channel major, like conv weights)
  std::vector<int32_t> multiplier;  // N, used when requant
};

// Where the result lands, for reading it back.
struct GemmOutput {
  uint64_t addr = 0;   // DRAM byte address of the blocked output
  uint64_t bytes = 0;
};

GemmData RandomGemmData(const HwConfig& config, const GemmSpec& spec, uint32_t seed);
// Checks the spec against the config (divisibility, buffer capacity) and emits the program.
Status BuildGemm(const HwConfig& config, const GemmSpec& spec, const GemmData& data,
                 Program* program, GemmOutput* output);
// The expected output, M x N row-major int8.
std::vector<int8_t> ReferenceGemm(const HwConfig& config, const GemmSpec& spec,
                                  const GemmData& data);
// Converts the program's blocked output ([M/batch][N/block_out][batch][block_out]) to M x N.
std::vector<int8_t> UnblockOutput(const HwConfig& config, const GemmSpec& spec,
                                  const std::vector<uint8_t>& blocked);
// Multiply-accumulates of the whole GEMM (M * N * K).
uint64_t GemmMacs(const HwConfig& config, const GemmSpec& spec);

}  // namespace loom::programs

#endif  // LOOM_SIM_PROGRAMS_GEMM_PROGRAM_H_
