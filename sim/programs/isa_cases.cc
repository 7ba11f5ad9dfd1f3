// The instruction-level test programs (see isa_cases.h). Expectations come from the small
// reference functions at the top of this file, which restate docs/isa.md §3 with plain integer
// arithmetic; nothing here runs a simulator.
//
// Observing int32 results: STORE only drains OUT, which holds saturate_int8 of each ACC write, so a
// wide ACC value does not survive a plain copy. Cases whose point is an exact int32 result
// (GEMM sums, every ALU op) therefore end with EmitByteView(), which makes all 32 bits of each ACC
// lane observable bit for bit. Cases about positions and data movement (padding, strides, tokens)
// use values in int8 range instead, where OUT is the identity.
#include "sim/programs/isa_cases.h"

#include <algorithm>
#include <functional>
#include <limits>
#include <random>
#include <utility>

#include "sim/programs/gemm_program.h"

namespace loom::programs {
namespace {

using isa::AluOp;
using isa::Buffer;
using isa::Insn;
using isa::Opcode;
using isa::Uop;

constexpr int32_t kMax32 = std::numeric_limits<int32_t>::max();
constexpr int32_t kMin32 = std::numeric_limits<int32_t>::min();

// ---- Reference semantics, docs/isa.md §3 ----------------------------------------------------

int8_t Sat8(int32_t v) { return static_cast<int8_t>(v < -128 ? -128 : (v > 127 ? 127 : v)); }

// The int32 that is congruent to v modulo 2^32 (two's complement wrap).
int32_t Wrap32(int64_t v) {
  return static_cast<int32_t>(static_cast<uint32_t>(static_cast<uint64_t>(v)));
}

// floor(a / 2^n), written as a division so it does not lean on >> of negative numbers.
int64_t FloorDivPow2(int64_t a, int n) {
  const int64_t d = int64_t{1} << n;
  return a >= 0 ? a / d : -((-a + d - 1) / d);
}

// The ALU table of §3.4.
int32_t RefAlu(AluOp op, int32_t a, int32_t x) {
  switch (op) {
    case AluOp::kMin:
      return a < x ? a : x;
    case AluOp::kMax:
      return a > x ? a : x;
    case AluOp::kAdd:
      return Wrap32(int64_t{a} + x);
    case AluOp::kMul:
      return Wrap32(int64_t{a} * x);  // |a·x| <= 2^62: exact in int64
    case AluOp::kShr:
    case AluOp::kShrRound: {
      const int n = x < -31 ? -31 : (x > 31 ? 31 : x);
      if (n < 0) return Wrap32(int64_t{a} * (int64_t{1} << -n));  // a << -n, wrapping
      if (op == AluOp::kShrRound && n > 0) {
        return static_cast<int32_t>(FloorDivPow2(int64_t{a} + (int64_t{1} << (n - 1)), n));
      }
      return static_cast<int32_t>(FloorDivPow2(a, n));
    }
    case AluOp::kRequant:
    case AluOp::kRqParam:
      break;  // not two-operand ops: RefRequant below
  }
  return 0;
}

// REQUANT of §3.4.1 on one lane, with the parameter entry's bias and multiplier.
int32_t RefRequant(const Insn& q, int32_t a, int32_t bias, int32_t mult) {
  int32_t v = RefAlu(AluOp::kAdd, a, bias);
  v = RefAlu(AluOp::kShrRound, v, q.pre_shift);
  v = RefAlu(AluOp::kMul, v, mult);
  v = RefAlu(AluOp::kShrRound, v, q.post_shift);
  return v < q.clip_lo ? q.clip_lo : (v > q.clip_hi ? q.clip_hi : v);
}

// The GEMM loop nest of §3.3 on plain arrays: acc holds int32 [element][batch][block_out], inp
// int8 [element][batch][block_in], wgt int8 [element][block_out][block_in].
// `after`, if set, runs after every iteration's update with the ACC element's index (a fused
// REQUANT's epilogue, §3.4.2).
void RefGemm(const HwConfig& c, const std::vector<Uop>& uops, const Insn& g,
             const std::vector<int8_t>& inp, const std::vector<int8_t>& wgt,
             std::vector<int32_t>* acc, const std::function<void(size_t)>& after = nullptr) {
  const size_t B = c.batch, BI = c.block_in, BO = c.block_out;
  for (size_t i0 = 0; i0 < g.loop_out; ++i0)
    for (size_t i1 = 0; i1 < g.loop_in; ++i1)
      for (size_t u = g.uop_bgn; u < g.uop_end; ++u) {
        const size_t d = uops[u].dst + i0 * g.dst_factor_out + i1 * g.dst_factor_in;
        const size_t s = uops[u].src + i0 * g.src_factor_out + i1 * g.src_factor_in;
        const size_t w = uops[u].wgt + i0 * g.wgt_factor_out + i1 * g.wgt_factor_in;
        for (size_t b = 0; b < B; ++b)
          for (size_t o = 0; o < BO; ++o) {
            int32_t& a = (*acc)[(d * B + b) * BO + o];
            if (g.reset) {
              a = 0;
              continue;
            }
            int64_t sum = 0;
            for (size_t i = 0; i < BI; ++i)
              sum += inp[(s * B + b) * BI + i] * wgt[(w * BO + o) * BI + i];
            a = Wrap32(int64_t{a} + sum);
          }
        if (after) after(d);
      }
}

std::vector<uint8_t> SatBytes(const std::vector<int32_t>& v) {
  std::vector<uint8_t> out(v.size());
  for (size_t i = 0; i < v.size(); ++i) out[i] = static_cast<uint8_t>(Sat8(v[i]));
  return out;
}

// What EmitByteView leaves in OUT, as stored bytes: [byte j][element e][lane l] = byte j of the
// little-endian int32 v[e][l].
std::vector<uint8_t> ByteView(const std::vector<int32_t>& v) {
  std::vector<uint8_t> out;
  for (int j = 0; j < 4; ++j)
    for (int32_t x : v) out.push_back(static_cast<uint8_t>(static_cast<uint32_t>(x) >> (8 * j)));
  return out;
}

// ---- Program construction ------------------------------------------------------------------

// A GEMM or ALU over micro-ops [uop, uop + uops) with dst = uop.dst + i0*dfo + i1*dfi.
Insn Nest(Opcode op, uint32_t uop, uint32_t uops, uint32_t lo, uint32_t li, uint32_t dfo,
          uint32_t dfi) {
  Insn i = LoopInsn(op, uop, uops, lo, li);
  i.dst_factor_out = dfo;
  i.dst_factor_in = dfi;
  return i;
}
Insn AluReg(AluOp op, uint32_t uop, uint32_t uops, uint32_t lo, uint32_t li, uint32_t dfo,
            uint32_t dfi, uint32_t sfo, uint32_t sfi) {
  Insn i = Nest(Opcode::kAlu, uop, uops, lo, li, dfo, dfi);
  i.alu_op = op;
  i.src_factor_out = sfo;
  i.src_factor_in = sfi;
  return i;
}
Insn AluI(AluOp op, int32_t imm, uint32_t uop, uint32_t uops, uint32_t lo, uint32_t li,
          uint32_t dfo, uint32_t dfi) {
  Insn i = Nest(Opcode::kAlu, uop, uops, lo, li, dfo, dfi);
  i.alu_op = op;
  i.use_imm = true;
  i.imm = imm;
  return i;
}
Insn Reset(uint32_t uop, uint32_t lo, uint32_t li, uint32_t dfo, uint32_t dfi) {
  Insn i = Nest(Opcode::kGemm, uop, 1, lo, li, dfo, dfi);
  i.reset = true;
  return i;
}

// Collects one case: DRAM data, micro-ops, instructions and the expected DRAM regions. The
// micro-op table is loaded by the first instruction (compute module, so program order alone
// orders it before every GEMM and ALU).
class Builder {
 public:
  Builder(const HwConfig& config, std::string name, uint32_t seed)
      : c(config),
        L(config.batch * config.block_out),
        IL(config.batch * config.block_in),
        WL(config.block_out * config.block_in),
        rng(seed),
        name_(std::move(name)),
        prog_(config) {}

  const HwConfig& c;
  const uint32_t L, IL, WL;  // lanes (bytes or int32s) of an ACC/OUT, INP, WGT element
  std::mt19937 rng;

  int32_t Rand(int32_t lo, int32_t hi) {
    return std::uniform_int_distribution<int32_t>(lo, hi)(rng);
  }
  std::vector<int8_t> I8(size_t n, int lo = -128, int hi = 127) {
    std::vector<int8_t> v(n);
    for (auto& x : v) x = static_cast<int8_t>(Rand(lo, hi));
    return v;
  }
  std::vector<int32_t> I32(size_t n, int32_t lo, int32_t hi) {
    std::vector<int32_t> v(n);
    for (auto& x : v) x = Rand(lo, hi);
    return v;
  }

  // DRAM data; each returns the DRAM element index (in elements of that buffer) of the first byte.
  uint32_t Inp(const std::vector<int8_t>& v) { return Put(Bytes(v), c.inp_elem_bytes()); }
  uint32_t Wgt(const std::vector<int8_t>& v) { return Put(Bytes(v), c.wgt_elem_bytes()); }
  uint32_t Acc(const std::vector<int32_t>& v) { return Put(Bytes(v), c.acc_elem_bytes()); }
  uint32_t Uops(const std::vector<Uop>& u) {
    const uint32_t base = static_cast<uint32_t>(uops_.size());
    uops_.insert(uops_.end(), u.begin(), u.end());
    return base;
  }
  const std::vector<Uop>& uops() const { return uops_; }
  // The reference to the emitted instruction is valid until the next Emit.
  Insn& Emit(const Insn& insn) {
    insns_.push_back(insn);
    return insns_.back();
  }

