// Programs that must fail on fsim with the error docs/isa.md §1.6 and §4 promise: the status
// code, and a message naming what a user needs to fix (instruction index, queue, buffer, ...).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "runtime/config/config_file.h"
#include "sim/fsim/fsim.h"
#include "sim/programs/isa_cases.h"
#include "sim/programs/program.h"

namespace loom {
namespace {

using ::testing::HasSubstr;

constexpr uint64_t kDramBytes = 64 * 1024;

// Parameterized by config name; numbers that depend on the config are derived from it here.
class FsimErrorsTest : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override { ASSERT_TRUE(LoadHwConfig(GetParam(), &config_).ok()); }

  // Assembles `text` (docs/isa.md §5) into a Program whose micro-ops (`uops`, also text) sit at
  // DRAM address 0, so `load.uop dram=0` loads them. Installs it into a fresh 64 KiB simulator;
  // `patch` may then corrupt the DRAM image. Returns the status of the run.
  Status Run(const std::string& text, const std::string& uops = "uop dst=0 src=0 wgt=0",
             void (*patch)(sim::Dram&, uint64_t insn_addr) = nullptr) {
    isa::Layout layout;
    EXPECT_TRUE(isa::Layout::Create(config_, &layout).ok());
    std::vector<isa::Uop> u;
    std::vector<isa::Insn> insns;
    Status s = isa::AssembleUops(layout, uops, &u);
    if (s.ok()) s = isa::Assemble(layout, text, &insns);
    if (!s.ok()) return Internal("test program does not assemble: " + s.ToString());
    programs::Program p(config_);
    uint64_t uop_addr = 1;
    EXPECT_TRUE(p.AddUops(u, &uop_addr).ok());
    EXPECT_EQ(uop_addr, 0u);
    for (const isa::Insn& i : insns) p.Emit(i);
    s = p.Finalize();
    if (!s.ok()) return Internal("test program does not finalize: " + s.ToString());
    sim_ = std::make_unique<fsim::Simulator>(config_, kDramBytes);
    EXPECT_TRUE(p.Install([&](uint64_t a, const uint8_t* b, size_t n) {
                   return sim_->dram().Write(a, b, n);
                 }).ok());
    if (patch) patch(sim_->dram(), p.insn_addr());
    options_.insn_addr = p.insn_addr();
    options_.insn_count = p.insn_count();
    fsim::Stats stats;
    return sim_->Run(options_, &stats);
  }

  // Encodes `insns` straight into DRAM at 0, without Program's FINISH check, and runs them.
  Status RunRaw(const std::vector<isa::Insn>& insns) {
    isa::Layout layout;
    EXPECT_TRUE(isa::Layout::Create(config_, &layout).ok());
    sim_ = std::make_unique<fsim::Simulator>(config_, kDramBytes);
    for (size_t i = 0; i < insns.size(); ++i) {
      isa::Word128 w;
      EXPECT_TRUE(isa::Encode(layout, insns[i], &w).ok());
      uint8_t bytes[16];
      isa::StoreWord(w, bytes);
      EXPECT_TRUE(sim_->dram().Write(16 * i, bytes, 16).ok());
    }
    fsim::RunOptions o;
    o.insn_count = static_cast<uint32_t>(insns.size());
    fsim::Stats stats;
    return sim_->Run(o, &stats);
  }

  // Runs programs::BuildLongRunningCase (hours of simulation) with the limits of `o`.
  Status RunLong(fsim::RunOptions o) {
    std::vector<programs::IsaCase> cases;
    const Status built = programs::BuildLongRunningCase(config_, &cases);
    if (!built.ok()) return Internal("long program does not build: " + built.ToString());
    const programs::IsaCase& c = cases.front();
    sim_ = std::make_unique<fsim::Simulator>(config_, c.program.dram_bytes());
    EXPECT_TRUE(c.program
                    .Install([&](uint64_t a, const uint8_t* b, size_t n) {
                      return sim_->dram().Write(a, b, n);
                    })
                    .ok());
    o.insn_addr = c.program.insn_addr();
    o.insn_count = c.program.insn_count();
    fsim::Stats stats;
    return sim_->Run(o, &stats);
  }

