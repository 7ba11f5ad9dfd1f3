// The accelerator protocol (runtime/drivers/protocol) against scripted hardware: the open-time
// checks, error and hang decoding, interrupt vs polling, device time, and the syncs CopyIn/CopyOut
// issue on a non-coherent port. The same code runs on the RTL in protocol_tsim_test.cc.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <vector>

#include "runtime/config/config_file.h"
#include "runtime/core/isa.h"
#include "runtime/drivers/protocol/accelerator.h"
#include "runtime/drivers/protocol/protocol_driver.h"
#include "tests/protocol/fake_transports.h"

namespace loom::testing {
namespace {

using runtime::Accelerator;
using runtime::DeviceCounters;
using runtime::Driver;
using runtime::DriverOptions;
using runtime::Transports;
using ::testing::HasSubstr;
using State = RegisterTransport::SequencerState;

// A small stream: LOAD, GEMM, STORE pattern with tokens, then FINISH.
const char kProgram[] =
    "load.inp sram=0 dram=0 y=1 x=1 stride=1 @push_next\n"
    "gemm uop=0:1 loop=1x1 dst=0,0 src=0,0 wgt=0,0 @pop_prev @push_next\n"
    "store.out sram=0 dram=0 y=1 x=1 stride=1 @pop_prev\n"
    "finish\n";

class ProtocolTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(LoadHwConfig("1x8x8", &config_).ok());
    ASSERT_TRUE(isa::Layout::Create(config_, &layout_).ok());
    const Status s = isa::Assemble(layout_, kProgram, &insns_);
    ASSERT_TRUE(s.ok()) << s.ToString();
    stream_.resize(insns_.size() * 16);
    for (size_t i = 0; i < insns_.size(); ++i) {
      isa::Word128 w;
      ASSERT_TRUE(isa::Encode(layout_, insns_[i], &w).ok());
      isa::StoreWord(w, &stream_[i * 16]);
    }
    regs_.config_hash = config_.CompatibilityHash();
  }

  Status OpenAndRun(uint64_t timeout_ns = 1000000000) {
    LOOM_RETURN_IF_ERROR(acc_.Open(&regs_, config_, "fake"));
    LOOM_RETURN_IF_ERROR(acc_.Start(0x1000, static_cast<uint32_t>(insns_.size()), stream_.data()));
    return acc_.Wait(timeout_ns);
  }

  HwConfig config_;
  isa::Layout layout_;
  std::vector<isa::Insn> insns_;
  std::vector<uint8_t> stream_;
  FakeRegisters regs_;
  Accelerator acc_;
};

TEST_F(ProtocolTest, RunsAndReadsCounters) {
  const Status s = OpenAndRun();
  ASSERT_TRUE(s.ok()) << s.ToString();
  DeviceCounters c;
  ASSERT_TRUE(acc_.ReadCounters(&c).ok());
  EXPECT_TRUE(c.valid);
  EXPECT_EQ(c.cycles, 1000u);  // 10 us at the fake's 100 MHz
  EXPECT_EQ(c.macs, 7 * config_.macs_per_cycle());
  // The stream was programmed where it is.
  EXPECT_EQ(regs_.regs[reg::kInsnAddrLo / 4], 0x1000u);
  EXPECT_EQ(regs_.regs[reg::kInsnCount / 4], insns_.size());
}

TEST_F(ProtocolTest, MismatchedVersionIsRefusedNamingBoth) {
  regs_.version = 0x00020103;
  const Status s = acc_.Open(&regs_, config_, "fake");
  EXPECT_EQ(s.code(), StatusCode::kFailedPrecondition);
  EXPECT_THAT(s.message(), HasSubstr("VERSION 2.1.3"));
  EXPECT_THAT(s.message(), HasSubstr("expects 1.0.0"));
  EXPECT_FALSE(acc_.is_open());
}

