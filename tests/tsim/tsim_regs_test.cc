// The register protocol of docs/registers.md on the 1x8x8 RTL: reset values, identification,
// start/done/idle, start while busy, the interrupt, the error codes with ERROR_INSN, config
// checks at open (the protocol, runtime/drivers/protocol, driving the model through TsimBench), and
// hang reporting (a deadlock ends in kDeadlineExceeded within the cycle budget, naming where each
// module stopped).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "runtime/config/config_file.h"
#include "runtime/core/isa.h"
#include "runtime/drivers/protocol/registers.h"
#include "runtime/drivers/tsim/tsim_bench.h"
#include "sim/programs/isa_cases.h"
#include "sim/programs/program.h"

namespace loom {
namespace {

using ::testing::HasSubstr;
namespace reg = runtime::reg;

constexpr uint64_t kDramBytes = 64 * 1024;

class TsimRegsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(LoadHwConfig("1x8x8", &config_).ok());
    ASSERT_TRUE(isa::Layout::Create(config_, &layout_).ok());
    const Status s = runtime::TsimBench::Create(config_, kDramBytes, &dev_);
    ASSERT_TRUE(s.ok()) << s.ToString();
  }

  tsim::Harness& h() { return dev_->harness(); }
  uint32_t Read(uint32_t offset) {
    uint32_t v = 0xdeadbeef;
    const Status s = h().regs().Read(offset, &v);
    EXPECT_TRUE(s.ok()) << s.ToString();
    return v;
  }
  void Write(uint32_t offset, uint32_t value) {
    const Status s = h().regs().Write(offset, value);
    EXPECT_TRUE(s.ok()) << s.ToString();
  }

  // Assembles `text` (micro-ops `uops` at DRAM 0) into DRAM and returns the run options.
  runtime::TsimRunOptions Load(const std::string& text,
                               const std::string& uops = "uop dst=0 src=0 wgt=0") {
    std::vector<isa::Uop> u;
    std::vector<isa::Insn> insns;
    EXPECT_TRUE(isa::AssembleUops(layout_, uops, &u).ok());
    const Status s = isa::Assemble(layout_, text, &insns);
    EXPECT_TRUE(s.ok()) << s.ToString();
    programs::Program p(config_);
    uint64_t uop_addr = 1;
    EXPECT_TRUE(p.AddUops(u, &uop_addr).ok());
    for (const isa::Insn& i : insns) p.Emit(i);
    EXPECT_TRUE(p.Finalize().ok());
    EXPECT_TRUE(p.Install([&](uint64_t a, const uint8_t* b, size_t n) {
                   return dev_->dram().Write(a, b, n);
                 }).ok());
    runtime::TsimRunOptions o;
    o.insn_addr = p.insn_addr();
    o.insn_count = p.insn_count();
    o.timeout_cycles = 100000;
    return o;
  }

  // Starts a run through the registers without waiting for it.
  void Start(const runtime::TsimRunOptions& o) {
    Write(reg::kInsnAddrLo, static_cast<uint32_t>(o.insn_addr));
    Write(reg::kInsnAddrHi, 0);
    Write(reg::kInsnCount, o.insn_count);
    Write(reg::kCtrl, reg::kCtrlStart);
  }
  // Polls CTRL until done, as a driver without interrupts would.
  bool WaitDone(uint64_t max_polls = 10000) {
    for (uint64_t i = 0; i < max_polls; ++i) {
      if (Read(reg::kCtrl) & reg::kCtrlDone) return true;
      h().ctrl().Step(8);
    }
    return false;
  }

  HwConfig config_;
  isa::Layout layout_;
  std::unique_ptr<runtime::TsimBench> dev_;
};

// A program long enough to be observed while running.
const char kLongProgram[] =
    "load.uop sram=0 dram=0 y=1 x=1 stride=1\n"
    "load.acc sram=0 dram=64 y=1 x=64 stride=64\n"
    "alu.add uop=0:1 loop=64x16 dst=1,0 imm=1\n"
    "finish\n";