  HwConfig config_;
  std::unique_ptr<fsim::Simulator> sim_;
  fsim::RunOptions options_;
};

// (a) compute pops load->compute, nothing ever pushes it.
TEST_P(FsimErrorsTest, DeadlockOnEmptyQueueNamesInstructionAndQueue) {
  const Status s = Run(R"(
    load.uop sram=0 dram=0 y=1 x=1 stride=1
    gemm uop=0:1 loop=1x1 dst=0,0 src=0,0 wgt=0,0 @pop_prev
    finish)");
  EXPECT_EQ(s.code(), StatusCode::kDeadlock) << s.ToString();
  EXPECT_THAT(s.message(), HasSubstr("compute instruction 1"));
  EXPECT_THAT(s.message(), HasSubstr("gemm"));
  EXPECT_THAT(s.message(), HasSubstr("load->compute"));
}

// (b) load pops compute->load before it pushes load->compute, compute pops load->compute before it
// pushes compute->load: each waits for the other. The pushes and pops balance, so only a
// sequential replay (§1.7) shows the program is not well-formed.
TEST_P(FsimErrorsTest, CyclicWaitNamesBothModules) {
  const Status s = Run(R"(
    load.uop sram=0 dram=0 y=1 x=1 stride=1
    load.inp sram=0 dram=0 y=1 x=1 stride=1 @pop_next @push_next
    gemm uop=0:1 loop=1x1 dst=0,0 src=0,0 wgt=0,0 @pop_prev @push_prev
    finish)");
  EXPECT_EQ(s.code(), StatusCode::kDeadlock) << s.ToString();
  EXPECT_THAT(s.message(), HasSubstr("load instruction 1"));
  EXPECT_THAT(s.message(), HasSubstr("compute->load"));
  EXPECT_THAT(s.message(), HasSubstr("compute instruction 2"));
  EXPECT_THAT(s.message(), HasSubstr("load->compute"));
}

std::string AluPushes(uint32_t n) {
  std::string text = "load.uop sram=0 dram=0 y=1 x=1 stride=1\n";
  for (uint32_t i = 0; i < n; ++i) text += "alu.add uop=0:1 loop=1x1 dst=0,0 imm=0 @push_next\n";
  return text + "finish\n";
}

// (c) One push more than compute->store holds, and no store pops: the push can never complete.
// §1.6: a deadlock naming the module, instruction index, opcode and queue.
TEST_P(FsimErrorsTest, PushToFullQueueIsDeadlockNamingQueue) {
  const uint32_t depth = config_.token_queue_depth;
  const Status s = Run(AluPushes(depth + 1));
  EXPECT_EQ(s.code(), StatusCode::kDeadlock) << s.ToString();
  // The push that does not fit; instruction 0 is the load.uop.
  EXPECT_THAT(s.message(), HasSubstr("compute instruction " + std::to_string(depth + 1)));
  EXPECT_THAT(s.message(), HasSubstr("compute->store"));
  EXPECT_THAT(s.message(), HasSubstr("full"));
  EXPECT_THAT(s.message(), HasSubstr("alu.add"));  // the opcode, required by §1.6
}

// The same for a module's last instruction: the 33rd STORE's push onto store->compute (compute
// never pops it) blocks the store module after it has run out of instructions.
TEST_P(FsimErrorsTest, PushToFullQueueByLastInstructionIsNamed) {
  const uint32_t depth = config_.token_queue_depth;
  const std::string out = std::to_string(kDramBytes / 2 / config_.out_elem_bytes());
  std::string text = "load.uop sram=0 dram=0 y=1 x=1 stride=1\n";
  for (uint32_t i = 0; i <= depth; ++i) {
    text += "alu.add uop=0:1 loop=1x1 dst=0,0 imm=0 @push_next\n";
    text += "store.out sram=0 dram=" + out + " y=1 x=1 stride=1 @pop_prev @push_prev\n";
  }
  const Status s = Run(text + "finish\n");
  EXPECT_EQ(s.code(), StatusCode::kDeadlock) << s.ToString();
  EXPECT_THAT(s.message(), HasSubstr("store instruction " + std::to_string(2 + 2 * depth)));
  EXPECT_THAT(s.message(), HasSubstr("store.out"));
  EXPECT_THAT(s.message(), HasSubstr("store->compute"));
  EXPECT_THAT(s.message(), HasSubstr("full"));
}

// Exactly as many pushes as the queue holds: nothing blocks, so FINISH reports the imbalance.
TEST_P(FsimErrorsTest, FullQueueAtFinishIsImbalance) {
  const uint32_t depth = config_.token_queue_depth;
  const Status s = Run(AluPushes(depth));
  EXPECT_EQ(s.code(), StatusCode::kFailedPrecondition) << s.ToString();
  EXPECT_THAT(s.message(), HasSubstr("compute->store holds " + std::to_string(depth) + " tokens"));
}

// The instruction that would push is stuck in fetch behind a command queue that cannot drain
// (cmd_queue_depth entries, none of which can start): the report must say so instead of blaming
// the empty queue alone.
TEST_P(FsimErrorsTest, DeadlockBehindFullCommandQueueNamesUnfetchedInstruction) {
  const uint32_t depth = config_.cmd_queue_depth;
  std::string text =
      "load.uop sram=0 dram=0 y=1 x=1 stride=1\n"
      "gemm uop=0:1 loop=1x1 dst=0,0 src=0,0 wgt=0,0 @pop_prev\n";
  for (uint32_t i = 0; i < depth; ++i) text += "alu.add uop=0:1 loop=1x1 dst=0,0 imm=0\n";
  text += "load.inp sram=0 dram=0 y=1 x=1 stride=1 @push_next\nfinish\n";  // index depth + 2
  const Status s = Run(text);
  EXPECT_EQ(s.code(), StatusCode::kDeadlock) << s.ToString();
  EXPECT_THAT(s.message(), HasSubstr("compute instruction 1"));
  EXPECT_THAT(s.message(), HasSubstr("load instruction " + std::to_string(depth + 2)));
  EXPECT_THAT(s.message(), HasSubstr("never fetched"));
}

// (d) Pushes never popped: FINISH names each non-empty queue with its count.
TEST_P(FsimErrorsTest, TokenImbalanceNamesQueuesAndCounts) {
  const Status s = Run(R"(
    load.uop sram=0 dram=0 y=1 x=1 stride=1
    load.inp sram=0 dram=0 y=1 x=1 stride=1 @push_next
    alu.add uop=0:1 loop=1x1 dst=0,0 imm=0 @push_next
    alu.add uop=0:1 loop=1x1 dst=0,0 imm=0 @push_next
    finish)");
  EXPECT_EQ(s.code(), StatusCode::kFailedPrecondition) << s.ToString();
  EXPECT_THAT(s.message(), HasSubstr("token imbalance"));
  EXPECT_THAT(s.message(), HasSubstr("instruction 4"));  // the FINISH
  EXPECT_THAT(s.message(), HasSubstr("load->compute holds 1 token"));
  EXPECT_THAT(s.message(), HasSubstr("compute->store holds 2 tokens"));
  EXPECT_THAT(s.message(), ::testing::Not(HasSubstr("store->compute")));
}

// (e) The stream must end with its only FINISH.
TEST_P(FsimErrorsTest, StreamWithoutFinish) {
  isa::Insn alu;
  alu.opcode = isa::Opcode::kAlu;
  alu.uop_bgn = 0;
  alu.uop_end = 1;
  alu.loop_out = alu.loop_in = 1;
  alu.use_imm = true;
  alu.alu_op = isa::AluOp::kAdd;
  const Status s = RunRaw({programs::Finish(), alu});
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument) << s.ToString();
  EXPECT_THAT(s.message(), HasSubstr("instruction 0"));
  EXPECT_THAT(s.message(), HasSubstr("FINISH before the end of the stream"));
  const Status last = RunRaw({alu, alu});
  EXPECT_EQ(last.code(), StatusCode::kInvalidArgument) << last.ToString();
  EXPECT_THAT(last.message(), HasSubstr("instruction 1"));
  EXPECT_THAT(last.message(), HasSubstr("must end with FINISH"));
  EXPECT_EQ(RunRaw({}).code(), StatusCode::kInvalidArgument);
}

