// What the shared instruction-level cases do not reach, checked against fsim on the 1x8x8 RTL:
// transfers of many bursts that cross 4 KiB boundaries, micro-op loads that start in the middle
// of a bus word, padded strided loads and strided stores over page boundaries, token and command
// queues that fill up, and random GEMM/ALU programs whose loop nests make iterations hit the
// same ACC elements back to back (the pipeline's forwarding paths).
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "runtime/config/config_file.h"
#include "sim/programs/isa_cases.h"
#include "sim/programs/program.h"
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

class TsimStressBase : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_TRUE(LoadHwConfig("1x8x8", &c_).ok()); }

  void ExpectSame(const Program& p, uint32_t stall_percent = 0) {
    Outcome o;
    const Status s = RunBoth(c_, p, &o, stall_percent);
    ASSERT_TRUE(s.ok()) << s.ToString() << "\n" << p.Listing();
    EXPECT_EQ(o.tsim_dram, o.fsim_dram)
        << FirstDifferences(o.fsim_dram, o.tsim_dram) << p.Listing();
    EXPECT_EQ(o.tsim.bytes_loaded, o.fsim.total_bytes_loaded());
    EXPECT_EQ(o.tsim.bytes_stored, o.fsim.bytes_stored);
    EXPECT_EQ(o.tsim.macs, o.fsim.macs);
    std::printf("fsim %llu cycles, tsim %llu cycles\n",
                static_cast<unsigned long long>(o.fsim.cycles),
                static_cast<unsigned long long>(o.tsim.cycles));
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
  // Moves the program's next allocation to `addr` (which must not be behind it).
  static void SkipTo(Program& p, uint64_t addr) {
    const uint64_t here = p.Allocate(0, 1);
    if (addr > here) p.Allocate(addr - here, 1);
  }

  HwConfig c_;
};

class TsimStressTest : public TsimStressBase, public ::testing::WithParamInterface<uint32_t> {};

TEST_P(TsimStressTest, LongTransfersAcrossPageBoundaries) {
  std::mt19937 rng(11);
  isa::Layout layout;
  ASSERT_TRUE(isa::Layout::Create(c_, &layout).ok());
  const uint32_t L = c_.batch * c_.block_out;
  Program p(c_);

  // 700 micro-ops starting 4 bytes into a bus word, ending past 12 KiB.
  SkipTo(p, 3 * 4096 - 4 * 300 - 4);
  std::vector<uint8_t> uop_bytes;
  for (uint32_t i = 0; i < 700; ++i) {
    uint32_t w = 0;
    ASSERT_TRUE(isa::EncodeUop(layout, {i % 200, (i * 7) % 728, i % 40}, &w).ok());
    for (int b = 0; b < 4; ++b) uop_bytes.push_back(static_cast<uint8_t>(w >> (8 * b)));
  }
  const uint64_t uop_addr = p.AddData(uop_bytes, 4);
  ASSERT_EQ(uop_addr % c_.axi_bytes(), 4u);

  // 200 ACC elements (800 beats: 4+ bursts) straddling 16 KiB.
  SkipTo(p, 4 * 4096 - 96);
  const uint64_t acc_addr = p.AddData(Bytes(I32(rng, 200 * L, -1000, 1000)), 32);
  // A 5 x 100 INP window with row pitch 300, rows crossing 4 KiB, padded on every side.
  SkipTo(p, 6 * 4096 - 1000);
  const uint64_t inp_addr = p.AddData(Bytes(I8(rng, 5 * 300 * c_.inp_elem_bytes(), -4, 4)), 8);
  // 40 WGT elements: 320 beats, two bursts.
  const uint64_t wgt_addr = p.AddData(Bytes(I8(rng, 40 * c_.wgt_elem_bytes(), -4, 4)), 64);
  // Store targets: 200 OUT elements across a boundary, and a 4 x 50 window with pitch 70.
  SkipTo(p, 10 * 4096 - 800);
  const uint64_t out1 = p.Allocate(200 * c_.out_elem_bytes(), 8);
  SkipTo(p, 12 * 4096 - 1200);
  const uint64_t out2 = p.Allocate(4 * 70 * c_.out_elem_bytes(), 8);

  p.Emit(LoadInsn(Buffer::kUop, 0, static_cast<uint32_t>(uop_addr / 4), 1, 700, 700));
  p.Emit(LoadInsn(Buffer::kAcc, 0, static_cast<uint32_t>(acc_addr / c_.acc_elem_bytes()), 1, 200,
                  200));
  Insn inp =
      LoadInsn(Buffer::kInp, 0, static_cast<uint32_t>(inp_addr / c_.inp_elem_bytes()), 5, 100, 300);
  inp.y_pad_top = 1;
  inp.y_pad_bottom = 1;
  inp.x_pad_left = 2;
  inp.x_pad_right = 2;
  inp.pad_value = -3;  // an activation zero point: every lane of the 232 padding elements
  p.Emit(inp);         // 7 x 104 = 728 INP elements
  Insn wgt =
      LoadInsn(Buffer::kWgt, 0, static_cast<uint32_t>(wgt_addr / c_.wgt_elem_bytes()), 1, 40, 40);
  wgt.deps.push_next = true;
  p.Emit(wgt);
  Insn gemm = LoopInsn(Opcode::kGemm, 0, 700, 1, 1);
  gemm.deps.pop_prev = true;
  p.Emit(gemm);
  Insn shr = programs::AluImm(AluOp::kShrRound, 3, 0, 1, 1, 200);  // uop 0: dst 0
  shr.dst_factor_in = 1;
  shr.deps.push_next = true;
  p.Emit(shr);
  Insn st1 = StoreInsn(0, static_cast<uint32_t>(out1 / c_.out_elem_bytes()), 1, 200, 200);
  st1.deps.pop_prev = true;
  p.Emit(st1);
  p.Emit(StoreInsn(0, static_cast<uint32_t>(out2 / c_.out_elem_bytes()), 4, 50, 70));
  p.Emit(programs::Finish());
  ASSERT_TRUE(p.Finalize().ok());
  ExpectSame(p, GetParam());
}