TEST_F(TsimRegsTest, ResetValues) {
  EXPECT_EQ(Read(reg::kCtrl), reg::kCtrlIdle);
  for (uint32_t offset : {reg::kGie,
                          reg::kIer,
                          reg::kIsr,
                          reg::kInsnAddrLo,
                          reg::kInsnAddrHi,
                          reg::kInsnCount,
                          reg::kStatus,
                          reg::kErrorInsn,
                          reg::kCyclesLo,
                          reg::kCyclesHi,
                          reg::kLoadLast,
                          reg::kComputeLast,
                          reg::kStoreLast,
                          reg::kFetched,
                          reg::kLoadBusy,
                          reg::kComputeBusy,
                          reg::kStoreBusy,
                          reg::kGemmIters,
                          reg::kBytesReadLo,
                          reg::kBytesReadHi,
                          reg::kBytesWrittenLo,
                          reg::kBytesWrittenHi,
                          reg::kTokens}) {
    EXPECT_EQ(Read(offset), 0u) << "offset " << offset;
  }
  // Unlisted offsets read 0.
  for (uint32_t offset : {0x1Cu, 0x4Cu, 0x74u, 0x80u, 0xFCu}) {
    EXPECT_EQ(Read(offset), 0u) << "offset " << offset;
  }
  EXPECT_FALSE(h().irq());
}

TEST_F(TsimRegsTest, IdentifiesConfigAndVersion) {
  const uint64_t hash = uint64_t{Read(reg::kConfigHashHi)} << 32 | Read(reg::kConfigHashLo);
  EXPECT_EQ(hash, config_.CompatibilityHash());
  EXPECT_EQ(Read(reg::kVersion), reg::kExpectedVersion);
}

TEST_F(TsimRegsTest, ReadOnlyRegistersIgnoreWrites) {
  for (uint32_t offset : {reg::kStatus, reg::kCyclesLo, reg::kConfigHashLo, reg::kVersion,
                          reg::kTokens, reg::kLoadLast, 0x4Cu}) {
    const uint32_t before = Read(offset);
    Write(offset, 0x5a5a5a5a);
    EXPECT_EQ(Read(offset), before) << "offset " << offset;
  }
  // Writable registers keep what was written, byte lanes included.
  Write(reg::kInsnAddrLo, 0x12345670);
  EXPECT_EQ(Read(reg::kInsnAddrLo), 0x12345670u);
  ASSERT_TRUE(h().regs().Write(reg::kInsnAddrLo, 0xffffffff, 0x2).ok());
  EXPECT_EQ(Read(reg::kInsnAddrLo), 0x1234ff70u);
}

TEST_F(TsimRegsTest, DoneIdleAndStartWhileBusy) {
  const runtime::TsimRunOptions o = Load(kLongProgram);
  Start(o);
  h().ctrl().Step(200);
  uint32_t ctrl = Read(reg::kCtrl);
  EXPECT_EQ(ctrl & (reg::kCtrlStart | reg::kCtrlDone | reg::kCtrlIdle), reg::kCtrlStart);
  const uint32_t cycles_before = Read(reg::kCyclesLo);
  EXPECT_GT(cycles_before, 0u);
  // A second start while running is ignored: nothing restarts (the counters would clear).
  Write(reg::kInsnCount, 1);
  Write(reg::kCtrl, reg::kCtrlStart);
  EXPECT_GE(Read(reg::kCyclesLo), cycles_before);
  ASSERT_TRUE(WaitDone());
  ctrl = Read(reg::kCtrl);
  EXPECT_EQ(ctrl, reg::kCtrlDone | reg::kCtrlIdle | reg::kCtrlReady);
  EXPECT_EQ(Read(reg::kStatus), 0u);
  EXPECT_EQ(Read(reg::kFetched), o.insn_count);
  EXPECT_EQ(Read(reg::kComputeLast), o.insn_count);  // FINISH, index 3, completed last
  EXPECT_EQ(Read(reg::kLoadLast), 0u);
  EXPECT_GT(Read(reg::kComputeBusy), 64u * 16u);
  EXPECT_EQ(Read(reg::kBytesReadLo), 4u + 64u * config_.acc_elem_bytes());
  // The next start clears done.
  Write(reg::kInsnCount, o.insn_count);
  Write(reg::kCtrl, reg::kCtrlStart);
  EXPECT_EQ(Read(reg::kCtrl) & (reg::kCtrlDone | reg::kCtrlIdle), 0u);
  ASSERT_TRUE(WaitDone());
}