TEST_P(FsimErrorsTest, FinishInTheMiddle) {
  const Status s =
      Run("alu.add uop=0:1 loop=1x1 dst=0,0 imm=0\nfinish\nalu.add uop=0:1 loop=1x1 dst=0,0 "
          "imm=0\nfinish");
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument) << s.ToString();
  EXPECT_THAT(s.message(), HasSubstr("instruction 1"));
  EXPECT_THAT(s.message(), HasSubstr("2 instructions follow"));
}

// (f) A reserved bit set in the DRAM image of instruction 1 (bit 127 is reserved in every format
// of every shipped config): rejected before anything runs, naming the instruction and the bit.
TEST_P(FsimErrorsTest, ReservedBitNamesInstruction) {
  const Status s = Run(R"(
    load.uop sram=0 dram=0 y=1 x=1 stride=1
    load.inp sram=0 dram=0 y=1 x=1 stride=1
    finish)",
                       "uop dst=0 src=0 wgt=0",
                       [](sim::Dram& d, uint64_t insn) { *d.At(insn + 16 + 15) |= 0x80; });
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument) << s.ToString();
  EXPECT_THAT(s.message(), HasSubstr("instruction 1"));
  EXPECT_THAT(s.message(), HasSubstr("reserved bit 127"));
}

