#include "compiler/tensorize/eltwise.h"

#include <algorithm>
#include <cmath>

#include "compiler/tensorize/insn_util.h"
#include "runtime/core/blocked_layout.h"

namespace loom::tensorize {

using isa::AluOp;
using isa::Buffer;
using isa::Insn;
using isa::Opcode;

namespace {

// One pass over `n` consecutive elements: loop 1 x n, destination (and source) advancing by one.
Insn Run(Opcode op, uint32_t uop, uint32_t n) {
  Insn i;
  i.opcode = op;
  i.uop_bgn = uop;
  i.uop_end = uop + (op == Opcode::kGemm ? 2 : 1);
  i.loop_out = 1;
  i.loop_in = n;
  i.dst_factor_in = 1;
  i.src_factor_in = 1;
  return i;
}

Insn AluImm(AluOp op, uint32_t uop, uint32_t n, int32_t imm) {
  Insn i = Run(Opcode::kAlu, uop, n);
  i.alu_op = op;
  i.use_imm = true;
  i.imm = imm;
  i.src_factor_in = 0;
  return i;
}

}  // namespace

// RQP entry 0 as bias 0 and one multiplier for every lane, made on chip in the last two ACC
// elements, zero and zero + 1, so that it needs no constants: two micro-ops ({zero, zero + 1}:
// RQPARAM's bias and multiplier; {zero + 1}: the element set to the multiplier) appended to
// `uops`, where they land at index `params`...
void AppendRqParamUops(uint32_t zero, std::vector<isa::Uop>* uops) {
  uops->push_back({zero, zero + 1, 0});
  uops->push_back({zero + 1, 0, 0});
}

// ...and the instructions that use them: a GEMM reset of both elements, ADD `bias` (wrapping to
// int32, in as many immediates as it needs) to the first and `mult` to the second, RQPARAM.
void EmitRqParamEntry0(uint32_t params, int64_t bias, int32_t mult, AccelCode* code) {
  Insn reset = Run(Opcode::kGemm, params, 1);
  reset.reset = true;
  reset.src_factor_in = 0;
  reset.dst_factor_in = 0;
  code->Emit(reset);
  for (int32_t imm : AddImmediates(bias)) {
    Insn add = AluImm(AluOp::kAdd, params, 1, imm);
    add.dst_factor_in = 0;
    code->Emit(add);
  }
  Insn set = AluImm(AluOp::kAdd, params + 1, 1, mult);
  set.dst_factor_in = 0;
  code->Emit(set);
  Insn rqp = Run(Opcode::kAlu, params, 1);
  rqp.alu_op = AluOp::kRqParam;
  rqp.dst_factor_in = rqp.src_factor_in = 0;
  code->Emit(rqp);
}

std::vector<int8_t> IdentityWeights(const HwConfig& config) {
  std::vector<int8_t> w(size_t{config.block_out} * config.block_in, 0);
  for (uint32_t i = 0; i < std::min(config.block_in, config.block_out); ++i) {
    w[size_t{i} * config.block_in + i] = 1;
  }
  return w;
}

Status AddLayer::Check(const HwConfig& config) const {
  auto bad = [&](const std::string& why) { return InvalidArgument("layer " + name + ": " + why); };
  if (elems == 0) return bad("empty tensor");
  if (config.block_in != config.block_out) return bad("add needs block_in == block_out");
  const int32_t imm_lo = -(1 << (isa::Layout::kImmBits - 1)), imm_hi = -imm_lo - 1;
  if (mult_a < imm_lo || mult_a > imm_hi || mult_b < imm_lo || mult_b > imm_hi) {
    return bad("multipliers must fit the ALU's 16-bit immediate");
  }
  if (shift < -31 || shift > 31) return bad("shift outside [-31, 31]");
  if (clip_lo > clip_hi || clip_lo < -128 || clip_hi > 127) return bad("bad clip range");
  if (config.inp_depth() < 4 || config.acc_depth() < 4) return bad("buffers too small");
  return Status::Ok();
}

namespace {

// A multiplier m in [-32768, 32767] as m = 256 * hi + lo with lo in [-128, 127], so both digits
// are GEMM weights (hi reaches 128 only for m >= 32640; that digit runs as two micro-ops of 64).
struct Digits {
  int32_t hi, lo;
  explicit Digits(int32_t m) : hi(0), lo(((m + 128) & 255) - 128) { hi = (m - lo) / 256; }
  int32_t hi_weight() const { return hi == 128 ? 64 : hi; }
  uint32_t hi_uops() const { return hi == 0 ? 0 : hi == 128 ? 2 : 1; }
};

// WGT element indices of AddWeights' blocks.
enum AddBlock : uint32_t { kHiA = 0, kHiB = 1, kLoA = 2, kLoB = 3, kAddBlocks = 4 };

}  // namespace

std::vector<int8_t> AddWeights(const HwConfig& config, const AddLayer& l) {
  const Digits a(l.mult_a), b(l.mult_b);
  const int32_t diag[kAddBlocks] = {a.hi_weight(), b.hi_weight(), a.lo, b.lo};
  const size_t block = size_t{config.block_out} * config.block_in;
  std::vector<int8_t> w(kAddBlocks * block, 0);
  for (uint32_t k = 0; k < kAddBlocks; ++k) {
    for (uint32_t i = 0; i < std::min(config.block_in, config.block_out); ++i) {
      w[k * block + size_t{i} * config.block_in + i] = static_cast<int8_t>(diag[k]);
    }
  }
  return w;
}

Status EmitAdd(const HwConfig& config, const AddLayer& l, AccelCode* code, uint32_t tile) {
  LOOM_RETURN_IF_ERROR(l.Check(config));
  constexpr uint32_t V = 2;
  // The rounding shift and the clip run as one REQUANT pass (isa.md §3.4.1) with bias 0 and
  // multiplier 1 (those two constants are made on chip in the last two ACC elements and copied
  // into RQP entry 0 once): one pass where they would take up to three, and one that leaves the
  // plane zero for the next tile, so the reset goes too.
  const bool fused = isa::RequantShiftValid(l.shift) && l.clip_lo <= 127 && l.clip_hi >= -128;
  const uint32_t scratch = fused ? 2 : 0;
  // Per virtual thread r: INP holds [a tile | b tile] at r * 2 * te, ACC one sum plane at r * te.
  const uint32_t fit = std::min(config.inp_depth() / (2 * V), (config.acc_depth() - scratch) / V);
  // The pipeline fills with one tile's loads and drains with one tile's store, while each tile
  // costs a few instructions' overhead: about sqrt(16 * elems) elements balances the two.
  const uint32_t balanced =
      std::max<uint32_t>(16, static_cast<uint32_t>(std::sqrt(16.0 * static_cast<double>(l.elems))));
  const uint32_t te = std::min({tile ? tile : balanced, fit, l.elems, kMaxLoop});
  const uint32_t T = CeilDiv(l.elems, te);
  const Digits da(l.mult_a), db(l.mult_b);
  const bool high = da.hi != 0 || db.hi != 0;

  // Micro-ops per thread r: the reset, the high digits' products, the low digits' products.
  std::vector<isa::Uop> uops;
  uint32_t n_hi = 0;
  for (uint32_t r = 0; r < V; ++r) {
    const uint32_t p = r * te, a = r * 2 * te, b = a + te;
    uops.push_back({p, 0, 0});
    n_hi = 0;
    for (uint32_t k = 0; k < da.hi_uops(); ++k, ++n_hi) uops.push_back({p, a, kHiA});
    for (uint32_t k = 0; k < db.hi_uops(); ++k, ++n_hi) uops.push_back({p, b, kHiB});
    uops.push_back({p, a, kLoA});
    uops.push_back({p, b, kLoB});
  }
  const uint32_t per = 3 + n_hi;
  const uint32_t zero = config.acc_depth() - 2, params = V * per;
  if (fused) AppendRqParamUops(zero, &uops);  // RQP entry 0: bias 0, multiplier 1
  const uint32_t first = code->AddUops(uops);
  code->Emit(LinearDma(Opcode::kLoad, Buffer::kUop, 0, first, static_cast<uint32_t>(uops.size())),
             Region::kUops);
  code->Emit(LinearDma(Opcode::kLoad, Buffer::kWgt, 0, l.weights, kAddBlocks), Region::kConstants);
  if (fused) EmitRqParamEntry0(params, 0, 1, code);

  ZeroedAcc zero_planes(V);
  for (uint32_t t = 0; t < T; ++t) {
    const uint32_t r = t % V, u = per * r, base = r * 2 * te;
    const uint32_t off = t * te, n = std::min(te, l.elems - off);
    // load: both operands into region r once compute has finished with it.
    Insn la = LinearDma(Opcode::kLoad, Buffer::kInp, base, l.a + off, n);
    la.deps.pop_next = t >= V;
    code->Emit(la, Region::kArena);
    Insn lb = LinearDma(Opcode::kLoad, Buffer::kInp, base + te, l.b + off, n);
    lb.deps.push_next = true;
    code->Emit(lb, Region::kArena);
    // compute: sum = 256 * (a * hi_a + b * hi_b) + a * lo_a + b * lo_b = a * mult_a + b * mult_b
    // exactly (|sum| < 2^23), straight from INP through the digit weights; then the requantization.
    // The store of tile t - V must have drained region r before anything writes it. The fused
    // REQUANT leaves the plane zero (isa.md §3.4.1): a tile inside what it cleared skips the reset,
    // and the first GEMM pops the token.
    const bool zeroed = fused && zero_planes.Covers(r, 1, n);
    if (!zeroed) {
      Insn reset = Run(Opcode::kGemm, u, n);
      reset.uop_end = u + 1;
      reset.reset = true;
      reset.deps.pop_next = t >= V;
      code->Emit(reset);
      zero_planes.Cleared(r, 1, n);
    }
    auto product = [&](uint32_t uop, uint32_t count, bool first_read, bool last_read) {
      Insn g = Run(Opcode::kGemm, uop, n);
      g.uop_end = uop + count;
      g.deps.pop_prev = first_read;
      g.deps.pop_next = first_read && zeroed;
      g.deps.push_prev = last_read && t + V < T;
      code->Emit(g);
    };
    if (high) {
      product(u + 1, n_hi, true, false);
      code->Emit(AluImm(AluOp::kShr, u, n, -8));  // a negative shift is a left shift
    }
    Insn rq = Run(Opcode::kAlu, u, n);  // the reset micro-op: dst plane, RQP entry 0
    rq.alu_op = AluOp::kRequant;
    rq.src_factor_in = 0;
    rq.pre_shift = l.shift;
    rq.clip_lo = std::max(l.clip_lo, -128);
    rq.clip_hi = std::min(l.clip_hi, 127);
    rq.clear = true;  // the tile's last reader of the plane
    if (fused && n >= kEpilogueMinVectors) {
      // a's low digit, then b's as the GEMM a fused REQUANT arms (isa.md §3.4.2): that GEMM does
      // each element's last update and requantizes it, instead of a pass of its own.
      product(u + 1 + n_hi, 1, !high, false);
      rq.loop_in = 1;
      rq.dst_factor_in = 0;
      rq.fuse = true;
      code->Emit(rq);
      product(u + 2 + n_hi, 1, false, true);
    } else {
      product(u + 1 + n_hi, 2, !high, true);
      if (fused) code->Emit(rq);
    }
    if (!fused) {
      if (l.shift != 0) code->Emit(AluImm(AluOp::kShrRound, u, n, l.shift));
      if (l.clip_lo > -128) code->Emit(AluImm(AluOp::kMax, u, n, l.clip_lo));
      if (l.clip_hi < 127) code->Emit(AluImm(AluOp::kMin, u, n, l.clip_hi));
    }
    code->last().deps.push_next = true;
    // store
    Insn st = LinearDma(Opcode::kStore, Buffer::kOut, r * te, l.output + off, n);
    st.deps.pop_prev = true;
    st.deps.push_prev = t + V < T;
    code->Emit(st, Region::kArena);
  }
  return Status::Ok();
}

namespace {

// Input rows and padded width a max-pool tile of `oh_n` output rows reads.
uint32_t PoolInRows(const PoolLayer& l, uint32_t oh_n) { return (oh_n - 1) * l.stride_h + l.kh; }
uint32_t PoolInCols(const PoolLayer& l) { return (l.out_w() - 1) * l.stride_w + l.kw; }

// ACC elements past the tiles that hold the fused requantization's bias 0 and multiplier.
constexpr uint32_t kPoolScratch = 2;

// The most output rows per tile that fit two virtual threads beside `scratch` ACC elements (0 if
// not even one row does).
uint32_t PoolRowsThatFit(const HwConfig& c, const PoolLayer& l, uint32_t scratch = 0) {
  const uint64_t iw = PoolInCols(l), ow = l.out_w(), acc = c.acc_depth() - scratch;
  uint32_t best = 0;
  for (uint32_t r = 1; r <= l.out_h(); ++r) {
    const uint64_t x = uint64_t{PoolInRows(l, r)} * iw;
    if (2 * x > c.inp_depth() || 2 * (x + r * ow) > acc) break;
    best = r;
  }
  return best;
}

}  // namespace

PoolLayer PoolGeometry(const HwConfig& config, const std::string& name, uint32_t n,
                             uint32_t c, uint32_t h, uint32_t w, const Window2d& window) {
  PoolLayer l;
  l.name = name;
  l.n_blocks = CeilDiv(n, config.batch);
  l.c_blocks = CeilDiv(c, config.block_in);
  l.h = h;
  l.w = w;
  SetWindow(window, &l);
  l.pad_value = -128;
  l.padding_lanes = HasPaddingLanes(config.batch, config.block_in, n, c);
  return l;
}

void SetAverageOffsets(int32_t x_offset, int32_t out_offset, PoolLayer* l) {
  l->x_offset = x_offset;
  l->out_offset = out_offset;
  l->pad_value = static_cast<int8_t>(std::clamp(-x_offset, -128, 127));
}

bool PoolLayer::fused_requant(const HwConfig& config) const {
  return average && isa::RequantShiftValid(pre_shift) && isa::RequantShiftValid(post_shift) &&
         out_offset == 0 && PoolRowsThatFit(config, *this, kPoolScratch) > 0;
}

Status PoolLayer::Check(const HwConfig& config) const {
  auto bad = [&](const std::string& why) { return InvalidArgument("layer " + name + ": " + why); };
  if (!n_blocks || !c_blocks || !h || !w || !kh || !kw || !stride_h || !stride_w) {
    return bad("zero-sized dimension");
  }
  if (config.block_in != config.block_out) return bad("max pooling needs block_in == block_out");
  if (h + pad_top + pad_bottom < kh || w + pad_left + pad_right < kw) {
    return bad("window larger than the padded input");
  }
  if (std::max(pad_top, pad_bottom) >= kh || std::max(pad_left, pad_right) >= kw ||
      std::max({pad_top, pad_bottom, pad_left, pad_right}) > 15) {
    return bad("padding must be smaller than the window and at most 15");
  }
  if (PoolInCols(*this) > kMaxLoop || out_w() > kMaxLoop || PoolInRows(*this, 1) > kMaxLoop) {
    return bad("rows wider than the loop fields");
  }
  if (PoolRowsThatFit(config, *this) == 0) return bad("one output row does not fit the buffers");
  if (average) {
    const int32_t imm_lo = -(1 << (isa::Layout::kImmBits - 1)), imm_hi = -imm_lo - 1;
    if (mult < imm_lo || mult > imm_hi) return bad("multiplier must fit the ALU's 16-bit immediate");
    if (pre_shift < -31 || pre_shift > 31 || post_shift < -31 || post_shift > 31) {
      return bad("shift outside [-31, 31]");
    }
    if (clip_lo > clip_hi || clip_lo < -128 || clip_hi > 127) return bad("bad clip range");
    if (const std::string why =
            OffsetsProblem(config, "x_offset", x_offset, out_offset, padding_lanes);
        !why.empty()) {
      return bad(why);
    }
    // The window sum takes kh·kw·x_offset for every position, padded ones too: those must hold
    // the input's zero point to add the real 0.
    if (padded() && pad_value != -x_offset) {
      return bad("padded average pooling with x_offset " + std::to_string(x_offset) +
                 " must pad with the input's zero point " + std::to_string(-x_offset) +
                 (-x_offset < -128 || -x_offset > 127 ? ", which is no int8"
                                                      : ", not " + std::to_string(pad_value)));
    }
  } else if (padded() && pad_value > 0) {
    return bad("max pooling padded with " + std::to_string(pad_value) +
               ": a positive pad value wins over the 0 of padding lanes and of real elements");
  }
  return Status::Ok();
}

Status EmitPool(const HwConfig& config, const PoolLayer& l, AccelCode* code, uint32_t rows) {
  LOOM_RETURN_IF_ERROR(l.Check(config));
  constexpr uint32_t V = 2;
  const uint32_t OH = l.out_h(), OW = l.out_w(), iw = PoolInCols(l);
  const bool fused = l.fused_requant(config);
  const uint32_t fit = PoolRowsThatFit(config, l, fused ? kPoolScratch : 0);
  const uint32_t rt = std::min(rows ? rows : fit, fit);
  const uint32_t x_cap = PoolInRows(l, rt) * iw;  // ACC per thread: [X: input copy | Y: output]
  const uint32_t acc_tile = x_cap + rt * OW;
  const uint32_t n_oh = CeilDiv(OH, rt), T = l.n_blocks * l.c_blocks * n_oh;

  // Micro-ops per thread r: [X copy, Y, then one per window position (Y, X + ky * iw + kx)].
  // Separable windows: when no two taps of a row but the first are whole strides apart
  // (kw <= 2 * stride_w), each copied row first takes, in place at the window starts, its
  // window's reduction along x (the tap one stride away first: the later taps read elements no
  // pass writes), and the output rows then reduce only along y. 3x3/2 max pooling: 2 passes over
  // the rows and 3 per output instead of 9 per output. Max and sum are exact in any order.
  // A single output column (global pooling) has one window start per row, which no tap reads.
  const bool separable = l.kw >= 2 && (l.kw <= 2 * l.stride_w || OW == 1);
  std::vector<uint32_t> taps;  // the row passes' x offsets, in order
  if (separable) {
    if (l.stride_w < l.kw) taps.push_back(l.stride_w);
    for (uint32_t k = 1; k < l.kw; ++k) {
      if (k != l.stride_w) taps.push_back(k);
    }
  }
  // A single average window (global average pooling) is summed by the GEMM straight from INP into
  // Y through the identity weights, one cycle per input element, instead of copied into X and
  // reduced by register-form ALU passes (2 cycles each): ResNet-18's 7x7x512 global average pool
  // 9253 → 4709 cycles.
  const bool gemm_sum = l.average && OH == 1 && OW == 1;
  // Micro-ops per thread r: [X copy, Y, one per window position (Y, X + ky * iw + kx), one per row
  // pass (X, X + tap), then the GEMM sum (Y, the INP tile)].
  const uint32_t per = 3 + l.kh * l.kw + static_cast<uint32_t>(taps.size());
  std::vector<isa::Uop> uops;
  for (uint32_t r = 0; r < V; ++r) {
    const uint32_t x = r * acc_tile, y = x + x_cap;
    uops.push_back({x, r * x_cap, 0});
    uops.push_back({y, 0, 0});
    for (uint32_t ky = 0; ky < l.kh; ++ky)
      for (uint32_t kx = 0; kx < l.kw; ++kx) uops.push_back({y, x + ky * iw + kx, 0});
    for (uint32_t tap : taps) uops.push_back({x, x + tap, 0});
    uops.push_back({y, r * x_cap, 0});
  }
  const uint32_t zero = config.acc_depth() - kPoolScratch, params = V * per;
  if (fused) AppendRqParamUops(zero, &uops);
  const uint32_t first = code->AddUops(uops);
  code->Emit(LinearDma(Opcode::kLoad, Buffer::kUop, 0, first, static_cast<uint32_t>(uops.size())),
             Region::kUops);
  code->Emit(LinearDma(Opcode::kLoad, Buffer::kWgt, 0, l.identity, 1), Region::kConstants);
  // The multiplier fits the immediate (Check), so it is made on chip: no constants. x_offset adds
  // to each of a window's kh·kw counted elements (padded ones hold -x_offset): once per window, as
  // REQUANT's bias or the chain's first ADDs.
  const int64_t window_offset = int64_t{l.kh} * l.kw * l.x_offset;
  if (fused) EmitRqParamEntry0(params, window_offset, l.mult, code);

  ZeroedAcc zero_y(V);
  uint32_t t = 0;
  for (uint32_t nb = 0; nb < l.n_blocks; ++nb) {
    for (uint32_t cb = 0; cb < l.c_blocks; ++cb) {
      for (uint32_t oh0 = 0; oh0 < OH; oh0 += rt, ++t) {
        const uint32_t r = t % V, u = r * per, oh_n = std::min(rt, OH - oh0);
        const uint32_t ih_n = PoolInRows(l, oh_n);
        // load: the input rows of the tile, the border as DMA padding.
        const int64_t ih_lo = int64_t{oh0} * l.stride_h - l.pad_top;
        const int64_t top = std::max<int64_t>(0, -ih_lo);
        const int64_t bottom = std::max<int64_t>(0, ih_lo + ih_n - l.h);
        const uint32_t left = l.pad_left;
        const uint32_t right = iw > l.w + left ? iw - l.w - left : 0;
        const uint64_t plane = (uint64_t{nb} * l.c_blocks + cb) * l.h;
        Insn ld;
        ld.opcode = Opcode::kLoad;
        ld.buffer = Buffer::kInp;
        ld.sram_base = r * x_cap;
        ld.dram_base = static_cast<uint32_t>(l.input + (plane + static_cast<uint64_t>(ih_lo + top)) * l.w);
        ld.y_size = static_cast<uint32_t>(ih_n - top - bottom);
        ld.x_size = iw - left - right;
        ld.x_stride = l.w;
        ld.y_pad_top = static_cast<uint32_t>(top);
        ld.y_pad_bottom = static_cast<uint32_t>(bottom);
        ld.x_pad_left = left;
        ld.x_pad_right = right;
        if (top || bottom || left || right) ld.pad_value = l.pad_value;
        ld.deps.pop_next = t >= V;
        ld.deps.push_next = true;
        code->Emit(ld, Region::kArena);
        // compute: X = the input rows, in ACC.
        auto reset = [&](uint32_t uop, uint32_t rows_n, uint32_t cols) {
          Insn z;
          z.opcode = Opcode::kGemm;
          z.reset = true;
          z.uop_bgn = uop;
          z.uop_end = uop + 1;
          z.loop_out = rows_n;
          z.loop_in = cols;
          z.dst_factor_out = cols;
          z.dst_factor_in = 1;
          return z;
        };
        Insn reset_x = reset(u, ih_n, iw);
        reset_x.deps.pop_next = t >= V;  // the store of tile t - V has drained region r
        Insn g;
        g.opcode = Opcode::kGemm;
        g.uop_bgn = u;
        g.uop_end = u + 1;
        g.loop_out = ih_n;
        g.loop_in = iw;
        g.dst_factor_out = iw;
        g.dst_factor_in = 1;
        g.src_factor_out = iw;
        g.src_factor_in = 1;
        g.deps.pop_prev = true;
        g.deps.push_prev = t + V < T;
        // Y = the window's first element, then the MAX of the others.
        auto window = [&](AluOp op, uint32_t pos) {
          Insn a;
          a.opcode = Opcode::kAlu;
          a.alu_op = op;
          a.uop_bgn = u + 2 + pos;
          a.uop_end = u + 3 + pos;
          a.loop_out = oh_n;
          a.loop_in = OW;
          a.dst_factor_out = OW;
          a.dst_factor_in = 1;
          a.src_factor_out = l.stride_h * iw;
          a.src_factor_in = l.stride_w;
          return a;
        };
        if (gemm_sum) {
          // Y, one element per thread, is left zero by the previous tile's REQUANT with clear.
          const bool y_zero = fused && zero_y.Covers(r, 1, 1);
          if (!y_zero) {
            Insn reset_y = reset(u + 1, 1, 1);
            reset_y.deps.pop_next = t >= V;
            code->Emit(reset_y);
            zero_y.Cleared(r, 1, 1);
          }
          Insn sum = g;
          sum.uop_bgn = u + per - 1;
          sum.uop_end = u + per;
          sum.dst_factor_out = sum.dst_factor_in = 0;
          sum.deps.pop_next = y_zero;
          code->Emit(sum);
        } else {
          code->Emit(reset_x);
          code->Emit(reset(u + 1, oh_n, OW));
          code->Emit(g);
        }
        const AluOp reduce = l.average ? AluOp::kAdd : AluOp::kMax;
        for (size_t p = 0; p < taps.size() && !gemm_sum; ++p) {  // row passes over the copied rows
          Insn a;
          a.opcode = Opcode::kAlu;
          a.alu_op = reduce;
          a.uop_bgn = u + 2 + l.kh * l.kw + static_cast<uint32_t>(p);
          a.uop_end = a.uop_bgn + 1;
          a.loop_out = ih_n;
          a.loop_in = OW;
          a.dst_factor_out = a.src_factor_out = iw;
          a.dst_factor_in = a.src_factor_in = l.stride_w;
          code->Emit(a);
        }
        if (!gemm_sum) {
          code->Emit(window(AluOp::kAdd, 0));
          for (uint32_t pos = 1; pos < l.kh * l.kw; ++pos) {
            if (!separable || pos % l.kw == 0) code->Emit(window(reduce, pos));
          }
        }
        if (fused) {  // requantize the sums in Y: the Y micro-op, RQP entry 0
          Insn rq = Run(Opcode::kAlu, u + 1, OW);
          rq.alu_op = AluOp::kRequant;
          rq.src_factor_in = 0;
          rq.loop_out = oh_n;
          rq.dst_factor_out = OW;
          rq.pre_shift = l.pre_shift;
          rq.post_shift = l.post_shift;
          rq.clip_lo = l.clip_lo;
          rq.clip_hi = l.clip_hi;
          rq.clear = gemm_sum;  // Y's last reader; the next tile of the thread sums into zero
          code->Emit(rq);
        } else if (l.average) {
          auto requant = [&](AluOp op, int32_t imm) {
            Insn a = AluImm(op, u + 1, OW, imm);
            a.loop_out = oh_n;
            a.dst_factor_out = OW;
            code->Emit(a);
          };
          for (int32_t imm : AddImmediates(window_offset)) requant(AluOp::kAdd, imm);
          if (l.pre_shift != 0) requant(AluOp::kShrRound, l.pre_shift);
          requant(AluOp::kMul, l.mult);
          if (l.post_shift != 0) requant(AluOp::kShrRound, l.post_shift);
          if (l.out_offset != 0) requant(AluOp::kAdd, l.out_offset);
          if (l.clip_lo > -128) requant(AluOp::kMax, l.clip_lo);
          if (l.clip_hi < 127) requant(AluOp::kMin, l.clip_hi);
        }
        code->last().deps.push_next = true;
        // store
        Insn st = LinearDma(
            Opcode::kStore, Buffer::kOut, r * acc_tile + x_cap,
            static_cast<uint32_t>(l.output + ((uint64_t{nb} * l.c_blocks + cb) * OH + oh0) * OW),
            0);
        st.y_size = oh_n;
        st.x_size = OW;
        st.x_stride = OW;
        st.deps.pop_prev = true;
        st.deps.push_prev = t + V < T;
        code->Emit(st, Region::kArena);
      }
    }
  }
  return Status::Ok();
}

void EmitLayerBarrier(AccelCode* code) {
  Insn st = LinearDma(Opcode::kStore, Buffer::kOut, 0, 0, 0);
  st.deps.push_prev = true;
  code->Emit(st, Region::kArena);  // moves nothing; a region keeps the linker uniform
  Insn g;
  g.opcode = Opcode::kGemm;
  g.uop_bgn = 0;
  g.uop_end = 1;
  g.loop_out = 0;
  g.loop_in = 0;
  g.deps.pop_next = true;
  g.deps.push_prev = true;
  code->Emit(g);
  Insn ld = LinearDma(Opcode::kLoad, Buffer::kInp, 0, 0, 0);
  ld.deps.pop_next = true;
  code->Emit(ld, Region::kArena);
}

size_t EmitBufferBarrier(AccelCode* code) {
  const size_t at = code->insns.size();
  Insn st = LinearDma(Opcode::kStore, Buffer::kOut, 0, 0, 0);
  st.deps.push_prev = true;
  code->Emit(st, Region::kArena);
  Insn g;
  g.opcode = Opcode::kGemm;
  g.uop_bgn = 0;
  g.uop_end = 1;
  g.loop_out = 0;
  g.loop_in = 0;
  Insn computed = g;  // the previous layer's computation is done: loads may go
  computed.deps.push_prev = true;
  code->Emit(computed);
  Insn ld = LinearDma(Opcode::kLoad, Buffer::kInp, 0, 0, 0);
  ld.deps.pop_next = true;
  code->Emit(ld, Region::kArena);
  Insn stored = g;  // and its stores are done before the next computation writes OUT
  stored.deps.pop_next = true;
  code->Emit(stored);
  return at;
}

namespace {

// The hull of arena bytes the LOADs (or STOREs) of instructions [begin, end) touch.
struct Span {
  uint64_t lo = UINT64_MAX, hi = 0;
  bool Overlaps(const Span& o) const { return lo < o.hi && o.lo < hi; }
};

Span ArenaSpan(const HwConfig& c, const AccelCode& code, size_t begin, size_t end, Opcode op) {
  Span s;
  for (size_t i = begin; i < end; ++i) {
    const Insn& in = code.insns[i];
    if (in.opcode != op || code.regions[i] != Region::kArena || in.dram_span() == 0) continue;
    const uint64_t bytes = isa::ElemBytes(c, in.buffer);
    s.lo = std::min(s.lo, uint64_t{in.dram_base} * bytes);
    s.hi = std::max(s.hi, (uint64_t{in.dram_base} + in.dram_span()) * bytes);
  }
  return s;
}

}  // namespace

bool SettleBarrier(const HwConfig& c, size_t prev_begin, size_t barrier, AccelCode* code,
                   bool force_layer) {
  const Span stored = ArenaSpan(c, *code, prev_begin, barrier, Opcode::kStore);
  const Span loaded = ArenaSpan(c, *code, barrier + 4, code->insns.size(), Opcode::kLoad);
  if (!force_layer && !stored.Overlaps(loaded)) return true;
  // The layer barrier: the computation waits for the stores before it lets the loads go, and the
  // second GEMM goes (no instruction refers to another by index; micro-ops are separate).
  code->insns[barrier + 1].deps.pop_next = true;
  code->insns.erase(code->insns.begin() + static_cast<std::ptrdiff_t>(barrier + 3));
  code->regions.erase(code->regions.begin() + static_cast<std::ptrdiff_t>(barrier + 3));
  return false;
}

}  // namespace loom::tensorize