TEST_F(TsimRegsTest, Interrupt) {
  const runtime::TsimRunOptions o = Load(kLongProgram);
  // Without IER the run sets no interrupt.
  Start(o);
  ASSERT_TRUE(WaitDone());
  EXPECT_EQ(Read(reg::kIsr), 0u);
  EXPECT_FALSE(h().irq());
  // IER without GIE: pending, but the line stays low.
  Write(reg::kIer, 1);
  Start(o);
  ASSERT_TRUE(WaitDone());
  EXPECT_EQ(Read(reg::kIsr), 1u);
  EXPECT_FALSE(h().irq());
  Write(reg::kGie, 1);
  h().ctrl().Step();
  EXPECT_TRUE(h().irq());
  // ISR is write-1-to-clear: 0 leaves it, 1 clears it and the line.
  Write(reg::kIsr, 0);
  EXPECT_EQ(Read(reg::kIsr), 1u);
  EXPECT_TRUE(h().irq());
  Write(reg::kIsr, 1);
  EXPECT_EQ(Read(reg::kIsr), 0u);
  EXPECT_FALSE(h().irq());
  // With both enabled, the line rises when the run ends.
  Start(o);
  EXPECT_TRUE(h().ctrl().StepUntil([&] { return h().irq(); }, 100000));
  EXPECT_TRUE(Read(reg::kCtrl) & reg::kCtrlDone);
}

TEST_F(TsimRegsTest, InvalidInstructionIsErrorOne) {
  runtime::TsimRunOptions o = Load(
      "load.uop sram=0 dram=0 y=1 x=1 stride=1\n"
      "alu.add uop=0:1 loop=1x1 dst=0,0 imm=1\n"
      "alu.add uop=0:1 loop=1x1 dst=0,0 imm=2\n"
      "finish\n");
  // Set reserved bit 127 of instruction 2.
  uint8_t* word = dev_->dram().At(o.insn_addr + 2 * HwConfig::kInsnBytes);
  word[15] |= 0x80;
  runtime::DeviceCounters stats;
  const Status s = dev_->Run(o, &stats);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument) << s.ToString();
  EXPECT_THAT(s.message(), HasSubstr("instruction 2"));
  EXPECT_THAT(s.message(), HasSubstr("reserved bit 127"));
  EXPECT_EQ(Read(reg::kStatus), reg::kStatusError | reg::kErrInvalidInsn << 4);
  EXPECT_EQ(Read(reg::kErrorInsn), 2u);
  EXPECT_EQ(Read(reg::kCtrl), reg::kCtrlDone | reg::kCtrlIdle | reg::kCtrlReady);
  // The instructions before it ran; the invalid one and the rest did not.
  EXPECT_EQ(Read(reg::kFetched), 2u);
  // The device runs the next program normally.
  const runtime::TsimRunOptions good = Load(kLongProgram);
  const Status s2 = dev_->Run(good, &stats);
  EXPECT_TRUE(s2.ok()) << s2.ToString();
}

// REQUANT's shifts are 0..31 in 6-bit fields (docs/isa.md §2.7.1, §4 R): the RTL refuses a word
// with either field's top bit set, which its right-only shifters would otherwise misread.
TEST_F(TsimRegsTest, RequantShiftTopBitIsErrorOne) {
  for (const isa::FieldSpec& f : isa::RequantFields(layout_)) {
    if (f.name != std::string("pre_shift") && f.name != std::string("post_shift")) continue;
    runtime::TsimRunOptions o = Load(
        "load.uop sram=0 dram=0 y=1 x=1 stride=1\n"
        "alu.rqparam uop=0:1 loop=1x1 dst=0,0 src=0,0\n"
        "alu.requant uop=0:1 loop=1x1 dst=0,0 shift=3,3 clip=-128,127\n"
        "finish\n");
    const uint32_t bit = f.lsb + f.width - 1;
    dev_->dram().At(o.insn_addr + 2 * HwConfig::kInsnBytes)[bit / 8] |= uint8_t(1u << (bit % 8));
    runtime::DeviceCounters stats;
    const Status s = dev_->Run(o, &stats);
    EXPECT_EQ(s.code(), StatusCode::kInvalidArgument) << f.name << ": " << s.ToString();
    EXPECT_THAT(s.message(), HasSubstr(std::string("'") + f.name + "' = 35 is outside [0, 31]"));
    EXPECT_EQ(Read(reg::kStatus), reg::kStatusError | reg::kErrInvalidInsn << 4) << f.name;
    EXPECT_EQ(Read(reg::kErrorInsn), 2u) << f.name;
  }
}