  // A DRAM region of `elems` OUT elements for STOREs, prefilled with random bytes so that a byte
  // the program must not write is told apart from one it wrote. Returns the region's id.
  int OutRegion(uint32_t elems, std::string what) {
    const uint32_t ob = c.out_elem_bytes();
    std::vector<uint8_t> init(size_t{elems} * ob);
    for (auto& x : init) x = static_cast<uint8_t>(Rand(0, 255));
    const uint64_t addr = prog_.AddData(init, std::max<uint64_t>(64, ob));
    regions_.push_back({std::move(what), addr, static_cast<uint32_t>(addr / ob), init});
    return static_cast<int>(regions_.size()) - 1;
  }
  // Emits a STORE of OUT[sram, sram + y*x) to region r at element offset off (§3.2) and records
  // that OUT holds `out` (y*x elements of L bytes) there.
  Insn& Store(int r, uint32_t off, uint32_t sram, uint32_t y, uint32_t x, uint32_t stride,
              const std::vector<uint8_t>& out) {
    Region& g = regions_[r];
    for (size_t yy = 0; yy < y; ++yy)
      for (size_t xx = 0; xx < x; ++xx)
        std::copy_n(&out[(yy * x + xx) * L], L, &g.expected[(off + yy * stride + xx) * L]);
    return Emit(StoreInsn(sram, g.elem + off, y, x, stride));
  }

  // Makes n int32 ACC elements at r observable exactly: afterwards OUT[t + j*n + e] holds, in
  // every lane, byte j of ACC[r + e] as an int8, so a STORE of OUT[t, t + 4n) writes ByteView().
  // For byte j the copy is shifted left by 24 - 8j (SHR by a negative amount, from a register
  // operand so one instruction covers all four j), which puts byte j in bits 31..24, then shifted
  // right arithmetically by 24, which sign-extends it: an int8, so saturation keeps it. Uses
  // ACC[sh, sh + 4) for the shift amounts and ACC[t, t + 4n) for the copies. Returns the last
  // instruction, which writes OUT, for its push flag.
  Insn& EmitByteView(uint32_t r, uint32_t n, uint32_t sh, uint32_t t) {
    std::vector<int32_t> shifts;
    for (int j = 0; j < 4; ++j) shifts.insert(shifts.end(), L, 8 * j - 24);
    Emit(LoadInsn(Buffer::kAcc, sh, Acc(shifts), 1, 4, 4));
    const uint32_t u = Uops({{t, r, 0}, {t, sh, 0}});
    Emit(Reset(u, 4, n, n, 1));  // defined contents for the copies to be added to
    Emit(AluReg(AluOp::kAdd, u, 1, 4, n, n, 1, 0, 1));      // ACC[t+jn+e] += ACC[r+e]
    Emit(AluReg(AluOp::kShr, u + 1, 1, 4, n, n, 1, 1, 0));  // ... SHR ACC[sh+j] = 8j-24
    return Emit(AluI(AluOp::kShr, 24, u, 1, 4, n, n, 1));
  }

  Status Done(std::vector<IsaCase>* out) {
    uint64_t uop_addr = 0;
    LOOM_RETURN_IF_ERROR(prog_.AddUops(uops_, &uop_addr).WithContext(name_));
    const uint32_t n = static_cast<uint32_t>(uops_.size());
    prog_.Emit(
        LoadInsn(Buffer::kUop, 0, static_cast<uint32_t>(uop_addr / HwConfig::kUopBytes), 1, n, n));
    for (const Insn& i : insns_) prog_.Emit(i);
    prog_.Emit(Finish());
    LOOM_RETURN_IF_ERROR(prog_.Finalize().WithContext(name_));
    IsaCase ic{name_, prog_, {}};
    for (Region& g : regions_) ic.checks.push_back({g.what, g.addr, g.expected});
    out->push_back(std::move(ic));
    return Status::Ok();
  }