TEST_P(FsimErrorsTest, UnknownOpcodeNamesInstruction) {
  const Status s = Run("alu.add uop=0:1 loop=1x1 dst=0,0 imm=0\nfinish", "uop dst=0 src=0 wgt=0",
                       [](sim::Dram& d, uint64_t insn) { *d.At(insn) = (*d.At(insn) & ~7) | 6; });
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument) << s.ToString();
  EXPECT_THAT(s.message(), HasSubstr("instruction 0"));
  EXPECT_THAT(s.message(), HasSubstr("unknown opcode 6"));
}

// (g) The stream itself must lie in DRAM at a 16-byte aligned address.
TEST_P(FsimErrorsTest, StreamOutsideDramOrMisaligned) {
  ASSERT_TRUE(Run("finish").ok());
  fsim::Stats stats;
  fsim::RunOptions o = options_;
  o.insn_addr = kDramBytes - 16;
  o.insn_count = 2;
  Status s = sim_->Run(o, &stats);
  EXPECT_EQ(s.code(), StatusCode::kOutOfRange) << s.ToString();
  EXPECT_THAT(s.message(), HasSubstr("does not fit in DRAM"));
  o.insn_addr = kDramBytes;
  o.insn_count = 1;
  EXPECT_EQ(sim_->Run(o, &stats).code(), StatusCode::kOutOfRange);
  o = options_;
  o.insn_addr += 8;
  s = sim_->Run(o, &stats);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument) << s.ToString();
  EXPECT_THAT(s.message(), HasSubstr("16-byte aligned"));
}

// (h) Micro-op plus loop offsets leaving a buffer: the last valid index plus one step.
TEST_P(FsimErrorsTest, GemmAndAluIndexOutOfRange) {
  const std::string A = std::to_string(config_.acc_depth()),
                    I = std::to_string(config_.inp_depth());
  const std::string W = std::to_string(config_.wgt_depth());
  const std::string A1 = std::to_string(config_.acc_depth() - 1);
  const struct {
    std::string uop, insn, what;
  } cases[] = {
      {"uop dst=" + A1 + " src=0 wgt=0", "gemm reset uop=0:1 loop=1x2 dst=0,1 src=0,0 wgt=0,0",
       "acc index " + A},
      {"uop dst=0 src=" + std::to_string(config_.inp_depth() - 8) + " wgt=0",
       "gemm uop=0:1 loop=2x1 dst=0,0 src=8,0 wgt=0,0", "inp index " + I},
      {"uop dst=0 src=0 wgt=" + std::to_string(config_.wgt_depth() - 1),
       "gemm uop=0:1 loop=1x2 dst=0,0 src=0,0 wgt=0,1", "wgt index " + W},
      {"uop dst=0 src=" + A1 + " wgt=0", "alu.max uop=0:1 loop=1x2 dst=0,0 src=0,1",
       "acc index " + A},
      {"uop dst=" + A1 + " src=0 wgt=0", "alu.max uop=0:1 loop=2x1 dst=1,0 imm=0",
       "acc index " + A},
      // REQUANT and RQPARAM: the parameter entry (the micro-op's wgt field) past RQP's 32.
      {"uop dst=0 src=1 wgt=32", "alu.rqparam uop=0:1 loop=1x1 dst=0,0 src=0,0",
       "rqp index 32 is outside the rqp buffer (depth 32)"},
      {"uop dst=0 src=0 wgt=40", "alu.requant uop=0:1 loop=1x1 dst=0,0 shift=0,0 clip=0,0",
       "rqp index 40"},
      {"uop dst=" + A1 + " src=0 wgt=0", "alu.requant uop=0:1 loop=2x1 dst=1,0 shift=0,0 clip=0,0",
       "acc index " + A},
  };
  for (const auto& c : cases) {
    const Status s = Run("load.uop sram=0 dram=0 y=1 x=1 stride=1\n" + c.insn + "\nfinish", c.uop);
    EXPECT_EQ(s.code(), StatusCode::kOutOfRange) << c.insn << ": " << s.ToString();
    EXPECT_THAT(s.message(), HasSubstr("instruction 1 (" + c.insn.substr(0, 4))) << c.insn;
    EXPECT_THAT(s.message(), HasSubstr(c.what)) << c.insn;
  }
}