// Compute is busy with a long ALU while the stream holds 40 token exchanges: its command queue
// fills (fetch stalls) and load runs ahead until load->compute is full (load stalls on a push).
TEST_P(TsimStressTest, CommandAndTokenQueuesFill) {
  std::mt19937 rng(12);
  const uint32_t L = c_.batch * c_.block_out;
  Program p(c_);
  uint64_t uop_addr = 0;
  ASSERT_TRUE(p.AddUops({{0, 0, 0}}, &uop_addr).ok());
  const uint64_t acc_addr = p.AddData(Bytes(I32(rng, 64 * L, -100, 100)), 32);
  const uint64_t out = p.Allocate(64 * c_.out_elem_bytes(), 64);
  p.Emit(LoadInsn(Buffer::kUop, 0, static_cast<uint32_t>(uop_addr / 4), 1, 1, 1));
  p.Emit(
      LoadInsn(Buffer::kAcc, 0, static_cast<uint32_t>(acc_addr / c_.acc_elem_bytes()), 1, 64, 64));
  Insn busy = programs::AluImm(AluOp::kAdd, 1, 0, 1, 64, 40);  // 2560 iterations
  busy.dst_factor_out = 1;
  p.Emit(busy);
  for (int k = 0; k < 40; ++k) {
    Insn push = LoadInsn(Buffer::kInp, 0, 0, 0, 0, 0);  // zero-size: a token carrier
    push.deps.push_next = true;
    p.Emit(push);
    Insn pop = LoadInsn(Buffer::kAcc, 0, 0, 0, 0, 0);
    pop.deps.pop_prev = true;
    p.Emit(pop);
  }
  Insn last = programs::AluImm(AluOp::kMax, -50, 0, 1, 1, 64);
  last.dst_factor_in = 1;
  last.deps.push_next = true;
  p.Emit(last);
  Insn st = StoreInsn(0, static_cast<uint32_t>(out / c_.out_elem_bytes()), 1, 64, 64);
  st.deps.pop_prev = true;
  p.Emit(st);
  p.Emit(programs::Finish());
  ASSERT_TRUE(p.Finalize().ok());
  ASSERT_GT(p.insn_count(), c_.cmd_queue_depth + 40);
  ExpectSame(p, GetParam());
}

