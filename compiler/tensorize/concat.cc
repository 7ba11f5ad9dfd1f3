#include "compiler/tensorize/concat.h"

#include <algorithm>

#include "compiler/tensorize/insn_util.h"
#include "runtime/core/blocked_layout.h"

namespace loom::tensorize {

using isa::AluOp;
using isa::Buffer;
using isa::Insn;
using isa::Opcode;

namespace {

constexpr uint32_t kThreads = 2;

// `n` consecutive elements from micro-op `uop`'s destination (and, for GEMM, source).
Insn Run(Opcode op, uint32_t uop, uint32_t n) {
  Insn i;
  i.opcode = op;
  i.uop_bgn = uop;
  i.uop_end = uop + 1;
  i.loop_out = 1;
  i.loop_in = n;
  i.dst_factor_in = 1;
  if (op == Opcode::kGemm) i.src_factor_in = 1;
  return i;
}

Insn AluImm(AluOp op, uint32_t uop, uint32_t n, int32_t imm) {
  Insn i = Run(Opcode::kAlu, uop, n);
  i.alu_op = op;
  i.use_imm = true;
  i.imm = imm;
  return i;
}

struct Copy {
  uint32_t src, dst, n;
  int32_t mult, shift;
};

}  // namespace

Status ConcatLayer::Check(const HwConfig& config) const {
  auto bad = [&](const std::string& why) { return InvalidArgument("layer " + name + ": " + why); };
  if (inputs.empty() || n_blocks == 0 || plane_elems == 0) return bad("empty concatenation");
  if (config.block_in != config.block_out) return bad("concat needs block_in == block_out");
  const int32_t imm_lo = -(1 << (isa::Layout::kImmBits - 1)), imm_hi = -imm_lo - 1;
  uint64_t out_blocks = 0;
  for (size_t i = 0; i < inputs.size(); ++i) {
    const Input& in = inputs[i];
    const std::string which = "input " + std::to_string(i);
    if (in.channels == 0) return bad(which + " has no channels");
    if (i + 1 < inputs.size() && in.channels % config.block_in != 0) {
      return bad(which + " has " + std::to_string(in.channels) +
                 " channels, not a multiple of the channel block " +
                 std::to_string(config.block_in) + ": its successors' lanes would move");
    }
    if (in.mult < imm_lo || in.mult > imm_hi) {
      return bad(which + " multiplier " + std::to_string(in.mult) +
                 " does not fit the ALU's 16-bit immediate");
    }
    if (in.shift < -31 || in.shift > 31) return bad(which + " shift outside [-31, 31]");
    out_blocks += CeilDiv(in.channels, config.block_in);
  }
  if (out_blocks * n_blocks * plane_elems > UINT32_MAX) return bad("tensor beyond 2^32 elements");
  if (std::min(config.inp_depth(), config.acc_depth()) / kThreads < 1)
    return bad("buffers too small");
  return Status::Ok();
}

Status EmitConcat(const HwConfig& config, const ConcatLayer& l, AccelCode* code,
                  uint32_t max_tile) {
  LOOM_RETURN_IF_ERROR(l.Check(config));
  const uint32_t half = std::min(config.inp_depth(), config.acc_depth()) / kThreads;
  const uint32_t te = std::min({half, kMaxLoop, max_tile ? max_tile : UINT32_MAX});
  uint32_t out_blocks = 0;
  for (const ConcatLayer::Input& in : l.inputs) out_blocks += CeilDiv(in.channels, config.block_in);

  // Every (input, batch block) is one contiguous run; runs are cut into tiles of te elements.
  std::vector<Copy> copies;
  uint32_t block_off = 0;
  for (const ConcatLayer::Input& in : l.inputs) {
    const uint32_t blocks = CeilDiv(in.channels, config.block_in);
    const uint32_t run = blocks * l.plane_elems;
    for (uint32_t nb = 0; nb < l.n_blocks; ++nb) {
      const uint32_t src = in.data + nb * run;
      const uint32_t dst = l.output + (nb * out_blocks + block_off) * l.plane_elems;
      for (uint32_t off = 0; off < run; off += te) {
        copies.push_back({src + off, dst + off, std::min(te, run - off), in.mult, in.shift});
      }
    }
    block_off += blocks;
  }
  const uint32_t T = static_cast<uint32_t>(copies.size());

  std::vector<isa::Uop> uops;
  for (uint32_t r = 0; r < kThreads; ++r) uops.push_back({r * half, r * half, 0});
  const uint32_t first = code->AddUops(uops);
  code->Emit(LinearDma(Opcode::kLoad, Buffer::kUop, 0, first, static_cast<uint32_t>(uops.size())),
             Region::kUops);
  code->Emit(LinearDma(Opcode::kLoad, Buffer::kWgt, 0, l.identity, 1), Region::kConstants);

  for (uint32_t t = 0; t < T; ++t) {
    const Copy& cp = copies[t];
    const uint32_t r = t % kThreads, base = r * half;
    Insn ld = LinearDma(Opcode::kLoad, Buffer::kInp, base, cp.src, cp.n);
    ld.deps.pop_next = t >= kThreads;
    ld.deps.push_next = true;
    code->Emit(ld, Region::kArena);
    Insn reset = Run(Opcode::kGemm, r, cp.n);
    reset.reset = true;
    reset.src_factor_in = 0;
    reset.deps.pop_next = t >= kThreads;  // the store of tile t - 2 has drained region r
    code->Emit(reset);
    Insn g = Run(Opcode::kGemm, r, cp.n);
    g.deps.pop_prev = true;
    g.deps.push_prev = t + kThreads < T;
    code->Emit(g);
    if (cp.mult != 1) code->Emit(AluImm(AluOp::kMul, r, cp.n, cp.mult));
    if (cp.shift != 0) code->Emit(AluImm(AluOp::kShrRound, r, cp.n, cp.shift));
    code->last().deps.push_next = true;
    Insn st = LinearDma(Opcode::kStore, Buffer::kOut, base, cp.dst, cp.n);
    st.deps.pop_prev = true;
    st.deps.push_prev = t + kThreads < T;
    code->Emit(st, Region::kArena);
  }
  return Status::Ok();
}

}  // namespace loom::tensorize