// A fused REQUANT arms the next GEMM's epilogue (docs/isa.md §3.4.2): an ALU instruction or
// FINISH before that GEMM is refused, naming the instruction; without iterations the REQUANT
// arms nothing; a GEMM consumes the arming, so a second one runs as a plain GEMM.
TEST_P(FsimErrorsTest, FusedRequantNeedsItsGemmNext) {
  const std::string load = "load.uop sram=0 dram=0 y=1 x=1 stride=1\n";
  const std::string arm = "alu.requant uop=0:1 loop=1x1 dst=0,0 shift=0,0 clip=0,0 clear fuse\n";
  const std::string add = "alu.add uop=0:1 loop=1x1 dst=0,0 imm=0\n";
  const std::string gemm = "gemm uop=0:1 loop=1x1 dst=0,0 src=0,0 wgt=0,0\n";
  for (const auto& [text, at] :
       {std::pair{load + arm + add + "finish", 2}, std::pair{load + arm + "finish", 2},
        std::pair{load + arm + arm + gemm + "finish", 2}}) {
    const Status s = Run(text);
    EXPECT_EQ(s.code(), StatusCode::kFailedPrecondition) << text << s.ToString();
    EXPECT_THAT(s.message(), HasSubstr("instruction " + std::to_string(at) + " ("));
    EXPECT_THAT(s.message(), HasSubstr("is still waiting for its GEMM")) << text;
  }
  const std::string empty = "alu.requant uop=0:1 loop=0x1 dst=0,0 shift=0,0 clip=0,0 clear fuse\n";
  EXPECT_TRUE(Run(load + empty + add + "finish").ok());
  EXPECT_TRUE(Run(load + arm + gemm + gemm + add + "finish").ok());
  // The parameter entry is range-checked like REQUANT's own.
  const Status s = Run(load + arm + gemm + "finish", "uop dst=0 src=0 wgt=33");
  EXPECT_EQ(s.code(), StatusCode::kOutOfRange) << s.ToString();
  EXPECT_THAT(s.message(), HasSubstr("rqp index 33"));
}

// (i) DMAs outside the 64 KiB DRAM; dram= counts elements of the buffer.
TEST_P(FsimErrorsTest, DmaOutsideDram) {
  const uint32_t inp_end = kDramBytes / config_.inp_elem_bytes();
  const uint32_t out_end = kDramBytes / config_.out_elem_bytes();
  Status s = Run("load.inp sram=0 dram=" + std::to_string(inp_end) + " y=1 x=1 stride=1\nfinish");
  EXPECT_EQ(s.code(), StatusCode::kOutOfRange) << s.ToString();
  EXPECT_THAT(s.message(), HasSubstr("instruction 0 (load.inp"));
  EXPECT_THAT(s.message(), HasSubstr("65536"));  // the byte address
  EXPECT_THAT(s.message(), HasSubstr("outside DRAM"));
  // Only the second row is outside.
  s = Run("load.inp sram=0 dram=" + std::to_string(inp_end - 96) + " y=2 x=1 stride=96\nfinish");
  EXPECT_EQ(s.code(), StatusCode::kOutOfRange) << s.ToString();
  EXPECT_THAT(s.message(), HasSubstr("instruction 0"));
  s =
      Run("load.uop sram=0 dram=0 y=1 x=1 stride=1\n"
          "gemm reset uop=0:1 loop=1x1 dst=0,0 src=0,0 wgt=0,0 @push_next\n"
          "store.out sram=0 dram=" +
          std::to_string(out_end - 1) +
          " y=1 x=2 stride=2 @pop_prev\n"
          "finish");
  EXPECT_EQ(s.code(), StatusCode::kOutOfRange) << s.ToString();
  EXPECT_THAT(s.message(), HasSubstr("instruction 2 (store.out"));
  EXPECT_THAT(s.message(), HasSubstr("outside"));
}