// Random GEMM and ALU instructions over a 64-element ACC region: random micro-ops (several
// sharing a destination), loop nests with small factors (iterations revisit elements one or two
// cycles apart), every ALU op in both forms. Values stay small so that OUT (saturated) still
// tells results apart.
TEST_P(TsimStressTest, RandomLoopPrograms) {
  const uint32_t L = c_.batch * c_.block_out;
  for (uint32_t seed = 0; seed < 40; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    std::mt19937 rng(1000 + seed);
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
    const uint64_t inp = p.AddData(Bytes(I8(rng, 64 * c_.inp_elem_bytes(), -3, 3)), 64);
    const uint64_t wgt = p.AddData(Bytes(I8(rng, 32 * c_.wgt_elem_bytes(), -3, 3)), 64);
    const uint64_t acc = p.AddData(Bytes(I32(rng, 64 * L, -60, 60)), 64);
    const uint64_t out = p.Allocate(64 * c_.out_elem_bytes(), 64);

    p.Emit(LoadInsn(Buffer::kUop, 0, static_cast<uint32_t>(uop_addr / 4), 1, 65, 65));
    p.Emit(LoadInsn(Buffer::kInp, 0, static_cast<uint32_t>(inp / c_.inp_elem_bytes()), 1, 64, 64));
    Insn lw =
        LoadInsn(Buffer::kWgt, 0, static_cast<uint32_t>(wgt / c_.wgt_elem_bytes()), 1, 32, 32);
    lw.deps.push_next = true;
    p.Emit(lw);
    p.Emit(LoadInsn(Buffer::kAcc, 0, static_cast<uint32_t>(acc / c_.acc_elem_bytes()), 1, 64, 64));
    const int n = pick(4, 12);
    for (int k = 0; k < n; ++k) {
      const uint32_t bgn = static_cast<uint32_t>(pick(0, 60));
      const uint32_t cnt = static_cast<uint32_t>(pick(1, 4));
      Insn i = LoopInsn(k == 0 || pick(0, 2) == 0 ? Opcode::kGemm : Opcode::kAlu, bgn, cnt,
                        static_cast<uint32_t>(pick(1, 3)), static_cast<uint32_t>(pick(1, 3)));
      // Indices stay below 32 + 2 * 5 + 2 * 5 < 64 (dst, src) and 16 + 2 * 3 + 2 * 3 < 32 (wgt).
      i.dst_factor_out = static_cast<uint32_t>(pick(0, 5));
      i.dst_factor_in = static_cast<uint32_t>(pick(0, 5));
      if (i.opcode == Opcode::kGemm) {
        i.reset = pick(0, 5) == 0;
        if (!i.reset) {
          i.src_factor_out = static_cast<uint32_t>(pick(0, 5));
          i.src_factor_in = static_cast<uint32_t>(pick(0, 5));
          i.wgt_factor_out = static_cast<uint32_t>(pick(0, 3));
          i.wgt_factor_in = static_cast<uint32_t>(pick(0, 3));
        }
        i.deps.pop_prev = k == 0;
      } else {
        // The two-operand ops; REQUANT and RQPARAM have their own cases (isa_cases' fused_requant).
        i.alu_op = static_cast<AluOp>(pick(0, static_cast<int>(AluOp::kMul)));
        i.use_imm = pick(0, 1) == 1;
        if (i.use_imm) {
          i.imm =
              i.alu_op == AluOp::kShr || i.alu_op == AluOp::kShrRound ? pick(-3, 6) : pick(-8, 8);
        } else {
          i.src_factor_out = static_cast<uint32_t>(pick(0, 5));
          i.src_factor_in = static_cast<uint32_t>(pick(0, 5));
        }
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
    ExpectSame(p, GetParam());
    if (HasFailure()) break;
  }
}

// The shared instruction-level cases (tsim_isa_test runs them at full speed) under
// back-pressure: results must not depend on timing.
TEST_F(TsimStressBase, IsaCasesUnderBackPressure) {
  std::vector<programs::IsaCase> cases;
  ASSERT_TRUE(programs::BuildIsaCases(c_, &cases).ok());
  for (const programs::IsaCase& ic : cases) {
    SCOPED_TRACE(ic.name);
    ExpectSame(ic.program, 40);
  }
}

// 0: the DRAM model answers at full speed; 40: it refuses or holds back 40 % of the time.
INSTANTIATE_TEST_SUITE_P(Stalls, TsimStressTest, ::testing::Values(0u, 40u),
                         [](const ::testing::TestParamInfo<uint32_t>& p) {
                           return p.param == 0 ? std::string("FullSpeed")
                                               : "BackPressure" + std::to_string(p.param);
                         });

}  // namespace
}  // namespace loom