TEST_F(TsimRegsTest, UnknownOpcodeAndWrongBufferAreErrorOne) {
  const char* const patches[] = {"opcode 7", "store of inp"};
  for (int k = 0; k < 2; ++k) {
    runtime::TsimRunOptions o = Load(
        "load.uop sram=0 dram=0 y=1 x=1 stride=1\n"
        "store.out sram=0 dram=64 y=1 x=1 stride=1\n"
        "finish\n");
    uint8_t* word = dev_->dram().At(o.insn_addr + HwConfig::kInsnBytes);
    if (k == 0) word[0] |= 0x7;                                                // opcode bits 2..0
    if (k == 1) word[0] = (word[0] & 0x7f), word[1] = (word[1] & ~0x3) | 0x1;  // buffer = 2 (inp)
    runtime::DeviceCounters stats;
    const Status s = dev_->Run(o, &stats);
    EXPECT_EQ(s.code(), StatusCode::kInvalidArgument) << patches[k] << ": " << s.ToString();
    EXPECT_EQ(Read(reg::kStatus), reg::kStatusError | reg::kErrInvalidInsn << 4) << patches[k];
    EXPECT_EQ(Read(reg::kErrorInsn), 1u) << patches[k];
  }
}

TEST_F(TsimRegsTest, TokenImbalanceIsErrorTwo) {
  const runtime::TsimRunOptions o = Load(
      "load.inp sram=0 dram=16 y=1 x=1 stride=1 @push_next\n"
      "load.inp sram=1 dram=16 y=1 x=1 stride=1 @push_next\n"
      "gemm reset uop=0:1 loop=1x1 dst=0,0 src=0,0 wgt=0,0 @pop_prev\n"
      "finish\n");
  runtime::DeviceCounters stats;
  const Status s = dev_->Run(o, &stats);
  EXPECT_EQ(s.code(), StatusCode::kFailedPrecondition) << s.ToString();
  EXPECT_THAT(s.message(), HasSubstr("token imbalance"));
  EXPECT_THAT(s.message(), HasSubstr("load->compute 1"));
  EXPECT_EQ(Read(reg::kStatus), reg::kStatusError | reg::kErrTokens << 4);
  EXPECT_EQ(Read(reg::kErrorInsn), 3u);
  EXPECT_EQ(Read(reg::kTokens), 1u);
  EXPECT_TRUE(Read(reg::kCtrl) & reg::kCtrlDone);
}

TEST_F(TsimRegsTest, DramErrorIsErrorThree) {
  // 64 KiB of DRAM; element 100000 of INP (8-byte elements) is far outside.
  const runtime::TsimRunOptions o = Load(
      "load.uop sram=0 dram=0 y=1 x=1 stride=1\n"
      "load.inp sram=0 dram=100000 y=1 x=2 stride=2\n"
      "finish\n");
  runtime::DeviceCounters stats;
  const Status s = dev_->Run(o, &stats);
  EXPECT_EQ(s.code(), StatusCode::kOutOfRange) << s.ToString();
  EXPECT_THAT(s.message(), HasSubstr("instruction 1"));
  EXPECT_EQ(Read(reg::kStatus), reg::kStatusError | reg::kErrDram << 4);
  EXPECT_EQ(Read(reg::kErrorInsn), 1u);
}