TEST_F(ProtocolTest, MismatchedConfigHashIsRefusedNamingBoth) {
  regs_.config_hash = 0x0123456789abcdefull;
  const Status s = acc_.Open(&regs_, config_, "fake");
  EXPECT_EQ(s.code(), StatusCode::kFailedPrecondition);
  EXPECT_THAT(s.message(), HasSubstr("CONFIG_HASH 0123456789abcdef"));
  EXPECT_THAT(s.message(), HasSubstr(config_.HashHex()));
  EXPECT_THAT(s.message(), HasSubstr("1x8x8"));
}

TEST_F(ProtocolTest, EachErrorCodeIsDecodedNamingTheInstruction) {
  struct Case {
    uint32_t code;
    StatusCode want;
    const char* text;
  };
  const Case cases[] = {
      {reg::kErrInvalidInsn, StatusCode::kInvalidArgument, "rejected the instruction word"},
      {reg::kErrTokens, StatusCode::kFailedPrecondition, "token imbalance"},
      {reg::kErrDram, StatusCode::kOutOfRange, "DRAM access"},
      {reg::kErrStream, StatusCode::kInvalidArgument, "must end with its only FINISH"},
      {9, StatusCode::kInternal, "unknown error code 9"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.text);
    regs_ = FakeRegisters();
    regs_.config_hash = config_.CompatibilityHash();
    regs_.script.status = reg::kStatusError | c.code << 4;
    regs_.script.error_insn = 2;
    regs_.script.tokens = 0x00000100;  // one token left on compute->load
    const Status s = OpenAndRun();
    EXPECT_EQ(s.code(), c.want) << s.ToString();
    EXPECT_THAT(s.message(), HasSubstr(c.text));
    EXPECT_THAT(s.message(), HasSubstr("instruction 2"));
    if (c.code == reg::kErrInvalidInsn || c.code == reg::kErrDram || c.code == reg::kErrStream) {
      // The disassembly comes from the host's copy of the stream.
      EXPECT_THAT(s.message(), HasSubstr(isa::Disassemble(insns_[2])));
    }
    if (c.code == reg::kErrTokens) {
      EXPECT_THAT(s.message(), HasSubstr("compute->load 1"));
    }
  }
}

TEST_F(ProtocolTest, HangReportsLastTokensCyclesAndFetched) {
  regs_.script.run_ns = ~uint64_t{0};
  regs_.script.last = {1, 0, 0};  // load completed instruction 0
  regs_.script.fetched = 3;
  regs_.script.tokens = 0x00000001;
  regs_.script.states = {State::kNoInsn, State::kPopPrev, State::kPopPrev};
  const Status s = OpenAndRun(/*timeout_ns=*/5000000);
  ASSERT_EQ(s.code(), StatusCode::kDeadlineExceeded) << s.ToString();
  const std::string& m = s.message();
  EXPECT_THAT(m, HasSubstr("no FINISH within 5 ms of device time (CYCLES 500000)"));
  EXPECT_THAT(m, HasSubstr("load: last completed instruction 0 (" + isa::Disassemble(insns_[0])));
  EXPECT_THAT(m, HasSubstr("compute: no instruction completed, now instruction 1 (" +
                           isa::Disassemble(insns_[1]) + ") waits for a token on load->compute"));
  EXPECT_THAT(m, HasSubstr("tokens: load->compute 1, compute->load 0"));
  EXPECT_THAT(m, HasSubstr("3 of 4 instructions dispatched"));
  // The hung accelerator was reset, and the device time that passed is the timeout.
  EXPECT_EQ(regs_.Count("reset"), 1u);
  EXPECT_FALSE(acc_.running());
  // After the reset the next run starts.
  regs_.script.run_ns = 1000;
  ASSERT_TRUE(acc_.Start(0x1000, 4, stream_.data()).ok());
  EXPECT_TRUE(acc_.Wait(1000000).ok());
}

