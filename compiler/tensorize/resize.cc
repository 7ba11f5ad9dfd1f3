#include "compiler/tensorize/resize.h"

#include <algorithm>
#include <vector>

#include "compiler/tensorize/insn_util.h"
#include "runtime/core/blocked_layout.h"

namespace loom::tensorize {

using isa::Buffer;
using isa::Insn;
using isa::Opcode;

namespace {

constexpr uint32_t kMaxDma = (1u << isa::Layout::kSizeBits) - 1;
constexpr uint32_t kThreads = 2;

// Elements per input row and per group of fh output rows.
uint32_t RowOut(const ResizeLayer& l) { return l.factor_h * l.factor_w * l.w; }

// Input rows per tile: the most whose input and outputs fit half of INP and ACC, the loop and the
// DMA size fields.
uint32_t TileRows(const HwConfig& config, const ResizeLayer& l, uint32_t max_rows) {
  const uint32_t rows =
      std::min({config.inp_depth() / kThreads / l.w, config.acc_depth() / kThreads / RowOut(l),
                kMaxDma / RowOut(l), kMaxLoop});
  return std::max(1u, max_rows ? std::min(rows, max_rows) : rows);
}

}  // namespace

ResizeLayer ResizeGeometry(const HwConfig& config, const std::string& name, uint32_t n, uint32_t c,
                           uint32_t h, uint32_t w, uint32_t factor_h, uint32_t factor_w) {
  ResizeLayer l;
  l.name = name;
  l.n_blocks = CeilDiv(n, config.batch);
  l.c_blocks = CeilDiv(c, config.block_in);
  l.h = h;
  l.w = w;
  l.factor_h = factor_h;
  l.factor_w = factor_w;
  return l;
}

Status ResizeLayer::Check(const HwConfig& config) const {
  auto bad = [&](const std::string& why) { return InvalidArgument("layer " + name + ": " + why); };
  if (n_blocks == 0 || c_blocks == 0 || h == 0 || w == 0) return bad("empty resize");
  if (factor_h == 0 || factor_w == 0) return bad("resize factors must be at least 1");
  if (config.block_in != config.block_out) return bad("resize needs block_in == block_out");
  const uint64_t row_out = uint64_t{factor_h} * factor_w * w;
  if (w > config.inp_depth() / kThreads || row_out > config.acc_depth() / kThreads ||
      row_out > kMaxDma || w > kMaxLoop) {
    return bad("a row of " + std::to_string(w) + " elements upsampled " + std::to_string(factor_h) +
               "x" + std::to_string(factor_w) + " (" + std::to_string(row_out) +
               " elements) does not fit half the INP (" +
               std::to_string(config.inp_depth() / kThreads) + ") and ACC (" +
               std::to_string(config.acc_depth() / kThreads) + ") buffers");
  }
  if (uint64_t{kThreads} * factor_h * factor_w > config.uop_depth()) {
    return bad("its " + std::to_string(factor_h * factor_w) +
               " output phases exceed the micro-op buffer");
  }
  const uint64_t rows = uint64_t{n_blocks} * c_blocks * h;
  if (rows * row_out > UINT32_MAX) return bad("output beyond 2^32 elements");
  return Status::Ok();
}

Status EmitResize(const HwConfig& config, const ResizeLayer& l, AccelCode* code,
                  uint32_t max_rows) {
  LOOM_RETURN_IF_ERROR(l.Check(config));
  const uint32_t half_inp = config.inp_depth() / kThreads, half_acc = config.acc_depth() / kThreads;
  const uint32_t row_out = RowOut(l), phases = l.factor_h * l.factor_w;
  const uint32_t rows = l.n_blocks * l.c_blocks * l.h;
  const uint32_t tile = TileRows(config, l, max_rows);
  const uint32_t T = CeilDiv(rows, tile);

  // Thread r's micro-ops: phase (ry, rx) reads the row's element x at its start and writes output
  // row ry, column x * fw + rx; the GEMM's loops add the row (outer) and column (inner) offsets.
  // The reset zeroes every phase; a zero insertion then copies phase (0, 0), the first, only.
  std::vector<isa::Uop> uops;
  for (uint32_t r = 0; r < kThreads; ++r) {
    for (uint32_t ry = 0; ry < l.factor_h; ++ry)
      for (uint32_t rx = 0; rx < l.factor_w; ++rx)
        uops.push_back({r * half_acc + ry * l.factor_w * l.w + rx, r * half_inp, 0});
  }
  const uint32_t copied = l.zeros ? 1 : phases;
  const uint32_t first = code->AddUops(uops);
  code->Emit(LinearDma(Opcode::kLoad, Buffer::kUop, 0, first, static_cast<uint32_t>(uops.size())),
             Region::kUops);
  code->Emit(LinearDma(Opcode::kLoad, Buffer::kWgt, 0, l.identity, 1), Region::kConstants);

  for (uint32_t t = 0; t < T; ++t) {
    const uint32_t r = t % kThreads, g0 = t * tile, n = std::min(tile, rows - g0);
    Insn ld = LinearDma(Opcode::kLoad, Buffer::kInp, r * half_inp, l.data + g0 * l.w, n * l.w);
    ld.deps.pop_next = t >= kThreads;
    ld.deps.push_next = true;
    code->Emit(ld, Region::kArena);
    Insn g;
    g.opcode = Opcode::kGemm;
    g.uop_bgn = r * phases;
    g.uop_end = (r + 1) * phases;
    g.loop_out = n;
    g.loop_in = l.w;
    g.dst_factor_out = row_out;
    g.dst_factor_in = l.factor_w;
    g.src_factor_out = l.w;
    g.src_factor_in = 1;
    Insn reset = g;
    reset.reset = true;
    g.uop_end = r * phases + copied;
    reset.deps.pop_next = t >= kThreads;  // the store of tile t - 2 has drained region r
    code->Emit(reset);
    g.deps.pop_prev = true;
    g.deps.push_prev = t + kThreads < T;
    g.deps.push_next = true;
    code->Emit(g);
    Insn st =
        LinearDma(Opcode::kStore, Buffer::kOut, r * half_acc, l.output + g0 * row_out, n * row_out);
    st.deps.pop_prev = true;
    st.deps.push_prev = t + kThreads < T;
    code->Emit(st, Region::kArena);
  }
  return Status::Ok();
}

}  // namespace loom::tensorize
