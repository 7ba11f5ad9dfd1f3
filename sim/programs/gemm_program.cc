#include "sim/programs/gemm_program.h"

#include <algorithm>
#include <random>

namespace loom::programs {

using isa::AluOp;
using isa::Buffer;
using isa::Insn;
using isa::Opcode;

namespace {

Status CheckSpec(const HwConfig& c, const GemmSpec& s) {
  auto divides = [](uint32_t t, uint32_t d) { return t > 0 && d > 0 && d % t == 0; };
  if (!divides(s.tile_m, s.m) || !divides(s.tile_k, s.k) || !divides(s.tile_n, s.n)) {
    return InvalidArgument("tiles must divide the GEMM: m=" + std::to_string(s.m) + "/" +
                           std::to_string(s.tile_m) + " k=" + std::to_string(s.k) + "/" +
                           std::to_string(s.tile_k) + " n=" + std::to_string(s.n) + "/" +
                           std::to_string(s.tile_n));
  }
  if (s.virtual_threads != 1 && s.virtual_threads != 2) {
    return InvalidArgument("virtual_threads must be 1 or 2");
  }
  const uint64_t v = s.virtual_threads;
  const struct {
    const char* buffer;
    uint64_t need, depth;
  } fits[] = {{"inp", v * s.tile_m * s.tile_k, c.inp_depth()},
              {"wgt", v * s.tile_n * s.tile_k, c.wgt_depth()},
              {"acc", v * s.tile_m * s.tile_n + s.tile_n, c.acc_depth()},
              {"uop", v * v * s.tile_k + 2 * v, c.uop_depth()}};
  for (const auto& f : fits) {
    if (f.need > f.depth) {
      return InvalidArgument(std::string("tiles need ") + std::to_string(f.need) + " " + f.buffer +
                             " elements, the buffer holds " + std::to_string(f.depth));
    }
  }
  const uint32_t loop_max = (1u << isa::Layout::kLoopBits) - 1;
  if (s.tile_m > loop_max || s.tile_n > loop_max) return InvalidArgument("tile exceeds loop range");
  return Status::Ok();
}

int32_t ShrRound(int32_t a, int32_t n) {
  n = std::clamp(n, -31, 31);
  if (n < 0) return static_cast<int32_t>(static_cast<uint32_t>(a) << -n);
  if (n == 0) return a;
  return static_cast<int32_t>((int64_t{a} + (int64_t{1} << (n - 1))) >> n);
}

}  // namespace

uint64_t GemmMacs(const HwConfig& c, const GemmSpec& s) {
  return uint64_t{s.m} * c.batch * s.n * c.block_out * s.k * c.block_in;
}

GemmData RandomGemmData(const HwConfig& c, const GemmSpec& s, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> i8(-128, 127);
  std::uniform_int_distribution<int32_t> mul(1 << 10, 1 << 14);
  GemmData d;
  d.a.resize(size_t{s.m} * c.batch * s.k * c.block_in);
  d.b.resize(size_t{s.n} * c.block_out * s.k * c.block_in);
  d.multiplier.resize(size_t{s.n} * c.block_out);
  for (auto& x : d.a) x = static_cast<int8_t>(i8(rng));
  for (auto& x : d.b) x = static_cast<int8_t>(i8(rng));
  for (auto& x : d.multiplier) x = mul(rng);
  return d;
}

std::vector<int8_t> ReferenceGemm(const HwConfig& c, const GemmSpec& s, const GemmData& d) {
  const size_t M = size_t{s.m} * c.batch, N = size_t{s.n} * c.block_out;
  const size_t K = size_t{s.k} * c.block_in;
  std::vector<int8_t> out(M * N);
  for (size_t i = 0; i < M; ++i) {
    for (size_t j = 0; j < N; ++j) {
      int64_t acc = 0;
      for (size_t k = 0; k < K; ++k) acc += int64_t{d.a[i * K + k]} * d.b[j * K + k];
      int32_t v = static_cast<int32_t>(static_cast<uint32_t>(acc));  // int32 wrap, as the ACC
      if (s.requant) {
        v = ShrRound(v, s.pre_shift);
        v = static_cast<int32_t>(static_cast<uint32_t>(int64_t{v} * d.multiplier[j]));
        v = ShrRound(v, s.post_shift);
        if (s.relu) v = std::max(v, 0);
      }
      out[i * N + j] = static_cast<int8_t>(std::clamp(v, -128, 127));
    }
  }
  return out;
}

std::vector<int8_t> UnblockOutput(const HwConfig& c, const GemmSpec& s,
                                  const std::vector<uint8_t>& blocked) {
  const size_t N = size_t{s.n} * c.block_out;
  std::vector<int8_t> out(size_t{s.m} * c.batch * N);
  size_t p = 0;
  for (uint32_t mb = 0; mb < s.m; ++mb)
    for (uint32_t nb = 0; nb < s.n; ++nb)
      for (uint32_t b = 0; b < c.batch; ++b)
        for (uint32_t o = 0; o < c.block_out; ++o)
          out[(size_t{mb} * c.batch + b) * N + size_t{nb} * c.block_out + o] =
              static_cast<int8_t>(blocked[p++]);
  return out;
}

Status BuildGemm(const HwConfig& c, const GemmSpec& s, const GemmData& d, Program* p,
                 GemmOutput* output) {
  LOOM_RETURN_IF_ERROR(CheckSpec(c, s));
  const uint32_t V = s.virtual_threads, tm = s.tile_m, tk = s.tile_k, tn = s.tile_n;
  const uint32_t bi = c.block_in, bo = c.block_out, batch = c.batch;

  // Blocked DRAM images: inp [m][k][batch][bi], wgt [n][k][bo][bi], mul [n][batch][bo].
  const size_t K = size_t{s.k} * bi;
  std::vector<int8_t> inp, wgt;
  inp.reserve(d.a.size());
  wgt.reserve(d.b.size());
  for (uint32_t mb = 0; mb < s.m; ++mb)
    for (uint32_t kb = 0; kb < s.k; ++kb)
      for (uint32_t b = 0; b < batch; ++b)
        for (uint32_t i = 0; i < bi; ++i) inp.push_back(d.a[(size_t{mb} * batch + b) * K + kb * bi + i]);
  for (uint32_t nb = 0; nb < s.n; ++nb)
    for (uint32_t kb = 0; kb < s.k; ++kb)
      for (uint32_t o = 0; o < bo; ++o)
        for (uint32_t i = 0; i < bi; ++i) wgt.push_back(d.b[(size_t{nb} * bo + o) * K + kb * bi + i]);
  const uint64_t inp_addr = p->AddData(Bytes(inp), std::max<uint64_t>(64, c.inp_elem_bytes()));
  const uint64_t wgt_addr = p->AddData(Bytes(wgt), std::max<uint64_t>(64, c.wgt_elem_bytes()));
  uint64_t mul_addr = 0;
  if (s.requant) {
    std::vector<int32_t> mul;
    for (uint32_t nb = 0; nb < s.n; ++nb)
      for (uint32_t b = 0; b < batch; ++b)
        for (uint32_t o = 0; o < bo; ++o) mul.push_back(d.multiplier[size_t{nb} * bo + o]);
    mul_addr = p->AddData(Bytes(mul), std::max<uint64_t>(64, c.acc_elem_bytes()));
  }
  output->bytes = uint64_t{s.m} * s.n * c.out_elem_bytes();
  output->addr = p->Allocate(output->bytes, std::max<uint64_t>(64, c.out_elem_bytes()));
  const uint32_t inp_elem = static_cast<uint32_t>(inp_addr / c.inp_elem_bytes());
  const uint32_t wgt_elem = static_cast<uint32_t>(wgt_addr / c.wgt_elem_bytes());
  const uint32_t mul_elem = static_cast<uint32_t>(mul_addr / c.acc_elem_bytes());
  const uint32_t out_elem = static_cast<uint32_t>(output->addr / c.out_elem_bytes());

  // SRAM regions: thread r owns inp [r*tm*tk, ...), wgt [r*tn*tk, ...), acc [r*tm*tn, ...).
  const uint32_t mul_base = V * tm * tn;
  std::vector<isa::Uop> uops;
  std::vector<uint32_t> gemm_uop(V * V), reset_uop(V), alu_uop(V);
  for (uint32_t r = 0; r < V; ++r) {
    for (uint32_t a = 0; a < V; ++a) {
      gemm_uop[r * V + a] = static_cast<uint32_t>(uops.size());
      for (uint32_t kk = 0; kk < tk; ++kk) uops.push_back({a * tm * tn, r * tm * tk + kk, r * tn * tk + kk});
    }
  }
  for (uint32_t a = 0; a < V; ++a) {
    reset_uop[a] = static_cast<uint32_t>(uops.size());
    uops.push_back({a * tm * tn, 0, 0});
    alu_uop[a] = static_cast<uint32_t>(uops.size());
    uops.push_back({a * tm * tn, mul_base, 0});
  }
  uint64_t uop_addr = 0;
  LOOM_RETURN_IF_ERROR(p->AddUops(uops, &uop_addr));
  const uint32_t nuops = static_cast<uint32_t>(uops.size());
  p->Emit(LoadInsn(Buffer::kUop, 0, static_cast<uint32_t>(uop_addr / HwConfig::kUopBytes), 1, nuops, nuops));

  const uint32_t tiles_m = s.m / tm, tiles_n = s.n / tn, chunks = s.k / tk;
  const uint32_t T = tiles_m * tiles_n, S = T * chunks;
  uint32_t t = 0, step = 0;
  // A loop over the tile's tm x tn acc elements: dst = base + i*tn + j.
  auto over_tile = [&](Insn insn) {
    insn.dst_factor_out = tn;
    insn.dst_factor_in = 1;
    return insn;
  };
  for (uint32_t mt = 0; mt < tiles_m; ++mt) {
    for (uint32_t nt = 0; nt < tiles_n; ++nt, ++t) {
      const uint32_t a = t % V;
      if (s.requant) {
        p->Emit(LoadInsn(Buffer::kAcc, mul_base, mul_elem + nt * tn, 1, tn, tn));
      }
      Insn reset = over_tile(LoopInsn(Opcode::kGemm, reset_uop[a], 1, tm, tn));
      reset.reset = true;
      reset.deps.pop_next = t >= V;  // the store of tile t-V has drained this acc/out region
      p->Emit(reset);
      for (uint32_t kc = 0; kc < chunks; ++kc, ++step) {
        const uint32_t r = step % V;
        Insn li = LoadInsn(Buffer::kInp, r * tm * tk, inp_elem + mt * tm * s.k + kc * tk, tm, tk, s.k);
        li.deps.pop_next = step >= V;  // the GEMM of step-V has finished reading region r
        p->Emit(li);
        Insn lw = LoadInsn(Buffer::kWgt, r * tn * tk, wgt_elem + nt * tn * s.k + kc * tk, tn, tk, s.k);
        lw.deps.push_next = true;
        p->Emit(lw);
        Insn g = over_tile(LoopInsn(Opcode::kGemm, gemm_uop[r * V + a], tk, tm, tn));
        g.src_factor_out = tk;
        g.wgt_factor_in = tk;
        g.deps.pop_prev = true;
        g.deps.push_prev = step + V < S;
        p->Emit(g);
      }
      if (s.requant) {
        p->Emit(over_tile(AluImm(AluOp::kShrRound, s.pre_shift, alu_uop[a], 1, tm, tn)));
        Insn mul = over_tile(LoopInsn(Opcode::kAlu, alu_uop[a], 1, tm, tn));
        mul.alu_op = AluOp::kMul;
        mul.src_factor_in = 1;  // multiplier of output block j
        p->Emit(mul);
        p->Emit(over_tile(AluImm(AluOp::kShrRound, s.post_shift, alu_uop[a], 1, tm, tn)));
        if (s.relu) p->Emit(over_tile(AluImm(AluOp::kMax, 0, alu_uop[a], 1, tm, tn)));
      }
      // The last compute instruction of the tile hands the out region to the store module.
      p->last().deps.push_next = true;
      Insn st = StoreInsn(a * tm * tn, out_elem + mt * tm * s.n + nt * tn, tm, tn, s.n);
      st.deps.pop_prev = true;
      st.deps.push_prev = t + V < T;
      p->Emit(st);
    }
  }
  p->Emit(Finish());
  return p->Finalize();
}

}  // namespace loom::programs
