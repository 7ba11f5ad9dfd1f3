// The GEMM depthwise mode (docs/isa.md §3.3.1) on the RTL (tsim) against fsim, on every RTL model
// the build has: depthwise convolutions that walk input rows (zero-weight warm-up micro-ops,
// stride 1 and 2, filters shorter than the window and as long), which also match a plain
// convolution computed here; depthwise and plain GEMMs back to back, where a window left over from
// an earlier instruction would show; and random programs mixing depthwise, plain and ALU loops
// whose iterations hit the same ACC element back to back, half of them under DRAM back-pressure.
// tsim must leave exactly fsim's DRAM image behind, and (for the walks) fsim's cycle estimate must
// be within the 10 % tsim_isa_test holds every program to.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "runtime/config/config_file.h"
#include "sim/programs/program.h"
#include "sim/tsim/model.h"
#include "tests/tsim/run_both.h"

namespace loom {
namespace {

using isa::AluOp;
using isa::Buffer;
using isa::Insn;
using isa::Opcode;
using programs::Bytes;
using programs::LoadInsn;
using programs::LoopInsn;
using programs::Program;
using programs::StoreInsn;
using testing::FirstDifferences;
using testing::Outcome;
using testing::RunBoth;

constexpr double kTolerance = 0.10;  // as tsim_isa_test's

std::vector<std::string> ModelNames() {
  std::vector<std::string> names;
  for (const tsim::ModelInfo& m : tsim::BuiltModels()) names.emplace_back(m.name);
  return names;
}

int8_t Sat8(int64_t v) { return static_cast<int8_t>(std::clamp<int64_t>(v, -128, 127)); }

class TsimDepthwiseTest : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    ASSERT_TRUE(LoadHwConfig(GetParam(), &c_).ok());
    ASSERT_EQ(c_.block_in, c_.block_out);
    taps_ = c_.block_in / 2;
  }

  std::vector<int8_t> I8(std::mt19937& rng, size_t n, int lo, int hi) {
    std::uniform_int_distribution<int> d(lo, hi);
    std::vector<int8_t> v(n);
    for (auto& x : v) x = static_cast<int8_t>(d(rng));
    return v;
  }
  std::vector<int32_t> I32(std::mt19937& rng, size_t n, int32_t lo, int32_t hi) {
    std::uniform_int_distribution<int32_t> d(lo, hi);
    std::vector<int32_t> v(n);
    for (auto& x : v) x = d(rng);
    return v;
  }

  // The WGT element of a depthwise filter f[c * kw + k] (channel c, tap k) in the ISA's layout:
  // lane o weighs window slot t (the input t columns back) at column (o mod 2)·T + t.
  std::vector<int8_t> DwWeights(const std::vector<int8_t>& f, uint32_t kw) const {
    const uint32_t n = c_.block_in;
    std::vector<int8_t> w(size_t{n} * n, 0);
    for (uint32_t o = 0; o < n; ++o) {
      for (uint32_t t = 0; t < kw; ++t)
        w[size_t{o} * n + (o % 2) * taps_ + t] = f[o * kw + kw - 1 - t];
    }
    return w;
  }

  // Runs p on both simulators: the same DRAM image, and cycles within the tolerance if asked.
  void ExpectSame(const Program& p, uint32_t stall_percent, bool check_cycles, Outcome* o) {
    const Status s = RunBoth(c_, p, o, stall_percent);
    ASSERT_TRUE(s.ok()) << s.ToString() << "\n" << p.Listing();
    EXPECT_EQ(o->tsim_dram, o->fsim_dram)
        << "DRAM after the run: " << FirstDifferences(o->fsim_dram, o->tsim_dram) << p.Listing();
    EXPECT_EQ(o->tsim.macs, o->fsim.macs);
    EXPECT_EQ(o->tsim.insns, o->fsim.insns);
    const double ratio = static_cast<double>(o->fsim.cycles) / static_cast<double>(o->tsim.cycles);
    std::printf("%s: fsim %llu cycles, tsim %llu cycles, ratio %.3f\n", c_.name.c_str(),
                static_cast<unsigned long long>(o->fsim.cycles),
                static_cast<unsigned long long>(o->tsim.cycles), ratio);
    if (check_cycles) {
      EXPECT_LE(std::fabs(ratio - 1.0), kTolerance) << "fsim / tsim cycles = " << ratio;
    }
  }