TEST_F(ProtocolTest, InterruptIsReenabledBeforeEachWaitAndIsrCleared) {
  regs_.script.run_ns = 250 * 1000000ull;  // 250 ms: three waits of at most 100 ms
  const Status s = OpenAndRun();
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_TRUE(acc_.uses_interrupt());
  // Every wait directly follows an enable.
  int waits = 0;
  for (size_t i = 0; i < regs_.log.size(); ++i) {
    if (regs_.log[i].rfind("wait ", 0) != 0) continue;
    ++waits;
    ASSERT_GT(i, 0u);
    EXPECT_EQ(regs_.log[i - 1], "enable") << "wait #" << waits;
  }
  EXPECT_EQ(waits, 3);
  EXPECT_EQ(regs_.Count("pause 50"), 0u);
  EXPECT_EQ(regs_.Count("w 0x04=1"), 1u);  // GIE
  EXPECT_EQ(regs_.Count("w 0x08=1"), 1u);  // IER
  EXPECT_EQ(regs_.Count("w 0x0c=1"), 1u);  // ISR cleared (W1C) after done
  EXPECT_EQ(regs_.regs[reg::kIsr / 4], 0u);
}

TEST_F(ProtocolTest, PollsWhenTheTransportHasNoInterrupt) {
  regs_.has_interrupt = false;
  regs_.script.run_ns = 1000000;  // 1 ms: 20 polls 50 us apart
  const Status s = OpenAndRun();
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_FALSE(acc_.uses_interrupt());
  EXPECT_EQ(regs_.Count("pause 50"), 20u);
  EXPECT_EQ(regs_.Count("w 0x04=0"), 1u);  // GIE stays off
  EXPECT_EQ(regs_.Count("w 0x0c=1"), 0u);
}

TEST_F(ProtocolTest, PollingTimesOutInDeviceTime) {
  regs_.has_interrupt = false;
  regs_.script.run_ns = ~uint64_t{0};
  const uint64_t before = regs_.now_ns;
  const Status s = OpenAndRun(/*timeout_ns=*/2000000);
  EXPECT_EQ(s.code(), StatusCode::kDeadlineExceeded);
  EXPECT_GE(regs_.now_ns - before, 2000000u);
  EXPECT_LT(regs_.now_ns - before, 2000000u + 100000u);
}

TEST_F(ProtocolTest, BusyAcceleratorIsRefused) {
  ASSERT_TRUE(acc_.Open(&regs_, config_, "fake").ok());
  regs_.script.run_ns = ~uint64_t{0};
  // Running, not idle: started by someone else.
  ASSERT_TRUE(regs_.Write32(reg::kCtrl, reg::kCtrlStart).ok());
  const Status s = acc_.Start(0x1000, 4, stream_.data());
  EXPECT_EQ(s.code(), StatusCode::kFailedPrecondition);
  EXPECT_THAT(s.message(), HasSubstr("busy"));
}

// --- The Driver over the transports.

struct Opened {
  FakeRegisters* regs = nullptr;
  FakeDma* dma = nullptr;
  uint64_t hash = 0;
  bool fail = false;
};
Opened g_opened;

Status OpenFakes(const DriverOptions& options, Transports* out) {
  if (g_opened.fail) {
    return NotFound("no /dev/fake0 (device args '" + options.device_args + "'): is it loaded?");
  }
  auto regs = std::make_unique<FakeRegisters>();
  regs->config_hash = g_opened.hash;
  auto dma = std::make_unique<FakeDma>();
  g_opened.regs = regs.get();
  g_opened.dma = dma.get();
  out->regs = std::move(regs);
  out->dma = std::move(dma);
  return Status::Ok();
}

class ProtocolDriverTest : public ProtocolTest {
 protected:
  void SetUp() override {
    ProtocolTest::SetUp();
    g_opened = Opened();
    g_opened.hash = config_.CompatibilityHash();
    driver_ = runtime::CreateProtocolDriver("fake", &OpenFakes);
    options_.config = config_;
    options_.device_args = "0";
  }
  std::unique_ptr<Driver> driver_;
  DriverOptions options_;
};