// A micro-op word with a reserved bit set is rejected when LOAD UOP reads it, naming the
// instruction. Micro-ops use A + max(I, A) + W bits (§2.9); 1x16x16 uses all 32.
TEST_P(FsimErrorsTest, UopReservedBitNamesInstruction) {
  const uint32_t bits = config_.acc_idx_bits() +
                        std::max(config_.inp_idx_bits(), config_.acc_idx_bits()) +
                        config_.wgt_idx_bits();
  if (bits == 32) GTEST_SKIP() << "no reserved micro-op bits in " << GetParam();
  const Status s = Run("load.uop sram=0 dram=0 y=1 x=1 stride=1\nfinish", "uop dst=0 src=0 wgt=0",
                       [](sim::Dram& d, uint64_t) { *d.At(3) |= 0x80; });  // bit 31
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument) << s.ToString();
  EXPECT_THAT(s.message(), HasSubstr("instruction 0 (load.uop"));
  EXPECT_THAT(s.message(), HasSubstr("reserved"));
}

// A legal program that would run for hours (a GEMM at its largest loop counts) stops at the
// wall-clock limit, inside the GEMM, naming what each module was doing and the token counts.
TEST_P(FsimErrorsTest, LongProgramStopsAtWallClockLimitNamingEachModule) {
  fsim::RunOptions o;
  o.wall_ms = 100;
  const Status s = RunLong(o);
  ASSERT_EQ(s.code(), StatusCode::kDeadlineExceeded) << s.ToString();
  EXPECT_THAT(s.message(), HasSubstr("wall-clock limit of 100 ms"));
  EXPECT_THAT(s.message(), HasSubstr("compute instruction 3 (gemm uop=0:"));
  EXPECT_THAT(s.message(), HasSubstr("loop=16383x16383"));
  EXPECT_THAT(s.message(), HasSubstr("was executing (stopped in loop iteration ("));
  EXPECT_THAT(s.message(), HasSubstr("load instruction 5 (load.inp sram=1 dram="))
      << "load's position";
  EXPECT_THAT(s.message(), HasSubstr("waits for a token on compute->load, which is empty"));
  EXPECT_THAT(s.message(), HasSubstr("store instruction 4 (store.out sram=0"));
  EXPECT_THAT(s.message(), HasSubstr("waits for a token on compute->store, which is empty"));
  EXPECT_THAT(s.message(), HasSubstr("tokens: load->compute 0, compute->load 0, compute->store 0, "
                                     "store->compute 0; 7 of 7 instructions fetched"));
}

// The device-time limit refuses the same GEMM before running it: its cycles are known up front.
TEST_P(FsimErrorsTest, LongProgramStopsAtDeviceTimeLimitBeforeItsGemm) {
  fsim::RunOptions o;
  o.max_cycles = 100000;
  const Status s = RunLong(o);
  ASSERT_EQ(s.code(), StatusCode::kDeadlineExceeded) << s.ToString();
  EXPECT_THAT(s.message(), HasSubstr("no FINISH within the device-time limit of 100000 cycles"));
  EXPECT_THAT(s.message(), HasSubstr("compute instruction 3 (gemm uop=0:"));
  EXPECT_THAT(s.message(), HasSubstr(") would run from cycle "));
  EXPECT_THAT(s.message(), HasSubstr("waits for a token on compute->load"));
  EXPECT_THAT(s.message(), HasSubstr("waits for a token on compute->store"));
  // The GEMM never ran: the accumulator it would have written is untouched.
  EXPECT_EQ(sim_->machine().acc()[0], 0);
}

// "fsim" prefix: the ctest names then match `ctest -R fsim`.
INSTANTIATE_TEST_SUITE_P(fsim, FsimErrorsTest, ::testing::Values("1x8x8", "1x16x16", "1x32x32"),
                         [](const ::testing::TestParamInfo<std::string>& p) { return p.param; });

}  // namespace
}  // namespace loom
