#include "compiler/tensorize/mul.h"

#include <algorithm>
#include <vector>

#include "compiler/tensorize/eltwise.h"
#include "compiler/tensorize/insn_util.h"
#include "runtime/core/blocked_layout.h"

namespace loom::tensorize {

using isa::AluOp;
using isa::Buffer;
using isa::Insn;
using isa::Opcode;

namespace {

constexpr uint32_t kThreads = 2;

// `rows` x `cols` elements from micro-op `uop`'s destination, rows `cols` apart.
Insn Pass(Opcode op, uint32_t uop, uint32_t rows, uint32_t cols) {
  Insn i;
  i.opcode = op;
  i.uop_bgn = uop;
  i.uop_end = uop + 1;
  i.loop_out = rows;
  i.loop_in = cols;
  i.dst_factor_out = cols;
  i.dst_factor_in = 1;
  if (op == Opcode::kGemm) {  // the identity copy reads INP where it writes ACC
    i.src_factor_out = cols;
    i.src_factor_in = 1;
  }
  return i;
}

Insn AluImm(AluOp op, uint32_t uop, uint32_t rows, uint32_t cols, int32_t imm) {
  Insn i = Pass(Opcode::kAlu, uop, rows, cols);
  i.alu_op = op;
  i.use_imm = true;
  i.imm = imm;
  return i;
}

// One tile: `rows` x `cols` elements of a from a_off (contiguous), and b's elements from b_off
// (`rows` of them when b is per channel: one per plane; else rows x cols).
struct Tile {
  uint32_t a_off, b_off, rows, cols;
};

// A DMA of the tile's rows x cols a (or same-shape b) elements, which are contiguous.
Insn Rows(Insn i, const Tile& t) {
  i.y_size = t.rows;
  i.x_size = t.cols;
  i.x_stride = t.cols;
  return i;
}

struct Plan {
  uint32_t a_cap = 0, b_cap = 0;  // per thread, in INP/ACC elements
  std::vector<Tile> tiles;
};

// ACC elements past the threads' regions that hold RQP entry 0's bias and multiplier.
constexpr uint32_t kRqScratch = 2;

// INP and ACC elements per thread: [a tile | b tile] (ACC less the scratch when fused).
uint32_t Half(const HwConfig& config, const MulLayer& l) {
  return std::min(config.inp_depth(), config.acc_depth() - (l.fused_requant() ? kRqScratch : 0)) /
         kThreads;
}

Plan MakePlan(const HwConfig& config, const MulLayer& l, uint32_t max_tile) {
  Plan p;
  const uint32_t half = Half(config, l);
  const uint32_t cap = max_tile ? max_tile : UINT32_MAX;
  const uint32_t hw = l.plane_elems;
  if (!l.b_per_channel) {
    const uint64_t total = uint64_t{l.planes} * hw;
    const uint32_t te = static_cast<uint32_t>(std::min<uint64_t>({half / 2, kMaxLoop, cap, total}));
    p.a_cap = p.b_cap = te;
    for (uint64_t off = 0; off < total; off += te) {
      const uint32_t n = static_cast<uint32_t>(std::min<uint64_t>(te, total - off));
      p.tiles.push_back({static_cast<uint32_t>(off), static_cast<uint32_t>(off), 1, n});
    }
  } else if (hw + 1 <= half && hw <= kMaxLoop && hw <= cap) {
    // Whole planes: k of them with their k gate elements.
    const uint32_t k = std::min({half / (hw + 1), l.planes, kMaxLoop, cap / hw});
    p.a_cap = k * hw;
    p.b_cap = k;
    for (uint32_t p0 = 0; p0 < l.planes; p0 += k) {
      p.tiles.push_back({p0 * hw, p0, std::min(k, l.planes - p0), hw});
    }
  } else {
    // Chunks of one plane, all scaled by that plane's gate element.
    const uint32_t te = std::min({half - 1, kMaxLoop, cap});
    p.a_cap = te;
    p.b_cap = 1;
    for (uint32_t pl = 0; pl < l.planes; ++pl) {
      for (uint32_t c0 = 0; c0 < hw; c0 += te) {
        p.tiles.push_back({pl * hw + c0, pl, 1, std::min(te, hw - c0)});
      }
    }
  }
  return p;
}

}  // namespace

MulLayer MulGeometry(const HwConfig& config, const std::string& name, uint32_t n, uint32_t c,
                     uint32_t h, uint32_t w, bool b_per_channel) {
  MulLayer l;
  l.name = name;
  l.planes = CeilDiv(n, config.batch) * CeilDiv(c, config.block_in);
  l.plane_elems = h * w;
  l.b_per_channel = b_per_channel;
  l.padding_lanes = HasPaddingLanes(config.batch, config.block_in, n, c);
  return l;
}

bool MulLayer::fused_requant() const {
  return out_offset == 0 && isa::RequantShiftValid(pre_shift) && isa::RequantShiftValid(post_shift);
}

Status MulLayer::Check(const HwConfig& config) const {
  auto bad = [&](const std::string& why) { return InvalidArgument("layer " + name + ": " + why); };
  if (planes == 0 || plane_elems == 0) return bad("empty tensor");
  if (uint64_t{planes} * plane_elems > UINT32_MAX) return bad("tensor beyond 2^32 elements");
  if (config.block_in != config.block_out) return bad("mul needs block_in == block_out");
  const int32_t imm_lo = -(1 << (isa::Layout::kImmBits - 1)), imm_hi = -imm_lo - 1;
  for (int32_t v : {mult, b_mult, b_offset, b_lo, b_hi}) {
    if (v < imm_lo || v > imm_hi) {
      return bad("multiplier and clamp of b must fit the ALU's 16-bit immediate, got " +
                 std::to_string(v));
    }
  }
  if (b_lo > b_hi) return bad("empty clamp of b");
  if (same_operand && b_per_channel) return bad("a per-channel b cannot be a itself");
  if (pre_shift < -31 || pre_shift > 31 || post_shift < -31 || post_shift > 31) {
    return bad("shift outside [-31, 31]");
  }
  if (clip_lo > clip_hi || clip_lo < -128 || clip_hi > 127) return bad("bad clip range");
  if (const std::string why =
          OffsetsProblem(config, "a_offset", a_offset, out_offset, padding_lanes);
      !why.empty()) {
    return bad(why);
  }
  if (padding_lanes && (clip_lo > 0 || clip_hi < 0)) {
    return bad("clip [" + std::to_string(clip_lo) + ", " + std::to_string(clip_hi) +
               "] excludes 0, which padding lanes must keep");
  }
  if (std::min(config.inp_depth(), config.acc_depth()) / kThreads < 2) {
    return bad("buffers too small");
  }
  return Status::Ok();
}

Status EmitMul(const HwConfig& config, const MulLayer& l, AccelCode* code, uint32_t max_tile) {
  LOOM_RETURN_IF_ERROR(l.Check(config));
  const uint32_t half = Half(config, l);
  const bool fused = l.fused_requant();
  const Plan plan = MakePlan(config, l, max_tile);
  const uint32_t T = static_cast<uint32_t>(plan.tiles.size());

  // Micro-ops per thread r: [copy a, copy b, a *= b, b += a]; INP and ACC share the offsets.
  constexpr uint32_t kUopsPerThread = 4;
  std::vector<isa::Uop> uops;
  for (uint32_t r = 0; r < kThreads; ++r) {
    const uint32_t a = r * half, b = a + plan.a_cap;
    uops.push_back({a, a, 0});
    uops.push_back({b, b, 0});
    uops.push_back({a, b, 0});
    uops.push_back({b, a, 0});
  }
  const uint32_t params = static_cast<uint32_t>(uops.size());
  if (fused) AppendRqParamUops(config.acc_depth() - kRqScratch, &uops);
  const uint32_t first = code->AddUops(uops);
  code->Emit(LinearDma(Opcode::kLoad, Buffer::kUop, 0, first, static_cast<uint32_t>(uops.size())),
             Region::kUops);
  code->Emit(LinearDma(Opcode::kLoad, Buffer::kWgt, 0, l.identity, 1), Region::kConstants);
  if (fused) EmitRqParamEntry0(params, 0, l.mult, code);
  const bool clamp_b = l.b_mult != 1 || l.b_offset != 0 || l.b_lo > -128 || l.b_hi < 127;
  const bool load_b = !l.same_operand;

  ZeroedAcc zero_a(kThreads);
  for (uint32_t t = 0; t < T; ++t) {
    const Tile& tile = plan.tiles[t];
    const uint32_t r = t % kThreads, u = kUopsPerThread * r, base = r * half;
    const uint32_t nb = l.b_per_channel ? tile.rows : tile.rows * tile.cols;
    // load: both operands into region r once compute has finished with it.
    Insn la = Rows(LinearDma(Opcode::kLoad, Buffer::kInp, base, l.a + tile.a_off, 0), tile);
    la.deps.pop_next = t >= kThreads;
    la.deps.push_next = !load_b;
    code->Emit(la, Region::kArena);
    if (load_b) {
      Insn lb = LinearDma(Opcode::kLoad, Buffer::kInp, base + plan.a_cap, l.b + tile.b_off, nb);
      if (!l.b_per_channel) lb = Rows(lb, tile);
      lb.deps.push_next = true;
      code->Emit(lb, Region::kArena);
    }
    // compute: copy both into ACC, clamp b, multiply, requantize.
    // The store of tile t - 2 must have drained region r first. The fused REQUANT leaves a's plane
    // zero (isa.md §3.4.1): a tile inside what it cleared skips a's reset; b's plane is reset
    // every tile.
    const bool a_zero = fused && zero_a.Covers(r, 1, tile.rows * tile.cols);
    if (!a_zero) {
      Insn reset_a = Pass(Opcode::kGemm, u, tile.rows, tile.cols);
      reset_a.reset = true;
      reset_a.src_factor_out = reset_a.src_factor_in = 0;
      reset_a.deps.pop_next = t >= kThreads;
      code->Emit(reset_a);
      zero_a.Cleared(r, 1, tile.rows * tile.cols);
    }
    Insn reset_b = Pass(Opcode::kGemm, u + 1, 1, nb);
    reset_b.reset = true;
    reset_b.src_factor_out = reset_b.src_factor_in = 0;
    reset_b.deps.pop_next = a_zero;
    code->Emit(reset_b);
    Insn copy_a = Pass(Opcode::kGemm, u, tile.rows, tile.cols);
    copy_a.deps.pop_prev = true;
    copy_a.deps.push_prev = !load_b && t + kThreads < T;
    code->Emit(copy_a);
    if (load_b) {
      Insn copy_b = Pass(Opcode::kGemm, u + 1, 1, nb);
      copy_b.deps.push_prev = t + kThreads < T;  // INP region r is free for tile t + 2
      code->Emit(copy_b);
    } else {
      Insn add = Pass(Opcode::kAlu, u + 3, 1, nb);  // b = 0 + a
      add.alu_op = AluOp::kAdd;
      add.src_factor_in = 1;
      code->Emit(add);
    }
    if (clamp_b) {
      if (l.b_mult != 1) code->Emit(AluImm(AluOp::kMul, u + 1, 1, nb, l.b_mult));
      if (l.b_offset != 0) code->Emit(AluImm(AluOp::kAdd, u + 1, 1, nb, l.b_offset));
      code->Emit(AluImm(AluOp::kMax, u + 1, 1, nb, l.b_lo));
      code->Emit(AluImm(AluOp::kMin, u + 1, 1, nb, l.b_hi));
    }
    // a's zero point: after b's copy of a (hard-swish), before the product.
    if (l.a_offset != 0) code->Emit(AluImm(AluOp::kAdd, u, tile.rows, tile.cols, l.a_offset));
    Insn mul = Pass(Opcode::kAlu, u + 2, tile.rows, tile.cols);
    mul.alu_op = AluOp::kMul;
    mul.src_factor_out = l.b_per_channel ? 1 : tile.cols;
    mul.src_factor_in = l.b_per_channel ? 0 : 1;
    code->Emit(mul);
    if (fused) {  // on a's plane (its copy micro-op: dst a, wgt 0 = RQP entry 0)
      Insn rq = Pass(Opcode::kAlu, u, tile.rows, tile.cols);
      rq.alu_op = AluOp::kRequant;
      rq.pre_shift = l.pre_shift;
      rq.post_shift = l.post_shift;
      rq.clip_lo = l.clip_lo;
      rq.clip_hi = l.clip_hi;
      rq.clear = true;  // a's plane's last reader
      code->Emit(rq);
    } else {
      if (l.pre_shift != 0)
        code->Emit(AluImm(AluOp::kShrRound, u, tile.rows, tile.cols, l.pre_shift));
      if (l.mult != 1) code->Emit(AluImm(AluOp::kMul, u, tile.rows, tile.cols, l.mult));
      if (l.post_shift != 0)
        code->Emit(AluImm(AluOp::kShrRound, u, tile.rows, tile.cols, l.post_shift));
      // The output's zero point, wrapping as qops.h Requantize adds it: before the clip.
      if (l.out_offset != 0) {
        code->Emit(AluImm(AluOp::kAdd, u, tile.rows, tile.cols, l.out_offset));
      }
      if (l.clip_lo > -128) code->Emit(AluImm(AluOp::kMax, u, tile.rows, tile.cols, l.clip_lo));
      if (l.clip_hi < 127) code->Emit(AluImm(AluOp::kMin, u, tile.rows, tile.cols, l.clip_hi));
    }
    code->last().deps.push_next = true;
    // store
    Insn st = Rows(LinearDma(Opcode::kStore, Buffer::kOut, base, l.output + tile.a_off, 0), tile);
    st.deps.pop_prev = true;
    st.deps.push_prev = t + kThreads < T;
    code->Emit(st, Region::kArena);
  }
  return Status::Ok();
}

}  // namespace loom::tensorize