  // A depthwise convolution of H rows of W INP elements with a filter of width kw ≤ T and stride
  // s: Wo = (W - kw) / s + 1 outputs per row, accumulated onto ACC values loaded first. One
  // depthwise GEMM walks every row (loop_out = H); its micro-ops are the W columns of a row in
  // order: column j = s·x + kw - 1 completes output x (WGT element 1, the filter), every other
  // column only shifts the window (WGT element 0, all zeros) and points at the next output, so
  // consecutive micro-ops share their dst. The window carries from row to row; the zero columns
  // of the filter hide the previous row's elements. Checks the stored outputs against a plain
  // convolution computed here, and the whole DRAM image against fsim.
  void RowWalk(uint32_t kw, uint32_t stride, uint32_t seed) {
    ASSERT_LE(kw, taps_);
    const uint32_t H = 3, W = 2 * taps_ + 5, Wo = (W - kw) / stride + 1;
    const uint32_t n = c_.block_in, batch = c_.batch;
    std::mt19937 rng(seed);
    // Small values, so that few outputs saturate and OUT still tells results apart.
    const std::vector<int8_t> in = I8(rng, size_t{H} * W * batch * n, -4, 4);
    const std::vector<int8_t> f = I8(rng, size_t{n} * kw, -4, 4);
    const std::vector<int32_t> bias = I32(rng, size_t{H} * Wo * batch * n, -20, 20);

    std::vector<isa::Uop> uops;
    for (uint32_t j = 0; j < W; ++j) {
      const bool completes = j + 1 >= kw && (j + 1 - kw) % stride == 0;
      const uint32_t next = j + 1 < kw ? 0 : (j + 1 - kw) / stride + (completes ? 0 : 1);
      uops.push_back({std::min(next, Wo - 1), j, completes ? 1u : 0u});
    }
    std::vector<int8_t> wgt(size_t{n} * n, 0);
    const std::vector<int8_t> filter = DwWeights(f, kw);
    wgt.insert(wgt.end(), filter.begin(), filter.end());

    Program p(c_);
    uint64_t uop_addr = 0;
    ASSERT_TRUE(p.AddUops(uops, &uop_addr).ok());
    const uint64_t inp_addr = p.AddData(Bytes(in), c_.inp_elem_bytes());
    const uint64_t wgt_addr = p.AddData(Bytes(wgt), c_.wgt_elem_bytes());
    const uint64_t acc_addr = p.AddData(Bytes(bias), c_.acc_elem_bytes());
    const uint32_t outs = H * Wo;
    const uint64_t out_addr = p.Allocate(uint64_t{outs} * c_.out_elem_bytes(), c_.out_elem_bytes());
    p.Emit(LoadInsn(Buffer::kUop, 0, static_cast<uint32_t>(uop_addr / 4), 1, W, W));
    p.Emit(LoadInsn(Buffer::kInp, 0, static_cast<uint32_t>(inp_addr / c_.inp_elem_bytes()), 1,
                    H * W, H * W));
    Insn lw =
        LoadInsn(Buffer::kWgt, 0, static_cast<uint32_t>(wgt_addr / c_.wgt_elem_bytes()), 1, 2, 2);
    lw.deps.push_next = true;
    p.Emit(lw);
    p.Emit(LoadInsn(Buffer::kAcc, 0, static_cast<uint32_t>(acc_addr / c_.acc_elem_bytes()), 1, outs,
                    outs));
    Insn g = LoopInsn(Opcode::kGemm, 0, W, H, 1);
    g.depthwise = true;
    g.src_factor_out = W;
    g.dst_factor_out = Wo;
    g.deps.pop_prev = true;
    g.deps.push_next = true;
    p.Emit(g);
    Insn st = StoreInsn(0, static_cast<uint32_t>(out_addr / c_.out_elem_bytes()), 1, outs, outs);
    st.deps.pop_prev = true;
    p.Emit(st);
    p.Emit(programs::Finish());
    ASSERT_TRUE(p.Finalize().ok());

    // out[y][x][b][c] = sat8(bias + Σ_k in[y][s·x + k][b][c] · f[c][k]).
    std::vector<uint8_t> want;
    for (uint32_t y = 0; y < H; ++y) {
      for (uint32_t x = 0; x < Wo; ++x) {
        for (uint32_t b = 0; b < batch; ++b) {
          for (uint32_t ch = 0; ch < n; ++ch) {
            int64_t acc = bias[((size_t{y} * Wo + x) * batch + b) * n + ch];
            for (uint32_t k = 0; k < kw; ++k) {
              acc += int64_t{in[((size_t{y} * W + stride * x + k) * batch + b) * n + ch]} *
                     f[size_t{ch} * kw + k];
            }
            want.push_back(static_cast<uint8_t>(Sat8(acc)));
          }
        }
      }
    }

    Outcome o;
    ExpectSame(p, 0, /*check_cycles=*/true, &o);
    const std::vector<uint8_t> got(
        o.tsim_dram.begin() + static_cast<ptrdiff_t>(out_addr),
        o.tsim_dram.begin() + static_cast<ptrdiff_t>(out_addr + want.size()));
    EXPECT_EQ(got, want) << "the convolution's outputs: " << FirstDifferences(want, got);
  }