TEST_F(ProtocolDriverTest, CopyInAndOutSyncExactlyTheRangeOnANonCoherentPort) {
  ASSERT_TRUE(driver_->Open(options_).ok());
  EXPECT_STREQ(driver_->name(), "fake");
  uint64_t a = 0, b = 0;
  ASSERT_TRUE(driver_->Allocate(4096, 64, &a).ok());
  ASSERT_TRUE(driver_->Allocate(8192, 4096, &b).ok());
  const std::vector<uint8_t> data(100, 0x5a);
  ASSERT_TRUE(driver_->CopyIn(b + 300, data.data(), data.size()).ok());
  std::vector<uint8_t> back(40);
  ASSERT_TRUE(driver_->CopyOut(back.data(), b + 320, back.size()).ok());
  EXPECT_EQ(back, std::vector<uint8_t>(40, 0x5a));
  const auto& syncs = g_opened.dma->syncs;
  ASSERT_EQ(syncs.size(), 2u);
  EXPECT_TRUE(syncs[0].for_device);
  EXPECT_EQ(syncs[0].buffer, b);
  EXPECT_EQ(syncs[0].offset, 300u);
  EXPECT_EQ(syncs[0].bytes, 100u);
  EXPECT_FALSE(syncs[1].for_device);
  EXPECT_EQ(syncs[1].buffer, b);
  EXPECT_EQ(syncs[1].offset, 320u);
  EXPECT_EQ(syncs[1].bytes, 40u);
  // Outside every allocation, or across the end of one: refused, nothing synced.
  const Status s = driver_->CopyIn(b + 8150, data.data(), data.size());
  EXPECT_EQ(s.code(), StatusCode::kOutOfRange);
  EXPECT_THAT(s.message(), HasSubstr("not inside an allocation"));
  EXPECT_EQ(syncs.size(), 2u);
}

TEST_F(ProtocolDriverTest, SubmitAndWaitRunTheProtocol) {
  ASSERT_TRUE(driver_->Open(options_).ok());
  uint64_t insns = 0;
  ASSERT_TRUE(driver_->Allocate(stream_.size(), 16, &insns).ok());
  ASSERT_TRUE(driver_->CopyIn(insns, stream_.data(), stream_.size()).ok());
  g_opened.regs->script.status = reg::kStatusError | reg::kErrDram << 4;
  g_opened.regs->script.error_insn = 2;
  ASSERT_TRUE(driver_->Submit(insns, 4).ok());
  EXPECT_EQ(driver_->Submit(insns, 4).code(), StatusCode::kFailedPrecondition);
  const Status s = driver_->Wait(1000);
  EXPECT_EQ(s.code(), StatusCode::kOutOfRange);
  // Named from the host copy the driver holds.
  EXPECT_THAT(s.message(), HasSubstr("fake: instruction 2 (" + isa::Disassemble(insns_[2])));
  EXPECT_EQ(g_opened.regs->regs[reg::kInsnAddrLo / 4], static_cast<uint32_t>(insns));
  EXPECT_EQ(g_opened.regs->regs[reg::kInsnAddrHi / 4], static_cast<uint32_t>(insns >> 32));
  EXPECT_EQ(driver_->Wait(1000).code(), StatusCode::kFailedPrecondition);  // nothing submitted
}

TEST_F(ProtocolDriverTest, OpenFailuresAreReported) {
  g_opened.fail = true;
  Status s = driver_->Open(options_);
  EXPECT_EQ(s.code(), StatusCode::kNotFound);
  EXPECT_THAT(s.message(), HasSubstr("device args '0'"));
  g_opened.fail = false;
  g_opened.hash = 42;
  s = driver_->Open(options_);
  EXPECT_EQ(s.code(), StatusCode::kFailedPrecondition);
  EXPECT_THAT(s.message(), HasSubstr("fake: config 1x8x8"));
  uint64_t a = 0;
  EXPECT_EQ(driver_->Allocate(16, 16, &a).code(), StatusCode::kFailedPrecondition);  // not open
  g_opened.hash = config_.CompatibilityHash();
  EXPECT_TRUE(driver_->Open(options_).ok());
  EXPECT_EQ(driver_->Open(options_).code(), StatusCode::kFailedPrecondition);  // already open
}

}  // namespace
}  // namespace loom::testing