 private:
  struct Region {
    std::string what;
    uint64_t addr;
    uint32_t elem;
    std::vector<uint8_t> expected;
  };
  uint32_t Put(const std::vector<uint8_t>& bytes, uint32_t elem_bytes) {
    return static_cast<uint32_t>(prog_.AddData(bytes, std::max<uint64_t>(64, elem_bytes)) /
                                 elem_bytes);
  }
  std::string name_;
  Program prog_;
  std::vector<Uop> uops_;
  std::vector<Insn> insns_;
  std::vector<Region> regions_;
};

// ---- The cases ------------------------------------------------------------------------------

// ACC -> OUT -> DRAM: ADD imm 0 copies ACC into OUT (saturating); a 2-D STORE with gaps must
// leave the gap bytes alone; a 1-row STORE may have x_stride < x_size.
Status OutRoundtrip(const HwConfig& c, std::vector<IsaCase>* out) {
  Builder b(c, "out_roundtrip", 101);
  const uint32_t rows = 3, cols = 5, stride = 7, n1 = rows * cols, n2 = 3;
  std::vector<int32_t> v1 = b.I32(size_t{n1} * b.L, -128, 127);  // OUT == ACC
  v1[0] = -128;
  v1[1] = 127;
  std::vector<int32_t> v2 = b.I32(size_t{n2} * b.L, kMin32, kMax32);  // OUT saturates
  const int32_t edges[] = {128, -129, kMax32, kMin32, 127, -128, 0, -1};
  std::copy(std::begin(edges), std::end(edges), v2.begin());
  b.Emit(LoadInsn(Buffer::kAcc, 0, b.Acc(v1), 1, n1, n1));
  b.Emit(LoadInsn(Buffer::kAcc, n1, b.Acc(v2), 1, n2, n2));
  const uint32_t u = b.Uops({{0, 0, 0}});
  b.Emit(AluI(AluOp::kAdd, 0, u, 1, 1, n1 + n2, 0, 1)).deps.push_next = true;
  const int r1 =
      b.OutRegion(1 + (rows - 1) * stride + cols + 1, "2-D store y=3 x=5 stride=7 at +1");
  b.Store(r1, 1, 0, rows, cols, stride, SatBytes(v1)).deps.pop_prev = true;
  const int r2 = b.OutRegion(n2 + 2, "saturated values, store y=1 x=3 stride=0 at +1");
  b.Store(r2, 1, n1, 1, n2, 0, SatBytes(v2));
  return b.Done(out);
}

struct Pads {
  const char* name;
  uint32_t top, bottom, left, right, ys, xs;
  int32_t pad_value = 0;  // INP only
};

// A padded, strided LOAD of INP or ACC over nonzero garbage, so a padding element not written as
// zero (or, on INP, as pad_value in every lane) shows. The y_size x x_size window starts at element
// (1, 1) of a DRAM matrix with row pitch xs + 3. ACC goes to OUT by ADD imm 0. INP goes through
// GEMM with a permutation weight block W[o][i] = (i == (3o + 1) mod block_in), which moves each
// input lane to another output lane (so a transposed WGT layout shows); that block is itself loaded
// with left/right padding over garbage and the GEMM sums WGT[0] + WGT[1] + WGT[2] = pad + W + pad.
// All values are in int8 range.
Status PaddedLoad(const HwConfig& c, Buffer buf, const Pads& p, uint32_t seed,
                  std::vector<IsaCase>* out) {
  const bool inp = buf == Buffer::kInp;
  Builder b(c, std::string(inp ? "padded_load_inp" : "padded_load_acc") + p.name, seed);
  const uint32_t S = p.xs + 3, PH = p.top + p.ys + p.bottom, PW = p.left + p.xs + p.right;
  const uint32_t E = PH * PW, lanes = inp ? b.IL : b.L;
  auto put = [&](const std::vector<int32_t>& v) {
    return inp ? b.Inp(std::vector<int8_t>(v.begin(), v.end())) : b.Acc(v);
  };
  const std::vector<int32_t> src = b.I32(size_t{p.ys + 2} * S * lanes, -128, 127);
  const uint32_t src_elem = put(src);
  b.Emit(LoadInsn(buf, 0, put(b.I32(size_t{E} * lanes, 1, 127)), 1, E, E));
  Insn ld = LoadInsn(buf, 0, src_elem + S + 1, p.ys, p.xs, S);
  ld.y_pad_top = p.top;
  ld.y_pad_bottom = p.bottom;
  ld.x_pad_left = p.left;
  ld.x_pad_right = p.right;
  ld.pad_value = p.pad_value;
  b.Emit(ld);
  // The SRAM image of §3.1: the window's DRAM element or padding lanes.
  std::vector<int32_t> img(size_t{E} * lanes, p.pad_value);
  for (size_t y = p.top; y < p.top + p.ys; ++y)
    for (size_t x = p.left; x < p.left + p.xs; ++x)
      std::copy_n(&src[((1 + y - p.top) * S + 1 + x - p.left) * lanes], lanes,
                  &img[(y * PW + x) * lanes]);
  const uint32_t u = b.Uops({{0, 0, 0}, {0, 0, 1}, {0, 0, 2}});  // one d, three weights
  if (inp) {
    std::vector<int8_t> wgt(size_t{3} * b.WL, 0);  // WGT[0, 3) as the loads leave it
    for (uint32_t o = 0; o < c.block_out; ++o)
      wgt[b.WL + o * c.block_in + (3 * o + 1) % c.block_in] = 1;
    b.Emit(LoadInsn(Buffer::kWgt, 0, b.Wgt(b.I8(size_t{3} * b.WL, 1, 127)), 1, 3, 3));
    Insn lw =
        LoadInsn(Buffer::kWgt, 0, b.Wgt({wgt.begin() + b.WL, wgt.begin() + 2 * b.WL}), 1, 1, 1);
    lw.x_pad_left = lw.x_pad_right = 1;
    lw.deps.push_next = true;
    b.Emit(lw);
    b.Emit(Reset(u, PH, PW, PW, 1));
    Insn g = Nest(Opcode::kGemm, u, 3, PH, PW, PW, 1);
    g.src_factor_out = PW;
    g.src_factor_in = 1;
    g.deps.pop_prev = g.deps.push_next = true;
    b.Emit(g);
    std::vector<int32_t> acc(size_t{E} * b.L, 0);  // the reset's result
    RefGemm(c, b.uops(), g, std::vector<int8_t>(img.begin(), img.end()), wgt, &acc);
    img = acc;
  } else {
    b.Emit(AluI(AluOp::kAdd, 0, u, 1, PH, PW, PW, 1)).deps.push_next = true;
  }
  const int r = b.OutRegion(E, std::string("padded ") + (inp ? "inp, lanes permuted" : "acc") +
                                   " block [row][col][lane]");
  b.Store(r, 0, 0, PH, PW, PW, SatBytes(img)).deps.pop_prev = true;
  return b.Done(out);
}

// GEMM reset, then two accumulating GEMMs into the same six ACC elements, with all six loop
// factors nonzero and two micro-ops sharing each d (sequential semantics). The reset's src/wgt
// factors would put s and w far outside INP and WGT; §3.3 says they are not evaluated.
Status GemmResetAccumulate(const HwConfig& c, std::vector<IsaCase>* out) {
  Builder b(c, "gemm_reset_accumulate", 301);
  const uint32_t n = 6, ni = 32, nw = 24;
  const std::vector<int8_t> inp = b.I8(size_t{ni} * b.IL), wgt = b.I8(size_t{nw} * b.WL);
  b.Emit(LoadInsn(Buffer::kAcc, 0, b.Acc(b.I32(size_t{n} * b.L, kMin32, kMax32)), 1, n, n));
  b.Emit(LoadInsn(Buffer::kInp, 0, b.Inp(inp), 1, ni, ni));
  b.Emit(LoadInsn(Buffer::kWgt, 0, b.Wgt(wgt), 1, nw, nw)).deps.push_next = true;
  const uint32_t u = b.Uops({{0, 0, 0}, {0, 1, 1}, {0, 16, 12}, {0, 17, 13}});
  Insn reset = Reset(u, 2, 3, 3, 1);  // d = 3*i0 + i1 covers [0, 6)
  reset.src_factor_in = c.inp_depth() - 1;
  reset.wgt_factor_in = c.wgt_depth() - 1;
  Insn g1 = Nest(Opcode::kGemm, u, 2, 2, 3, 3, 1);  // s <= 17+7+4 < 32, w <= 13+5+4 < 24
  g1.src_factor_out = 7;
  g1.src_factor_in = 2;
  g1.wgt_factor_out = 5;
  g1.wgt_factor_in = 2;
  Insn g2 = g1;
  g2.uop_bgn = u + 2;
  g2.uop_end = u + 4;
  g1.deps.pop_prev = true;
  std::vector<int32_t> acc(size_t{n} * b.L, 0);
  for (const Insn& g : {reset, g1, g2}) {
    b.Emit(g);
    RefGemm(c, b.uops(), g, inp, wgt, &acc);
  }
  b.EmitByteView(0, n, 8, 16).deps.push_next = true;
  const int r = b.OutRegion(4 * n, "int32 sums as bytes [byte][element][lane]");
  b.Store(r, 0, 16, 1, 4 * n, 4 * n, ByteView(acc)).deps.pop_prev = true;
  return b.Done(out);
}

// The double-buffered (or serialized) blocked GEMM of gemm_program.h, against ReferenceGemm.
Status GemmProgram(const HwConfig& c, const char* name, uint32_t vt, bool requant,
                   std::vector<IsaCase>* out) {
  GemmSpec s;
  s.m = s.k = s.n = 4;
  s.tile_m = s.tile_k = s.tile_n = 2;  // 4 tiles of 2 K chunks each
  s.virtual_threads = vt;
  s.requant = s.relu = requant;
  s.pre_shift = 4;
  s.post_shift = 19;
  const GemmData d = RandomGemmData(c, s, 400 + vt + (requant ? 10 : 0));
  Program p(c);
  GemmOutput where;
  LOOM_RETURN_IF_ERROR(BuildGemm(c, s, d, &p, &where).WithContext(name));
  // Block the M x N reference like the program's output: [M/batch][N/block_out][batch][block_out].
  const std::vector<int8_t> ref = ReferenceGemm(c, s, d);
  const size_t N = size_t{s.n} * c.block_out;
  std::vector<uint8_t> blocked;
  for (size_t mb = 0; mb < s.m; ++mb)
    for (size_t nb = 0; nb < s.n; ++nb)
      for (size_t bb = 0; bb < c.batch; ++bb)
        for (size_t o = 0; o < c.block_out; ++o)
          blocked.push_back(
              static_cast<uint8_t>(ref[(mb * c.batch + bb) * N + nb * c.block_out + o]));
  out->push_back({name, p, {{"blocked GEMM output", where.addr, blocked}}});
  return Status::Ok();
}

// Every ALU op in register form: operand pairs lane by lane, edge cases first, then random.
Status AluRegOps(const HwConfig& c, std::vector<IsaCase>* out) {
  Builder b(c, "alu_reg_ops", 501);
  const uint32_t n = 4, N = n * b.L;  // elements and pairs per op; N >= 32
  // clang-format off
  const std::vector<std::pair<AluOp, std::vector<std::pair<int32_t, int32_t>>>> ops = {
      {AluOp::kMin, {{-1, 1}, {kMin32, kMax32}, {kMax32, kMin32}, {-7, -7}, {-128, -129}, {0, -1}}},
      {AluOp::kMax, {{-1, 1}, {kMin32, kMax32}, {kMax32, kMin32}, {-7, -7}, {-128, -129}, {0, -1}}},
      {AluOp::kAdd, {{kMax32, 1}, {kMin32, -1}, {kMax32, kMax32}, {kMin32, kMin32}, {-5, 3},
                     {0x7fff0000, 0x10000}, {-1, 1}}},
      {AluOp::kShr, {{-1000, -40}, {1000, -31}, {1, -31}, {3, -1}, {kMin32, -1}, {-1000, 0},
                     {-1000, 1}, {-7, 1}, {kMin32, 31}, {kMax32, 31}, {-1, 40}, {kMax32, 40},
                     {12345, kMax32}, {-3, kMin32}, {5, 32}, {5, -32}}},
      // Ties round up: -3 -> -1, -5 -> -2, 5 -> 3, -2/4 -> 0; no overflow at INT32_MAX.
      {AluOp::kShrRound, {{-3, 1}, {-5, 1}, {5, 1}, {3, 1}, {-1, 1}, {1, 1}, {-2, 2}, {6, 2},
                          {-6, 2}, {kMax32, 1}, {kMax32, 31}, {kMin32, 31}, {-(1 << 30), 31},
                          {1 << 30, 31}, {kMin32, 40}, {kMax32, 40}, {kMax32, -1}, {7, -40},
                          {kMin32, 0}, {-9, kMin32}}},
      {AluOp::kMul, {{0x10000, 0x10000}, {kMin32, -1}, {-3, 7}, {46341, 46341}, {kMax32, kMax32},
                     {-65536, 32768}, {0x12345, 0x6789}, {kMin32, kMin32}, {-1, -1}}},
  };
  // clang-format on
  const uint32_t K = static_cast<uint32_t>(ops.size());
  std::vector<int32_t> a, x, r;
  for (const auto& [op, edges] : ops) {
    const bool shift = op == AluOp::kShr || op == AluOp::kShrRound;
    for (uint32_t k = 0; k < N; ++k) {
      // Pairs after the edge cases: half full-range, half small, shift amounts in [-40, 40].
      const bool wide = k % 2 == 0;
      const int32_t ak =
          k < edges.size() ? edges[k].first : (wide ? b.Rand(kMin32, kMax32) : b.Rand(-999, 999));
      const int32_t xk = k < edges.size() ? edges[k].second
                         : shift          ? b.Rand(-40, 40)
                                          : (wide ? b.Rand(kMin32, kMax32) : b.Rand(-999, 999));
      a.push_back(ak);
      x.push_back(xk);
      r.push_back(RefAlu(op, ak, xk));
    }
  }
  b.Emit(LoadInsn(Buffer::kAcc, 0, b.Acc(a), 1, K * n, K * n));      // a: ACC[0, Kn)
  b.Emit(LoadInsn(Buffer::kAcc, K * n, b.Acc(x), 1, K * n, K * n));  // x: ACC[Kn, 2Kn)
  for (uint32_t k = 0; k < K; ++k) {
    const uint32_t u = b.Uops({{k * n, K * n + k * n, 0}});
    b.Emit(AluReg(ops[k].first, u, 1, 1, n, 0, 1, 0, 1));
  }
  b.EmitByteView(0, K * n, 2 * K * n, 2 * K * n + 8).deps.push_next = true;
  const int g =
      b.OutRegion(4 * K * n, "int32 results [byte][op: min max add shr shr_rnd mul][pair]");
  b.Store(g, 0, 2 * K * n + 8, 1, 4 * K * n, 4 * K * n, ByteView(r)).deps.pop_prev = true;
  return b.Done(out);
}

// Every ALU op in immediate form, over the same operands; imm covers both 16-bit extremes and
// shift amounts beyond the clamp.
Status AluImmOps(const HwConfig& c, std::vector<IsaCase>* out) {
  Builder b(c, "alu_imm_ops", 601);
  const std::vector<std::pair<AluOp, std::vector<int32_t>>> ops = {
      {AluOp::kMin, {-32768, 32767, 0, -1}},
      {AluOp::kMax, {0, -32768, 32767, 5}},
      {AluOp::kAdd, {0, 1, -1, 32767, -32768}},
      {AluOp::kShr, {-40, -31, -1, 0, 1, 31, 40}},
      {AluOp::kShrRound, {-40, -31, -1, 0, 1, 2, 31, 40}},
      {AluOp::kMul, {-32768, 32767, -1, 0, 3}},
  };
  // clang-format off
  const int32_t edges[] = {kMax32, kMin32, -3, -5, 5, 3, -1, 0, 1, 0x10000, 0x20000, -(1 << 30),
                           (1 << 30) + 1, 127, -128, 0x12345678};
  // clang-format on
  const uint32_t n = 2;  // elements per instruction: at least 16 operands
  std::vector<int32_t> a, r;
  std::vector<Insn> alu;
  for (const auto& [op, imms] : ops) {
    for (int32_t imm : imms) {
      const uint32_t u = b.Uops({{static_cast<uint32_t>(alu.size()) * n, 0, 0}});
      alu.push_back(AluI(op, imm, u, 1, 1, n, 0, 1));
      for (uint32_t k = 0; k < n * b.L; ++k) {
        const int32_t ak = k < 16 ? edges[k] : (k % 2 ? b.Rand(-999, 999) : b.Rand(kMin32, kMax32));
        a.push_back(ak);
        r.push_back(RefAlu(op, ak, imm));
      }
    }
  }
  const uint32_t m = static_cast<uint32_t>(alu.size()) * n, sh = m + 4, t = m + 8;
  b.Emit(LoadInsn(Buffer::kAcc, 0, b.Acc(a), 1, m, m));
  for (const Insn& i : alu) b.Emit(i);
  b.EmitByteView(0, m, sh, t).deps.push_next = true;
  const int g = b.OutRegion(4 * m, "int32 results [byte][(op, imm) in table order][operand]");
  b.Store(g, 0, t, 1, 4 * m, 4 * m, ByteView(r)).deps.pop_prev = true;
  return b.Done(out);
}

// ALU with src == dst (each iteration reads its operands before it writes), a chain in which
// each iteration reads the previous one's result (sequential semantics, §3.4), and 2-D nests with
// nonzero dst and src factors.
Status AluSrcDstLoops(const HwConfig& c, std::vector<IsaCase>* out) {
  Builder b(c, "alu_src_dst_loops", 701);
  const size_t L = b.L;
  const std::vector<int32_t> v = b.I32(8 * L, -(1 << 20), 1 << 20);  // squares wrap sometimes
  const std::vector<int32_t> wy = b.I32(16 * L, kMin32, kMax32);     // W: 12 elements, Y: 4
  const uint32_t v_elem = b.Acc(v);
  for (uint32_t base : {0u, 8u, 16u}) b.Emit(LoadInsn(Buffer::kAcc, base, v_elem, 1, 8, 8));
  b.Emit(LoadInsn(Buffer::kAcc, 24, b.Acc(wy), 1, 16, 16));
  const uint32_t u = b.Uops({{0, 0, 0}, {8, 8, 0}, {17, 16, 0}, {24, 36, 0}, {25, 37, 0}});
  b.Emit(AluReg(AluOp::kAdd, u, 1, 1, 8, 0, 1, 0, 1));      // ACC[k] += ACC[k]
  b.Emit(AluReg(AluOp::kMul, u + 1, 1, 2, 4, 4, 1, 4, 1));  // ACC[8+k] *= ACC[8+k]
  b.Emit(AluReg(AluOp::kAdd, u + 2, 1, 1, 7, 0, 1, 0, 1));  // ACC[17+k] += ACC[16+k]
  b.Emit(AluReg(AluOp::kMax, u + 3, 2, 3, 2, 4, 2, 0, 2));  // W[d] = max(W[d], Y[s])
  std::vector<int32_t> r(36 * L);
  for (size_t k = 0; k < 8 * L; ++k) {
    r[k] = Wrap32(int64_t{v[k]} * 2);
    r[8 * L + k] = Wrap32(int64_t{v[k]} * v[k]);
  }
  for (size_t l = 0; l < L; ++l) {  // prefix sums
    r[16 * L + l] = v[l];
    for (size_t k = 1; k < 8; ++k)
      r[(16 + k) * L + l] = Wrap32(int64_t{r[(15 + k) * L + l]} + v[k * L + l]);
  }
  std::copy_n(wy.begin(), 12 * L, r.begin() + 24 * L);
  for (uint32_t i0 = 0; i0 < 3; ++i0)
    for (uint32_t i1 = 0; i1 < 2; ++i1)
      for (uint32_t uu = 0; uu < 2; ++uu) {
        const size_t d = uu + 4 * i0 + 2 * i1, s = 12 + uu + 2 * i1;  // relative to ACC[24]
        for (size_t l = 0; l < L; ++l)
          r[(24 + d) * L + l] = std::max(r[(24 + d) * L + l], wy[s * L + l]);
      }
  b.EmitByteView(0, 36, 40, 48).deps.push_next = true;
  const int g = b.OutRegion(4 * 36, "int32 ACC[0, 36) as bytes [byte][element][lane]");
  b.Store(g, 0, 48, 1, 4 * 36, 4 * 36, ByteView(r)).deps.pop_prev = true;
  return b.Done(out);
}

// GEMM, then the per-channel requantization of docs/isa.md §6.2: SHR_RND pre-shift, MUL by a
// per-lane multiplier (register form, src factors 0), SHR_RND post-shift, ReLU (MAX imm 0); OUT
// saturates the result.
Status RequantRelu(const HwConfig& c, std::vector<IsaCase>* out) {
  Builder b(c, "requant_relu", 801);
  const uint32_t n = 4;
  const int32_t pre = 4, post = 17;
  const std::vector<int8_t> inp = b.I8(2 * n * size_t{b.IL}), wgt = b.I8(2 * size_t{b.WL});
  std::vector<int32_t> mul(b.L);
  for (uint32_t o = 0; o < c.block_out; ++o) {
    const int32_t m = o == 0 ? -(1 << 14) : b.Rand(-(1 << 14), 1 << 14);
    for (uint32_t bb = 0; bb < c.batch; ++bb) mul[bb * c.block_out + o] = m;
  }
  b.Emit(LoadInsn(Buffer::kInp, 0, b.Inp(inp), 1, 2 * n, 2 * n));
  b.Emit(LoadInsn(Buffer::kWgt, 0, b.Wgt(wgt), 1, 2, 2)).deps.push_next = true;
  b.Emit(LoadInsn(Buffer::kAcc, 16, b.Acc(mul), 1, 1, 1));
  const uint32_t u = b.Uops({{0, 0, 0}, {0, 1, 1}, {0, 16, 0}});
  Insn g = Nest(Opcode::kGemm, u, 2, 1, n, 0, 1);  // ACC[i] = X[2i]·W0 + X[2i+1]·W1
  g.src_factor_in = 2;
  g.deps.pop_prev = true;
  std::vector<int32_t> acc(n * size_t{b.L}, 0);
  for (const Insn& i : {Reset(u, 1, n, 0, 1), g}) {
    b.Emit(i);
    RefGemm(c, b.uops(), i, inp, wgt, &acc);
  }
  b.Emit(AluI(AluOp::kShrRound, pre, u, 1, 1, n, 0, 1));
  b.Emit(AluReg(AluOp::kMul, u + 2, 1, 1, n, 0, 1, 0, 0));
  b.Emit(AluI(AluOp::kShrRound, post, u, 1, 1, n, 0, 1));
  b.Emit(AluI(AluOp::kMax, 0, u, 1, 1, n, 0, 1)).deps.push_next = true;
  for (size_t k = 0; k < acc.size(); ++k) {
    int32_t v = RefAlu(AluOp::kShrRound, acc[k], pre);
    v = RefAlu(AluOp::kMul, v, mul[k % b.L]);
    v = RefAlu(AluOp::kShrRound, v, post);
    acc[k] = v < 0 ? 0 : v;
  }
  const int r = b.OutRegion(n, "requantized GEMM [element][lane]");
  b.Store(r, 0, 0, 1, n, n, SatBytes(acc)).deps.pop_prev = true;
  return b.Done(out);
}

// The fused REQUANT (§3.4.1): RQPARAM fills parameter entries 0 and 31 (the last) from ACC, then
// six REQUANTs with shifts at 0, 1, 30 and 31 in either position, clip bounds at the int8 ends,
// inside them and equal, each over two elements, one per entry. Operands start with the int32
// extremes and negative multipliers; the results are int8, so OUT shows them exactly.
Status FusedRequant(const HwConfig& c, std::vector<IsaCase>* out) {
  Builder b(c, "fused_requant", 851);
  const uint32_t K = 6, n = 2 * K;  // REQUANTs, elements
  // clang-format off
  const int32_t params[K][4] = {{0, 0, -128, 127}, {1, 31, -128, 127}, {31, 1, -5, 7},
                                {30, 2, -128, -100}, {2, 29, 0, 127}, {16, 15, 3, 3}};
  const int32_t edges[] = {kMin32, kMax32, -1, 0, 1, kMin32 + 1, kMax32 - 1, 1 << 30, -(1 << 30)};
  // clang-format on
  const uint32_t E = sizeof edges / sizeof edges[0];
  // Values: the edges in the first lanes of each vector, then random ones, full-range or small.
  auto vec = [&](uint32_t count, uint32_t skew) {
    std::vector<int32_t> v(size_t{count} * b.L);
    for (size_t k = 0; k < v.size(); ++k) {
      const size_t e = (k + skew) % (2 * E);
      v[k] = e < E ? edges[e] : (k % 2 ? b.Rand(kMin32, kMax32) : b.Rand(-99999, 99999));
    }
    return v;
  };
  const std::vector<int32_t> a = vec(n, 0), bias = vec(2, 3), mult = vec(2, 7);
  b.Emit(LoadInsn(Buffer::kAcc, 0, b.Acc(a), 1, n, n));         // ACC[0, n): operands
  b.Emit(LoadInsn(Buffer::kAcc, n, b.Acc(bias), 1, 2, 2));      // ACC[n, n+2): bias 0, 31
  b.Emit(LoadInsn(Buffer::kAcc, n + 2, b.Acc(mult), 1, 2, 2));  // ACC[n+2, n+4): mult 0, 31
  const uint32_t last = isa::kRqParamDepth - 1;
  const uint32_t up = b.Uops({{n, n + 2, 0}, {n + 1, n + 3, last}});
  Insn p = Nest(Opcode::kAlu, up, 2, 1, 1, 0, 0);
  p.alu_op = AluOp::kRqParam;
  b.Emit(p);
  std::vector<int32_t> r(a.size());
  for (uint32_t k = 0; k < K; ++k) {
    Insn q = Nest(Opcode::kAlu, b.Uops({{2 * k, 0, 0}, {2 * k + 1, 0, last}}), 2, 1, 1, 0, 0);
    q.alu_op = AluOp::kRequant;
    q.pre_shift = params[k][0];
    q.post_shift = params[k][1];
    q.clip_lo = params[k][2];
    q.clip_hi = params[k][3];
    b.Emit(q).deps.push_next = k + 1 == K;
    for (uint32_t e = 0; e < 2; ++e) {
      for (uint32_t l = 0; l < b.L; ++l) {
        const size_t i = size_t{2 * k + e} * b.L + l, j = size_t{e} * b.L + l;
        r[i] = RefRequant(q, a[i], bias[j], mult[j]);
      }
    }
  }
  const int g = b.OutRegion(n, "requantized [element][lane]");
  b.Store(g, 0, 0, 1, n, n, SatBytes(r)).deps.pop_prev = true;
  return b.Done(out);
}

// REQUANT with clear (§3.4.1): OUT gets the requantized value, ACC is left zero. Three ranges:
//   P = [0, n)    requantized with clear, nothing after: OUT shows rq(a), as without clear.
//   Q = [n, 2n)   requantized with clear, then at once a GEMM (last element first, so its first
//                 read is the REQUANT's last write, on the forwarding path) and an ALU add of 1:
//                 OUT shows X·W + 1 exactly when the GEMM found zeros.
//   R = [2n, 3n)  one REQUANT with clear whose two micro-ops both name the element: the second
//                 reads the first one's zero, so OUT shows rq(0).
Status RequantClear(const HwConfig& c, std::vector<IsaCase>* out) {
  Builder b(c, "requant_clear", 871);
  const uint32_t n = 4, N = 3 * n;
  std::vector<int32_t> acc(size_t{N} * b.L), bias(b.L), mult(b.L);
  for (int32_t& v : acc) v = b.Rand(-(1 << 20), 1 << 20);
  for (int32_t& v : bias) v = b.Rand(-9999, 9999);
  for (int32_t& v : mult) v = b.Rand(-(1 << 16), 1 << 16);
  const std::vector<int8_t> inp = b.I8(size_t{n} * b.IL), wgt = b.I8(b.WL, -4, 4);
  b.Emit(LoadInsn(Buffer::kInp, 0, b.Inp(inp), 1, n, n));
  b.Emit(LoadInsn(Buffer::kWgt, 0, b.Wgt(wgt), 1, 1, 1)).deps.push_next = true;
  b.Emit(LoadInsn(Buffer::kAcc, 0, b.Acc(acc), 1, N, N));
  b.Emit(LoadInsn(Buffer::kAcc, N, b.Acc(bias), 1, 1, 1));
  b.Emit(LoadInsn(Buffer::kAcc, N + 1, b.Acc(mult), 1, 1, 1));
  Insn p = Nest(Opcode::kAlu, b.Uops({{N, N + 1, 0}}), 1, 1, 1, 0, 0);
  p.alu_op = AluOp::kRqParam;
  b.Emit(p);
  Insn q = Nest(Opcode::kAlu, b.Uops({{0, 0, 0}}), 1, 1, 2 * n, 0, 1);  // P and Q
  q.alu_op = AluOp::kRequant;
  q.pre_shift = 3;
  q.post_shift = 12;
  q.clip_lo = -100;
  q.clip_hi = 110;
  q.clear = true;
  b.Emit(q);
  std::vector<int32_t> r(acc.size());
  for (size_t i = 0; i < size_t{2} * n * b.L; ++i)
    r[i] = RefRequant(q, acc[i], bias[i % b.L], mult[i % b.L]);
  std::vector<Uop> rev;  // Q's elements, last first, each with its own input element
  for (uint32_t k = n; k-- > 0;) rev.push_back({n + k, k, 0});
  const uint32_t ur = b.Uops(rev);
  Insn g = Nest(Opcode::kGemm, ur, n, 1, 1, 0, 0);
  g.deps.pop_prev = true;
  b.Emit(g);
  std::vector<int32_t> q_acc(acc.size(), 0);
  RefGemm(c, b.uops(), g, inp, wgt, &q_acc);
  b.Emit(AluI(AluOp::kAdd, 1, ur, n, 1, 1, 0, 0));
  for (size_t i = size_t{n} * b.L; i < size_t{2} * n * b.L; ++i)
    r[i] = RefAlu(AluOp::kAdd, q_acc[i], 1);
  Insn twice = q;  // R: two micro-ops on each element
  twice.uop_bgn = b.Uops({{2 * n, 0, 0}, {2 * n, 0, 0}});
  twice.uop_end = twice.uop_bgn + 2;
  twice.loop_in = n;
  b.Emit(twice).deps.push_next = true;
  for (size_t i = size_t{2} * n * b.L; i < r.size(); ++i)
    r[i] = RefRequant(q, 0, bias[i % b.L], mult[i % b.L]);
  const int o = b.OutRegion(N, "P: rq(a), Q: X·W + 1 over cleared ACC, R: rq(0) [element][lane]");
  b.Store(o, 0, 0, 1, N, N, SatBytes(r)).deps.pop_prev = true;
  return b.Done(out);
}

// A fused REQUANT as a GEMM's epilogue (§3.4.2): every iteration of the armed GEMM writes OUT[d] =
// REQUANT(its new sum) and leaves ACC[d] zero. Entries 0 and 31 (the last) hold the parameters.
//   P = [0, n)    ACC starts nonzero; armed with entry 31, then a LOAD ACC into U (which neither
//                 consumes nor disturbs the arming), then the GEMM: OUT shows rq(a + X·W).
//   Q = [n, 2n)   armed with entry 0, GEMM (rq of X·W1 over ACC that started zero); then at once a
//                 plain GEMM, last element first (its first read is on the forwarding path of
//                 the epilogue's zero): OUT shows sat(X·W), so ACC was left zero.
//   R = [2n, 3n)  one armed GEMM whose two micro-ops both name the element: the second adds onto
//                 the first one's zero, so OUT shows rq(X·W) and not rq(a + 2·X·W).
//   S = [3n, 4n)  an armed reset: OUT shows rq(0).
//   U = [4n, 5n)  loaded while P's epilogue was armed, copied to OUT by an ADD of 0.
Status GemmEpilogue(const HwConfig& c, std::vector<IsaCase>* out) {
  Builder b(c, "gemm_epilogue", 881);
  const uint32_t n = 4, N = 5 * n, last = isa::kRqParamDepth - 1;
  std::vector<int32_t> acc(size_t{N} * b.L, 0), bias(size_t{2} * b.L), mult(size_t{2} * b.L);
  for (size_t i = 0; i < size_t{n} * b.L; ++i) acc[i] = b.Rand(-(1 << 20), 1 << 20);  // P
  for (size_t i = 2 * size_t{n} * b.L; i < 3 * size_t{n} * b.L; ++i) acc[i] = b.Rand(-999, 999);
  for (int32_t& v : bias) v = b.Rand(-9999, 9999);
  for (int32_t& v : mult) v = b.Rand(-(1 << 16), 1 << 16);
  const std::vector<int32_t> u_data = b.I32(size_t{n} * b.L, -200, 200);
  const std::vector<int8_t> inp = b.I8(size_t{n} * b.IL), wgt = b.I8(size_t{2} * b.WL, -4, 4);
  b.Emit(LoadInsn(Buffer::kInp, 0, b.Inp(inp), 1, n, n));
  b.Emit(LoadInsn(Buffer::kWgt, 0, b.Wgt(wgt), 1, 2, 2)).deps.push_next = true;
  b.Emit(LoadInsn(Buffer::kAcc, 0, b.Acc(acc), 1, 4 * n, 4 * n));
  b.Emit(LoadInsn(Buffer::kAcc, N, b.Acc(bias), 1, 2, 2));
  b.Emit(LoadInsn(Buffer::kAcc, N + 2, b.Acc(mult), 1, 2, 2));
  Insn p = Nest(Opcode::kAlu, b.Uops({{N, N + 2, 0}, {N + 1, N + 3, last}}), 2, 1, 1, 0, 0);
  p.alu_op = AluOp::kRqParam;
  b.Emit(p);
  // Arms with entry `entry`: one iteration, whose micro-op's wgt field names it.
  auto arm = [&](uint32_t entry, int32_t pre, int32_t post, int32_t lo, int32_t hi) {
    Insn q = Nest(Opcode::kAlu, b.Uops({{0, 0, entry}}), 1, 1, 1, 0, 0);
    q.alu_op = AluOp::kRequant;
    q.pre_shift = pre;
    q.post_shift = post;
    q.clip_lo = lo;
    q.clip_hi = hi;
    q.clear = q.fuse = true;
    return b.Emit(q);
  };
  std::vector<int32_t> r(acc.size());
  // The expected OUT of an armed GEMM: rq of every new sum, which ACC then forgets.
  auto epilogue = [&](const Insn& g, const Insn& q, uint32_t entry) {
    RefGemm(c, b.uops(), g, inp, wgt, &acc, [&](size_t d) {
      for (size_t l = 0; l < b.L; ++l) {
        int32_t& a = acc[d * b.L + l];
        r[d * b.L + l] = RefRequant(q, a, bias[entry * b.L + l], mult[entry * b.L + l]);
        a = 0;
      }
    });
  };
  // P, with a LOAD ACC between the arming and its GEMM.
  const Insn qp = arm(last, 3, 12, -100, 110);
  b.Emit(LoadInsn(Buffer::kAcc, 4 * n, b.Acc(u_data), 1, n, n));
  Insn g = Nest(Opcode::kGemm, b.Uops({{0, 0, 0}}), 1, 1, n, 0, 1);
  g.src_factor_in = 1;
  g.deps.pop_prev = true;
  b.Emit(g);
  epilogue(g, qp, 1);
  // Q: armed GEMM, then a plain one in reverse order.
  const Insn qq = arm(0, 0, 9, -128, 127);
  g.uop_bgn = b.Uops({{n, 0, 1}});
  g.uop_end = g.uop_bgn + 1;
  g.deps.pop_prev = false;
  b.Emit(g);
  epilogue(g, qq, 0);
  std::vector<Uop> rev;
  for (uint32_t k = n; k-- > 0;) rev.push_back({n + k, k, 0});
  Insn plain = Nest(Opcode::kGemm, b.Uops(rev), n, 1, 1, 0, 0);
  b.Emit(plain);
  RefGemm(c, b.uops(), plain, inp, wgt, &acc);
  for (size_t i = size_t{n} * b.L; i < size_t{2} * n * b.L; ++i) r[i] = acc[i];
  // R: two micro-ops on each element.
  const Insn qr = arm(last, 1, 14, -50, 60);
  Insn twice = Nest(Opcode::kGemm, b.Uops({{2 * n, 0, 1}, {2 * n, 0, 1}}), 2, 1, n, 0, 1);
  twice.src_factor_in = 1;
  b.Emit(twice);
  epilogue(twice, qr, 1);
  // S: an armed reset.
  const Insn qs = arm(0, 2, 3, -7, 9);
  const Insn reset = Reset(b.Uops({{3 * n, 0, 0}}), 1, n, 0, 1);
  b.Emit(reset);
  epilogue(reset, qs, 0);
  // U: what the LOAD ACC brought, through OUT.
  b.Emit(AluI(AluOp::kAdd, 0, b.Uops({{4 * n, 0, 0}}), 1, 1, n, 0, 1)).deps.push_next = true;
  for (size_t i = 0; i < u_data.size(); ++i) r[size_t{4} * n * b.L + i] = u_data[i];
  const int o = b.OutRegion(N, "P: rq(a + X·W), Q: X·W over the zero, R: rq(X·W), S: rq(0), U");
  b.Store(o, 0, 0, 1, N, N, SatBytes(r)).deps.pop_prev = true;
  return b.Done(out);
}

// Zero-size LOAD and STORE as pure token carriers (§3.1): their pops and pushes order the real
// transfers, and they move no data although x_size is nonzero.
//   load.inp  X; load.wgt W; load.inp y=0 @push_next      (carrier: releases both loads)
//   gemm reset; gemm @pop_prev @push_next                 (OUT = X·W)
//   store -> R1 @pop_prev @push_prev                      (then OUT may be overwritten)
//   alu.add imm=1 @pop_next @push_next                    (OUT = X·W + 1)
//   store y=0 -> R3 @pop_prev                             (carrier: consumes the token)
//   store -> R2                                           (after the carrier in store order)
Status TokenCarrier(const HwConfig& c, std::vector<IsaCase>* out) {
  Builder b(c, "zero_size_token_carrier", 901);
  const uint32_t n = 4;
  const std::vector<int8_t> inp = b.I8(n * size_t{b.IL}), wgt = b.I8(b.WL, -3, 3);
  b.Emit(LoadInsn(Buffer::kInp, 0, b.Inp(inp), 1, n, n));
  b.Emit(LoadInsn(Buffer::kWgt, 0, b.Wgt(wgt), 1, 1, 1));
  // Would overwrite INP[0, 4) with other data if it moved a row.
  b.Emit(LoadInsn(Buffer::kInp, 0, b.Inp(b.I8(n * size_t{b.IL})), 0, n, n)).deps.push_next = true;
  const uint32_t u = b.Uops({{0, 0, 0}});
  Insn g = Nest(Opcode::kGemm, u, 1, 1, n, 0, 1);
  g.src_factor_in = 1;
  g.deps.pop_prev = g.deps.push_next = true;
  std::vector<int32_t> acc(n * size_t{b.L}, 0);
  for (const Insn& i : {Reset(u, 1, n, 0, 1), g}) {
    b.Emit(i);
    RefGemm(c, b.uops(), i, inp, wgt, &acc);
  }
  const int r1 = b.OutRegion(n, "X·W"), r2 = b.OutRegion(n, "X·W + 1");
  const int r3 = b.OutRegion(n, "untouched by the zero-size store");
  Insn& s1 = b.Store(r1, 0, 0, 1, n, n, SatBytes(acc));
  s1.deps.pop_prev = s1.deps.push_prev = true;
  Insn& add = b.Emit(AluI(AluOp::kAdd, 1, u, 1, 1, n, 0, 1));
  add.deps.pop_next = add.deps.push_next = true;
  for (int32_t& v : acc) v = RefAlu(AluOp::kAdd, v, 1);
  b.Store(r3, 0, 0, 0, n, n, {}).deps.pop_prev = true;
  b.Store(r2, 0, 0, 1, n, n, SatBytes(acc));
  return b.Done(out);
}

// ---- Depthwise GEMM, docs/isa.md §3.3.1 ------------------------------------------------------
//
// The expectations are direct convolutions over the input, written as a depthwise convolution is
// defined (every channel with its own filter); only the WGT layout follows the section. They never
// model the window, so a wrong slot order, a wrong tap column or a window that is not cleared at
// the instruction's start shows as a wrong sum. Which channel the other half of a WGT row reads
// only shows with weights there: a depthwise filter has zeros (DepthwiseWindow has both).

// The WGT element for one filter row when the window ends at the input column under tap k1-1:
// lane o weighs tap k (k0 <= k < k1) of its own channel in column (o mod 2)*T + (k1-1-k), and
// `cross[o][k]` of the neighbouring channel o^1 in column (1 - o mod 2)*T + (k1-1-k) (zero for a
// depthwise filter). taps[o][k], cross[o][k]: [block_out][kw].
std::vector<int8_t> DwWeights(const HwConfig& c, const std::vector<int8_t>& taps,
                              const std::vector<int8_t>& cross, uint32_t kw, uint32_t k0,
                              uint32_t k1) {
  const uint32_t T = c.block_in / 2;
  std::vector<int8_t> e(size_t{c.block_out} * c.block_in, 0);
  for (uint32_t o = 0; o < c.block_out; ++o)
    for (uint32_t k = k0; k < k1; ++k) {
      const uint32_t t = k1 - 1 - k, own = o % 2;
      e[o * c.block_in + own * T + t] = taps[o * kw + k];
      if (!cross.empty()) e[o * c.block_in + (1 - own) * T + t] = cross[o * kw + k];
    }
  return e;
}

struct DwConv {
  const char* name;
  uint32_t seed, h, w, pad, kh, kw, stride;
  int32_t pad_value;
  bool extremes;  // inputs and weights mostly -128: sums far beyond int16
  bool acc_init;  // accumulate onto loaded int32 values instead of a reset
};

// A KH x KW depthwise convolution over one channel block of an H x W image, laid out as a compiler
// uses the mode: INP holds the padded image (a padded LOAD); loop_out walks the output rows,
// loop_in the filter rows (src factor = the padded row width, wgt factor 1), the micro-ops the
// input columns of a row. The micro-op reading column c accumulates output column x when
// c = x*stride + KW-1 (the window then ends at the output's last tap); the others point at
// all-zero WGT elements, which a WGT load with x_pad_right = KH provides. A row wider than T taps
// is split into passes of at most T taps, each its own walk over the columns (on 1x8x8, T = 4, the
// 5-tap row takes two passes). Observed exactly through EmitByteView.
Status DepthwiseConv(const HwConfig& c, const DwConv& p, std::vector<IsaCase>* out) {
  Builder b(c, p.name, p.seed);
  const uint32_t T = c.block_in / 2, passes = (p.kw + T - 1) / T;
  const uint32_t PH = p.h + 2 * p.pad, PW = p.w + 2 * p.pad;
  const uint32_t OH = (PH - p.kh) / p.stride + 1, OW = (PW - p.kw) / p.stride + 1;
  const uint32_t n = OH * OW, zero_w = passes * p.kh;
  auto value = [&](int lo, int hi) {
    if (!p.extremes) return static_cast<int8_t>(b.Rand(lo, hi));
    const int r = b.Rand(0, 7);  // mostly -128, some 127 and -127 so signs mix
    return static_cast<int8_t>(r < 6 ? -128 : (r == 6 ? 127 : -127));
  };
  std::vector<int8_t> img(size_t{p.h} * p.w * b.IL), taps(size_t{p.kh} * c.block_out * p.kw);
  for (auto& v : img) v = value(-128, 127);
  for (auto& v : taps) v = value(-128, 127);
  // filter(o, ky, kx) = taps[ky][o][kx].
  auto filter = [&](uint32_t o, uint32_t ky, uint32_t kx) {
    return int32_t{taps[(size_t{ky} * c.block_out + o) * p.kw + kx]};
  };
  // The padded image, as the LOAD leaves it in INP: pad_value outside the H x W window.
  auto pixel = [&](uint32_t y, uint32_t x, size_t lane) -> int32_t {
    if (y < p.pad || y >= p.pad + p.h || x < p.pad || x >= p.pad + p.w) return p.pad_value;
    return img[(size_t{y - p.pad} * p.w + (x - p.pad)) * b.IL + lane];
  };

  std::vector<int32_t> acc(size_t{n} * b.L, 0);
  if (p.acc_init) {
    acc = b.I32(acc.size(), -(1 << 24), 1 << 24);
    b.Emit(LoadInsn(Buffer::kAcc, 0, b.Acc(acc), 1, n, n));
  }
  Insn li = LoadInsn(Buffer::kInp, 0, b.Inp(img), p.h, p.w, p.w);
  li.y_pad_top = li.y_pad_bottom = li.x_pad_left = li.x_pad_right = p.pad;
  li.pad_value = p.pad_value;
  b.Emit(li);
  std::vector<int8_t> wgt;  // WGT[pass*KH + ky]: taps [pass*T, ...) of filter row ky
  for (uint32_t pass = 0; pass < passes; ++pass)
    for (uint32_t ky = 0; ky < p.kh; ++ky) {
      const std::vector<int8_t> row(taps.begin() + size_t{ky} * c.block_out * p.kw,
                                    taps.begin() + size_t{ky + 1} * c.block_out * p.kw);
      const std::vector<int8_t> e =
          DwWeights(c, row, {}, p.kw, pass * T, std::min(p.kw, (pass + 1) * T));
      wgt.insert(wgt.end(), e.begin(), e.end());
    }
  Insn lw = LoadInsn(Buffer::kWgt, 0, b.Wgt(wgt), 1, zero_w, zero_w);
  lw.x_pad_right = p.kh;  // WGT[zero_w, zero_w + KH): all zero
  lw.deps.push_next = true;
  b.Emit(lw);

  std::vector<Uop> walk;
  for (uint32_t pass = 0; pass < passes; ++pass) {
    const uint32_t last = std::min(p.kw, (pass + 1) * T) - 1;  // the pass's last tap
    for (uint32_t col = 0; col < PW; ++col) {
      const bool real = col >= last && (col - last) % p.stride == 0 && (col - last) / p.stride < OW;
      walk.push_back(real ? Uop{(col - last) / p.stride, col, pass * p.kh} : Uop{0, col, zero_w});
    }
  }
  const uint32_t u = b.Uops(walk);
  if (!p.acc_init) b.Emit(Reset(u, OH, OW, OW, 1));  // walk[0].dst is 0
  Insn g = Nest(Opcode::kGemm, u, static_cast<uint32_t>(walk.size()), OH, p.kh, OW, 0);
  g.depthwise = true;
  g.src_factor_out = p.stride * PW;
  g.src_factor_in = PW;
  g.wgt_factor_in = 1;
  g.deps.pop_prev = true;
  b.Emit(g);

  for (uint32_t oy = 0; oy < OH; ++oy)
    for (uint32_t ox = 0; ox < OW; ++ox)
      for (uint32_t bb = 0; bb < c.batch; ++bb)
        for (uint32_t o = 0; o < c.block_out; ++o) {
          int64_t sum = 0;
          for (uint32_t ky = 0; ky < p.kh; ++ky)
            for (uint32_t kx = 0; kx < p.kw; ++kx)
              sum += filter(o, ky, kx) *
                     pixel(oy * p.stride + ky, ox * p.stride + kx, size_t{bb} * c.block_in + o);
          int32_t& a = acc[((size_t{oy} * OW + ox) * c.batch + bb) * c.block_out + o];
          a = Wrap32(a + sum);
        }
  b.EmitByteView(0, n, n, n + 4).deps.push_next = true;
  const int r = b.OutRegion(4 * n, "int32 depthwise sums as bytes [byte][out row][out col][lane]");
  b.Store(r, 0, n + 4, 1, 4 * n, 4 * n, ByteView(acc)).deps.pop_prev = true;
  return b.Done(out);
}

// The window across micro-ops and loop iterations, and its clear. Two depthwise GEMMs walk one
// input row each, one element per iteration (2 micro-ops x loop_in 3 x loop_out >= 2): every
// iteration accumulates a causal T-tap filter over the elements read so far, so each output's taps
// span micro-ops, loop_in and loop_out iterations. Before an instruction has read T elements, the
// missing taps read the cleared window: zeros, although the first GEMM left its last elements in
// the window and every weight is nonzero. Both halves of each WGT row are used, the other half
// with the neighbouring channel (§3.3.1), so the lane/column mapping is checked in full.
Status DepthwiseWindow(const HwConfig& c, std::vector<IsaCase>* out) {
  Builder b(c, "depthwise_window_carry_clear", 1102);
  const uint32_t T = c.block_in / 2, lo = (T + 4 + 5) / 6, N = 6 * lo;  // N > T iterations each
  const std::vector<int8_t> x = b.I8(size_t{2} * N * b.IL);
  std::vector<int32_t> acc = b.I32(size_t{2} * N * b.L, -(1 << 24), 1 << 24);
  std::vector<int8_t> own[2], cross[2];
  for (int k = 0; k < 2; ++k) {
    own[k] = b.I8(size_t{c.block_out} * T);
    cross[k] = b.I8(size_t{c.block_out} * T);
    for (auto* f : {&own[k], &cross[k]})
      for (auto& v : *f) v = v == 0 ? 1 : v;  // every tap counts
  }
  b.Emit(LoadInsn(Buffer::kAcc, 0, b.Acc(acc), 1, 2 * N, 2 * N));
  b.Emit(LoadInsn(Buffer::kInp, 0, b.Inp(x), 1, 2 * N, 2 * N));
  std::vector<int8_t> wgt = DwWeights(c, own[0], cross[0], T, 0, T);
  const std::vector<int8_t> w1 = DwWeights(c, own[1], cross[1], T, 0, T);
  wgt.insert(wgt.end(), w1.begin(), w1.end());
  b.Emit(LoadInsn(Buffer::kWgt, 0, b.Wgt(wgt), 1, 2, 2)).deps.push_next = true;
  const uint32_t u = b.Uops({{0, 0, 0}, {1, 1, 0}, {N, N, 1}, {N + 1, N + 1, 1}});
  for (uint32_t k = 0; k < 2; ++k) {
    Insn g = Nest(Opcode::kGemm, u + 2 * k, 2, lo, 3, 6, 2);  // element 6*i0 + 2*i1 + uop
    g.depthwise = true;
    g.src_factor_out = 6;
    g.src_factor_in = 2;
    g.deps.pop_prev = k == 0;
    b.Emit(g);
  }
  // Output j of GEMM k: taps t = 0..T-1 over elements j, j-1, ..., j-T+1 of its own row (zero
  // before the row's start); tap t of lane o weighs channel o with own[k][o][T-1-t] and channel
  // o^1 with cross[k][o][T-1-t] (DwWeights' tap order: the last tap reads the newest element).
  for (uint32_t k = 0; k < 2; ++k)
    for (uint32_t j = 0; j < N; ++j)
      for (uint32_t bb = 0; bb < c.batch; ++bb)
        for (uint32_t o = 0; o < c.block_out; ++o) {
          int64_t sum = 0;
          for (uint32_t t = 0; t < T && t <= j; ++t) {
            const int8_t* e = &x[(size_t{k * N + j - t} * c.batch + bb) * c.block_in];
            sum += int32_t{own[k][o * T + T - 1 - t]} * e[o] +
                   int32_t{cross[k][o * T + T - 1 - t]} * e[o ^ 1];
          }
          int32_t& a = acc[(size_t{k * N + j} * c.batch + bb) * c.block_out + o];
          a = Wrap32(a + sum);
        }
  const uint32_t n = 2 * N;
  b.EmitByteView(0, n, n, n + 4).deps.push_next = true;
  const int r = b.OutRegion(4 * n, "int32 sums as bytes [byte][gemm][element][lane]");
  b.Store(r, 0, n + 4, 1, 4 * n, 4 * n, ByteView(acc)).deps.pop_prev = true;
  return b.Done(out);
}

// One depthwise GEMM of 64 x 64 iterations over the same 64 elements, accumulating 64 times into
// each of 64 ACC elements: the window wraps from the last element to the first at every loop_out
// iteration, and the instruction is long enough that a device which runs it in slices (the
// opencl kernel's launch budget) must carry the window from one slice to the next.
Status DepthwiseLongWalk(const HwConfig& c, std::vector<IsaCase>* out) {
  Builder b(c, "depthwise_long_walk", 1106);
  const uint32_t T = c.block_in / 2, N = 64;
  const std::vector<int8_t> x = b.I8(size_t{N} * b.IL);
  std::vector<int32_t> acc = b.I32(size_t{N} * b.L, -(1 << 24), 1 << 24);
  const std::vector<int8_t> own = b.I8(size_t{c.block_out} * T), cross = b.I8(own.size());
  b.Emit(LoadInsn(Buffer::kAcc, 0, b.Acc(acc), 1, N, N));
  b.Emit(LoadInsn(Buffer::kInp, 0, b.Inp(x), 1, N, N));
  b.Emit(LoadInsn(Buffer::kWgt, 0, b.Wgt(DwWeights(c, own, cross, T, 0, T)), 1, 1, 1))
      .deps.push_next = true;
  Insn g = Nest(Opcode::kGemm, b.Uops({{0, 0, 0}}), 1, N, N, 0, 1);  // d = s = i1
  g.depthwise = true;
  g.src_factor_in = 1;
  g.deps.pop_prev = true;
  b.Emit(g);
  // Iteration k reads element k mod N; its taps reach back over the T elements read last.
  for (uint32_t k = 0; k < N * N; ++k)
    for (uint32_t bb = 0; bb < c.batch; ++bb)
      for (uint32_t o = 0; o < c.block_out; ++o) {
        int64_t sum = 0;
        for (uint32_t t = 0; t < T && t <= k; ++t) {
          const int8_t* e = &x[(size_t{(k - t) % N} * c.batch + bb) * c.block_in];
          sum +=
              int32_t{own[o * T + T - 1 - t]} * e[o] + int32_t{cross[o * T + T - 1 - t]} * e[o ^ 1];
        }
        int32_t& a = acc[(size_t{k % N} * c.batch + bb) * c.block_out + o];
        a = Wrap32(a + sum);
      }
  b.EmitByteView(0, N, N, N + 4).deps.push_next = true;
  const int r = b.OutRegion(4 * N, "int32 sums as bytes [byte][element][lane]");
  b.Store(r, 0, N + 4, 1, 4 * N, 4 * N, ByteView(acc)).deps.pop_prev = true;
  return b.Done(out);
}

}  // namespace

Status BuildLongRunningCase(const HwConfig& c, std::vector<IsaCase>* out) {
  Builder b(c, "long_running_gemm", 1001);
  const uint32_t loop = (1u << isa::Layout::kLoopBits) - 1;
  const uint32_t uops = std::min<uint32_t>(c.uop_depth(), 1024);
  b.Emit(LoadInsn(Buffer::kInp, 0, b.Inp(b.I8(b.IL)), 1, 1, 1));
  b.Emit(LoadInsn(Buffer::kWgt, 0, b.Wgt(b.I8(b.WL)), 1, 1, 1)).deps.push_next = true;
  const uint32_t u = b.Uops(std::vector<Uop>(uops, Uop{0, 0, 0}));
  Insn& g = b.Emit(Nest(Opcode::kGemm, u, uops, loop, loop, 0, 0));
  g.deps.pop_prev = g.deps.push_prev = g.deps.push_next = true;
  const int r = b.OutRegion(1, "unchecked");
  b.Store(r, 0, 0, 1, 1, 1, std::vector<uint8_t>(b.L)).deps.pop_prev = true;
  b.Emit(LoadInsn(Buffer::kInp, 1, b.Inp(b.I8(b.IL)), 1, 1, 1)).deps.pop_next = true;
  LOOM_RETURN_IF_ERROR(b.Done(out));
  out->back().checks.clear();
  return Status::Ok();
}

Status BuildIsaCases(const HwConfig& c, std::vector<IsaCase>* out) {
  // The largest cases fill 1024 INP and ACC elements (a 32 x 32 block with pad 15 on every side).
  if (c.inp_depth() < 1024 || c.acc_depth() < 1024 || c.wgt_depth() < 24 || c.uop_depth() < 64) {
    return InvalidArgument("config " + c.name + ": the ISA cases need 1024 inp and acc elements");
  }
  out->clear();
  LOOM_RETURN_IF_ERROR(OutRoundtrip(c, out));
  const Pads inp_pads[] = {{"_top", 2, 0, 0, 0, 3, 4},  {"_bottom", 0, 2, 0, 0, 3, 4},
                           {"_left", 0, 0, 3, 0, 3, 4}, {"_right", 0, 0, 0, 1, 3, 4},
                           {"_all", 1, 2, 3, 1, 3, 4},  {"_max", 15, 15, 15, 15, 2, 2}};
  uint32_t seed = 200;
  for (const Pads& p : inp_pads) LOOM_RETURN_IF_ERROR(PaddedLoad(c, Buffer::kInp, p, seed++, out));
  for (const Pads& p : {Pads{"", 1, 2, 2, 1, 3, 4}, Pads{"_max", 15, 15, 15, 15, 2, 2}}) {
    LOOM_RETURN_IF_ERROR(PaddedLoad(c, Buffer::kAcc, p, seed++, out));
  }
  // INP padding that carries an activation zero point (§3.1 pad_value): the most negative int8,
  // whose sign bit a zero-extending lane would lose, and a small positive value.
  for (const Pads& p :
       {Pads{"_padval_min", 1, 2, 3, 1, 3, 4, -128}, Pads{"_padval_37", 2, 1, 1, 2, 3, 4, 37}}) {
    LOOM_RETURN_IF_ERROR(PaddedLoad(c, Buffer::kInp, p, seed++, out));
  }
  LOOM_RETURN_IF_ERROR(GemmResetAccumulate(c, out));
  LOOM_RETURN_IF_ERROR(GemmProgram(c, "gemm_virtual_threads", 2, false, out));
  LOOM_RETURN_IF_ERROR(GemmProgram(c, "gemm_virtual_threads_requant", 2, true, out));
  LOOM_RETURN_IF_ERROR(GemmProgram(c, "gemm_serial", 1, false, out));
  LOOM_RETURN_IF_ERROR(AluRegOps(c, out));
  LOOM_RETURN_IF_ERROR(AluImmOps(c, out));
  LOOM_RETURN_IF_ERROR(AluSrcDstLoops(c, out));
  LOOM_RETURN_IF_ERROR(RequantRelu(c, out));
  LOOM_RETURN_IF_ERROR(FusedRequant(c, out));
  LOOM_RETURN_IF_ERROR(RequantClear(c, out));
  LOOM_RETURN_IF_ERROR(GemmEpilogue(c, out));
  LOOM_RETURN_IF_ERROR(TokenCarrier(c, out));
  if (c.block_in != c.block_out) return Status::Ok();  // no depthwise mode (§3.3.1)
  // name, seed, H, W, pad, KH, KW, stride, pad_value, extremes, acc_init
  const DwConv convs[] = {
      {"depthwise_3x3", 1101, 4, 5, 1, 3, 3, 1, 0, false, true},
      {"depthwise_3x3_stride2", 1103, 5, 7, 1, 3, 3, 2, 5, false, false},
      {"depthwise_5tap", 1104, 2, 6, 2, 2, 5, 1, 0, false, false},
      {"depthwise_extremes", 1105, 3, 4, 1, 3, 3, 1, -128, true, false},
  };
  for (const DwConv& p : convs) LOOM_RETURN_IF_ERROR(DepthwiseConv(c, p, out));
  LOOM_RETURN_IF_ERROR(DepthwiseWindow(c, out));
  return DepthwiseLongWalk(c, out);
}

}  // namespace loom::programs