  HwConfig c_;
  uint32_t taps_ = 0;
};

TEST_P(TsimDepthwiseTest, RowWalkStride1) { RowWalk(3, 1, 21); }
TEST_P(TsimDepthwiseTest, RowWalkStride1FullWindow) { RowWalk(taps_, 1, 22); }
TEST_P(TsimDepthwiseTest, RowWalkStride2) { RowWalk(3, 2, 23); }
TEST_P(TsimDepthwiseTest, RowWalkStride2FullWindow) { RowWalk(taps_, 2, 24); }

// Depthwise, plain, depthwise, depthwise GEMMs in a row, each into its own ACC region. The
// depthwise ones walk with no warm-up (one micro-op, loop_in steps src and dst by 1) and a filter
// as long as the window, so their first T - 1 outputs read slots that only the ISA's clear at the
// instruction's start keeps at zero: a window kept from the instruction before would change them.
TEST_P(TsimDepthwiseTest, BackToBackInstructionsDoNotShareTheWindow) {
  std::mt19937 rng(31);
  const uint32_t n = c_.block_in, N = 3 * taps_;  // iterations per GEMM
  Program p(c_);
  uint64_t uop_addr = 0;
  // uop k reads INP element k·N, writes ACC element k·N, weighs WGT element k.
  ASSERT_TRUE(
      p.AddUops({{0, 0, 0}, {N, N, 1}, {2 * N, 2 * N, 2}, {3 * N, 3 * N, 3}}, &uop_addr).ok());
  const uint64_t inp_addr =
      p.AddData(Bytes(I8(rng, size_t{4} * N * c_.inp_elem_bytes(), -3, 3)), c_.inp_elem_bytes());
  std::vector<int8_t> wgt = DwWeights(I8(rng, size_t{n} * taps_, -3, 3), taps_);
  const std::vector<int8_t> plain = I8(rng, c_.wgt_elem_bytes(), -3, 3);
  wgt.insert(wgt.end(), plain.begin(), plain.end());
  for (int k = 0; k < 2; ++k) {
    const std::vector<int8_t> dw = DwWeights(I8(rng, size_t{n} * taps_, -3, 3), taps_);
    wgt.insert(wgt.end(), dw.begin(), dw.end());
  }
  const uint64_t wgt_addr = p.AddData(Bytes(wgt), c_.wgt_elem_bytes());
  const uint64_t out_addr = p.Allocate(uint64_t{4} * N * c_.out_elem_bytes(), c_.out_elem_bytes());

  p.Emit(LoadInsn(Buffer::kUop, 0, static_cast<uint32_t>(uop_addr / 4), 1, 4, 4));
  p.Emit(LoadInsn(Buffer::kInp, 0, static_cast<uint32_t>(inp_addr / c_.inp_elem_bytes()), 1, 4 * N,
                  4 * N));
  Insn lw =
      LoadInsn(Buffer::kWgt, 0, static_cast<uint32_t>(wgt_addr / c_.wgt_elem_bytes()), 1, 4, 4);
  lw.deps.push_next = true;
  p.Emit(lw);
  Insn zero = LoopInsn(Opcode::kGemm, 0, 1, 1, 4 * N);
  zero.reset = true;
  zero.dst_factor_in = 1;
  zero.deps.pop_prev = true;
  p.Emit(zero);
  for (uint32_t k = 0; k < 4; ++k) {
    Insn g = LoopInsn(Opcode::kGemm, k, 1, 1, N);
    g.depthwise = k != 1;
    g.src_factor_in = 1;
    g.dst_factor_in = 1;
    p.Emit(g);
  }
  p.last().deps.push_next = true;
  Insn st = StoreInsn(0, static_cast<uint32_t>(out_addr / c_.out_elem_bytes()), 1, 4 * N, 4 * N);
  st.deps.pop_prev = true;
  p.Emit(st);
  p.Emit(programs::Finish());
  ASSERT_TRUE(p.Finalize().ok());
  Outcome o;
  ExpectSame(p, 0, /*check_cycles=*/true, &o);
}