TEST_F(TsimRegsTest, EmptyStreamIsErrorFour) {
  runtime::TsimRunOptions o;
  o.insn_count = 0;
  runtime::DeviceCounters stats;
  const Status s = dev_->Run(o, &stats);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument) << s.ToString();
  EXPECT_EQ(Read(reg::kStatus), reg::kStatusError | reg::kErrStream << 4);
  EXPECT_EQ(Read(reg::kErrorInsn), 0u);
}

TEST_F(TsimRegsTest, StreamWithoutFinishIsErrorFour) {
  runtime::TsimRunOptions o = Load(
      "load.uop sram=0 dram=0 y=1 x=1 stride=1\n"
      "alu.add uop=0:1 loop=1x1 dst=0,0 imm=1\n"
      "finish\n");
  o.insn_count = 2;  // the stream ends before its FINISH
  runtime::DeviceCounters stats;
  Status s = dev_->Run(o, &stats);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument) << s.ToString();
  EXPECT_THAT(s.message(), HasSubstr("instruction 1"));
  EXPECT_EQ(Read(reg::kStatus), reg::kStatusError | reg::kErrStream << 4);
  EXPECT_EQ(Read(reg::kErrorInsn), 1u);
  // A FINISH before the end of the stream is the same error, at the FINISH.
  o = Load(
      "load.uop sram=0 dram=0 y=1 x=1 stride=1\n"
      "finish\n"
      "finish\n");
  s = dev_->Run(o, &stats);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument) << s.ToString();
  EXPECT_EQ(Read(reg::kErrorInsn), 1u);
}

TEST_F(TsimRegsTest, DeadlockTimesOutNamingEachModule) {
  // compute waits for a token load never sends; store waits for compute.
  runtime::TsimRunOptions o = Load(
      "load.uop sram=0 dram=0 y=1 x=1 stride=1\n"
      "load.inp sram=0 dram=16 y=1 x=1 stride=1\n"
      "gemm uop=0:1 loop=1x1 dst=0,0 src=0,0 wgt=0,0 @pop_prev @push_next\n"
      "store.out sram=0 dram=64 y=1 x=1 stride=1 @pop_prev\n"
      "finish\n");
  o.timeout_cycles = 20000;
  runtime::DeviceCounters stats;
  const uint64_t before = h().ctrl().cycle();
  const Status s = dev_->Run(o, &stats);
  EXPECT_LT(h().ctrl().cycle() - before, o.timeout_cycles + 2000);  // bounded, never stuck
  EXPECT_EQ(s.code(), StatusCode::kDeadlineExceeded) << s.ToString();
  EXPECT_THAT(s.message(), HasSubstr("load: last completed instruction 1 (load.inp sram=0"));
  EXPECT_THAT(s.message(), HasSubstr("), now no instruction left;"));
  EXPECT_THAT(s.message(), HasSubstr("compute: last completed instruction 0 (load.uop"));
  EXPECT_THAT(s.message(), HasSubstr("now instruction 2 (gemm uop=0:1"));
  EXPECT_THAT(s.message(), HasSubstr("waits for a token on load->compute;"));
  EXPECT_THAT(s.message(),
              HasSubstr("store: no instruction completed, now instruction 3 (store.out"));
  EXPECT_THAT(s.message(), HasSubstr("waits for a token on compute->store;"));
  EXPECT_THAT(s.message(), HasSubstr("load->compute 0, compute->load 0, compute->store 0"));
  EXPECT_THAT(s.message(), HasSubstr("5 of 5 instructions dispatched"));
  // The device was reset and runs the next program.
  const runtime::TsimRunOptions good = Load(kLongProgram);
  const Status s2 = dev_->Run(good, &stats);
  EXPECT_TRUE(s2.ok()) << s2.ToString();
}