// Random GEMM (depthwise or plain) and ALU instructions over a 64-element ACC region, as in
// tsim_stress_test's RandomLoopPrograms: random micro-ops (several sharing a destination), small
// loop factors (iterations revisit elements one or two cycles apart, the pipeline's forwarding
// paths), any WGT values (the mode's semantics do not need a depthwise filter). Odd seeds run
// under DRAM back-pressure.
TEST_P(TsimDepthwiseTest, RandomProgramsWithAccHazards) {
  const uint32_t L = c_.batch * c_.block_out;
  for (uint32_t seed = 0; seed < 16; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    std::mt19937 rng(2000 + seed);
    auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
    Program p(c_);
    std::vector<isa::Uop> uops;
    for (int i = 0; i < 64; ++i) {
      uops.push_back({static_cast<uint32_t>(pick(0, 31)), static_cast<uint32_t>(pick(0, 31)),
                      static_cast<uint32_t>(pick(0, 15))});
    }
    uops.push_back({0, 0, 0});  // uop 64: identity, for the final copy
    uint64_t uop_addr = 0;
    ASSERT_TRUE(p.AddUops(uops, &uop_addr).ok());
    const uint64_t inp =
        p.AddData(Bytes(I8(rng, 64 * c_.inp_elem_bytes(), -4, 4)), c_.inp_elem_bytes());
    const uint64_t wgt =
        p.AddData(Bytes(I8(rng, 32 * c_.wgt_elem_bytes(), -4, 4)), c_.wgt_elem_bytes());
    const uint64_t acc = p.AddData(Bytes(I32(rng, 64 * L, -60, 60)), c_.acc_elem_bytes());
    const uint64_t out = p.Allocate(64 * c_.out_elem_bytes(), c_.out_elem_bytes());

    p.Emit(LoadInsn(Buffer::kUop, 0, static_cast<uint32_t>(uop_addr / 4), 1, 65, 65));
    p.Emit(LoadInsn(Buffer::kInp, 0, static_cast<uint32_t>(inp / c_.inp_elem_bytes()), 1, 64, 64));
    Insn lw =
        LoadInsn(Buffer::kWgt, 0, static_cast<uint32_t>(wgt / c_.wgt_elem_bytes()), 1, 32, 32);
    lw.deps.push_next = true;
    p.Emit(lw);
    p.Emit(LoadInsn(Buffer::kAcc, 0, static_cast<uint32_t>(acc / c_.acc_elem_bytes()), 1, 64, 64));
    const int count = pick(4, 10);
    for (int k = 0; k < count; ++k) {
      const uint32_t bgn = static_cast<uint32_t>(pick(0, 60));
      const uint32_t cnt = static_cast<uint32_t>(pick(1, 4));
      const bool gemm = k == 0 || pick(0, 3) != 0;
      Insn i = LoopInsn(gemm ? Opcode::kGemm : Opcode::kAlu, bgn, cnt,
                        static_cast<uint32_t>(pick(1, 3)), static_cast<uint32_t>(pick(1, 3)));
      // Indices stay below 32 + 2 * 5 + 2 * 5 < 64 (dst, src) and 16 + 2 * 3 + 2 * 3 < 32 (wgt);
      // dst factors of 0 make every iteration hit the same elements.
      i.dst_factor_out = static_cast<uint32_t>(pick(0, 5));
      i.dst_factor_in = static_cast<uint32_t>(pick(0, 2));
      i.src_factor_out = static_cast<uint32_t>(pick(0, 5));
      i.src_factor_in = static_cast<uint32_t>(pick(0, 5));
      if (gemm) {
        i.depthwise = pick(0, 3) != 0;
        i.reset = !i.depthwise && pick(0, 5) == 0;
        i.wgt_factor_out = static_cast<uint32_t>(pick(0, 3));
        i.wgt_factor_in = static_cast<uint32_t>(pick(0, 3));
        i.deps.pop_prev = k == 0;
      } else {
        i.alu_op = static_cast<AluOp>(pick(0, static_cast<int>(AluOp::kMul)));
        i.use_imm = true;
        i.imm = i.alu_op == AluOp::kShr || i.alu_op == AluOp::kShrRound ? pick(0, 4) : pick(-8, 8);
        i.src_factor_out = i.src_factor_in = 0;
      }
      p.Emit(i);
    }
    Insn copy = programs::AluImm(AluOp::kAdd, 0, 64, 1, 1, 64);
    copy.dst_factor_in = 1;
    copy.deps.push_next = true;
    p.Emit(copy);
    Insn st = StoreInsn(0, static_cast<uint32_t>(out / c_.out_elem_bytes()), 1, 64, 64);
    st.deps.pop_prev = true;
    p.Emit(st);
    p.Emit(programs::Finish());
    ASSERT_TRUE(p.Finalize().ok());
    Outcome o;
    ExpectSame(p, seed % 2 == 1 ? 40 : 0, /*check_cycles=*/false, &o);
    if (HasFailure()) break;
  }
}

INSTANTIATE_TEST_SUITE_P(Models, TsimDepthwiseTest, ::testing::ValuesIn(ModelNames()),
                         [](const ::testing::TestParamInfo<std::string>& p) { return p.param; });

}  // namespace
}  // namespace loom