// A legal program that would run for hours (programs::BuildLongRunningCase: a GEMM at its largest
// loop counts, about 2.7e11 cycles) stops at the wall-clock limit long before its cycle budget,
// naming what each module is doing; the device then runs the next program.
TEST_F(TsimRegsTest, LongProgramStopsAtWallClockLimitNamingEachModule) {
  std::vector<programs::IsaCase> cases;
  ASSERT_TRUE(programs::BuildLongRunningCase(config_, &cases).ok());
  const programs::IsaCase& c = cases.front();
  ASSERT_LE(c.program.dram_bytes(), kDramBytes);
  ASSERT_TRUE(c.program
                  .Install([&](uint64_t a, const uint8_t* b, size_t n) {
                    return dev_->dram().Write(a, b, n);
                  })
                  .ok());
  runtime::TsimRunOptions o;
  o.insn_addr = c.program.insn_addr();
  o.insn_count = c.program.insn_count();
  o.timeout_cycles = uint64_t{1} << 50;  // the cycle budget alone would take years
  o.wall_timeout_ms = 300;
  runtime::DeviceCounters stats;
  const Status s = dev_->Run(o, &stats);
  ASSERT_EQ(s.code(), StatusCode::kDeadlineExceeded) << s.ToString();
  EXPECT_THAT(s.message(), HasSubstr("no FINISH within the wall-clock limit of 300 ms ("));
  EXPECT_THAT(s.message(), HasSubstr("compute: last completed instruction 0 (load.uop"));
  EXPECT_THAT(s.message(),
              HasSubstr("now executing instruction 3 (gemm uop=0:1024 loop=16383x16383"));
  EXPECT_THAT(s.message(), HasSubstr("load: last completed instruction 2 (load.wgt"));
  EXPECT_THAT(s.message(), HasSubstr("now instruction 5 (load.inp sram=1"));
  EXPECT_THAT(s.message(), HasSubstr("waits for a token on compute->load;"));
  EXPECT_THAT(s.message(),
              HasSubstr("store: no instruction completed, now instruction 4 (store.out"));
  EXPECT_THAT(s.message(), HasSubstr("waits for a token on compute->store;"));
  EXPECT_THAT(s.message(), HasSubstr("tokens: load->compute 0, compute->load 0, compute->store 0"));
  EXPECT_THAT(s.message(), HasSubstr("7 of 7 instructions dispatched"));
  const Status s2 = dev_->Run(Load(kLongProgram), &stats);
  EXPECT_TRUE(s2.ok()) << s2.ToString();
}

TEST(TsimDeviceTest, RefusesConfigWhoseHashDiffers) {
  HwConfig c;
  ASSERT_TRUE(LoadHwConfig("1x8x8", &c).ok());
  c.acc_buffer_bytes *= 2;  // same name, different hardware
  std::unique_ptr<runtime::TsimBench> dev;
  const Status s = runtime::TsimBench::Create(c, kDramBytes, &dev);
  EXPECT_EQ(s.code(), StatusCode::kFailedPrecondition) << s.ToString();
  EXPECT_THAT(s.message(), HasSubstr(c.HashHex()));
  EXPECT_THAT(s.message(), HasSubstr("CONFIG_HASH"));
}

TEST(TsimDeviceTest, RefusesConfigWithoutModel) {
  HwConfig c;
  ASSERT_TRUE(LoadHwConfig("1x32x32", &c).ok());
  std::unique_ptr<runtime::TsimBench> dev;
  const Status s = runtime::TsimBench::Create(c, kDramBytes, &dev);
  EXPECT_EQ(s.code(), StatusCode::kUnimplemented) << s.ToString();
  EXPECT_THAT(s.message(), HasSubstr("no RTL model for config 1x32x32"));
  EXPECT_THAT(s.message(), HasSubstr("1x8x8"));
}

TEST(TsimDeviceTest, WritesWaveforms) {
  HwConfig c;
  ASSERT_TRUE(LoadHwConfig("1x8x8", &c).ok());
  const std::string path = ::testing::TempDir() + "tsim_waves.fst";
  std::remove(path.c_str());
  {
    std::unique_ptr<runtime::TsimBench> dev;
    const Status s = runtime::TsimBench::Create(c, kDramBytes, &dev, path);
    ASSERT_TRUE(s.ok()) << s.ToString();
    dev->harness().ctrl().Step(100);
  }
  FILE* f = std::fopen(path.c_str(), "rb");
  ASSERT_NE(f, nullptr);
  std::fseek(f, 0, SEEK_END);
  EXPECT_GT(std::ftell(f), 100);
  std::fclose(f);
}

}  // namespace
}  // namespace loom
