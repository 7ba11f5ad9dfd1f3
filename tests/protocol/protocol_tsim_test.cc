// The accelerator protocol against the RTL: a real program (a double-buffered GEMM with
// requantization) through the protocol driver over tsim's transports, in stale-cache mode. With
// every sync it is bit-identical to fsim; a driver that drops one SyncForDevice computes on data
// the RTL never saw, and one that skips SyncForCpu reads stale results. So a missing flush or
// invalidate fails here, not on a board.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "runtime/config/config_file.h"
#include "runtime/drivers/protocol/protocol_driver.h"
#include "runtime/drivers/tsim/tsim_driver.h"
#include "runtime/drivers/tsim/tsim_transport.h"
#include "sim/fsim/fsim.h"
#include "sim/programs/gemm_program.h"

namespace loom::testing {
namespace {

using runtime::DmaBuffer;
using runtime::Driver;
using runtime::DriverOptions;
using runtime::Transports;

// TsimDma, except that it drops the SyncForDevice of the range starting at `drop_device_at`, or
// every SyncForCpu: what a driver that forgot a flush or an invalidate would do.
struct Drops {
  uint64_t drop_device_at = ~uint64_t{0};
  bool drop_cpu = false;
  int dropped = 0;
};
Drops g_drops;

class ForgetfulDma : public runtime::DmaTransport {
 public:
  explicit ForgetfulDma(std::unique_ptr<runtime::TsimDma> dma) : dma_(std::move(dma)) {}
  runtime::Coherence coherence() const override { return dma_->coherence(); }
  Status Allocate(uint64_t bytes, uint64_t align, DmaBuffer* b) override {
    return dma_->Allocate(bytes, align, b);
  }
  Status Free(const DmaBuffer& b) override { return dma_->Free(b); }
  Status SyncForDevice(const DmaBuffer& b, uint64_t offset, uint64_t bytes) override {
    if (b.device_address + offset == g_drops.drop_device_at) {
      ++g_drops.dropped;
      return Status::Ok();
    }
    return dma_->SyncForDevice(b, offset, bytes);
  }
  Status SyncForCpu(const DmaBuffer& b, uint64_t offset, uint64_t bytes) override {
    if (g_drops.drop_cpu) {
      ++g_drops.dropped;
      return Status::Ok();
    }
    return dma_->SyncForCpu(b, offset, bytes);
  }

 private:
  std::unique_ptr<runtime::TsimDma> dma_;
};

Status OpenForgetfulTsim(const DriverOptions& options, Transports* out) {
  runtime::TsimOptions tsim_options;
  LOOM_RETURN_IF_ERROR(runtime::ParseTsimDeviceArgs(options.device_args, &tsim_options));
  std::shared_ptr<tsim::Harness> harness;
  LOOM_RETURN_IF_ERROR(
      runtime::CreateTsimHarness(options.config, options.memory_bytes, options.waves, &harness));
  out->regs = std::make_unique<runtime::TsimRegisters>(harness, options.config, 0);
  out->dma = std::make_unique<ForgetfulDma>(
      std::make_unique<runtime::TsimDma>(harness, tsim_options.stale_cache));
  return Status::Ok();
}

class ProtocolTsimTest : public ::testing::Test {
 protected:
  void SetUp() override {
    g_drops = Drops();
    ASSERT_TRUE(LoadHwConfig("1x8x8", &config_).ok());
    spec_.m = spec_.k = spec_.n = 16;
    spec_.tile_m = spec_.tile_k = spec_.tile_n = 8;
    spec_.requant = spec_.relu = true;
    spec_.pre_shift = 4;
    spec_.post_shift = 19;
    data_ = programs::RandomGemmData(config_, spec_, 7);
    program_ = std::make_unique<programs::Program>(config_);
    ASSERT_TRUE(programs::BuildGemm(config_, spec_, data_, program_.get(), &out_).ok());
    dram_bytes_ = (program_->dram_bytes() + 8191) / 4096 * 4096;

    // fsim's result, the reference every device must match bit for bit.
    std::unique_ptr<fsim::Simulator> sim;
    ASSERT_TRUE(fsim::Simulator::Create(config_, dram_bytes_, &sim).ok());
    ASSERT_TRUE(program_
                    ->Install([&](uint64_t a, const uint8_t* b, size_t n) {
                      return sim->dram().Write(a, b, n);
                    })
                    .ok());
    fsim::Stats stats;
    const Status s = sim->Run({program_->insn_addr(), program_->insn_count(), false}, &stats);
    ASSERT_TRUE(s.ok()) << s.ToString();
    fsim_out_.resize(out_.bytes);
    ASSERT_TRUE(sim->dram().Read(out_.addr, fsim_out_.data(), out_.bytes).ok());
  }

  // Places the program through CopyIn, fills the output with a marker, runs it, reads the output.
  Status Run(Driver& d, std::vector<uint8_t>* out, const std::string& device_args = "") {
    DriverOptions o;
    o.config = config_;
    o.device_args = device_args;
    o.memory_bytes = dram_bytes_;
    LOOM_RETURN_IF_ERROR(d.Open(o));
    uint64_t base = 0;
    LOOM_RETURN_IF_ERROR(d.Allocate(dram_bytes_, 4096, &base));
    if (base != 0) return Internal("expected the whole DRAM at address 0");
    LOOM_RETURN_IF_ERROR(program_->Install(
        [&](uint64_t a, const uint8_t* b, size_t n) { return d.CopyIn(a, b, n); }));
    const std::vector<uint8_t> marker(out_.bytes, kMarker);
    LOOM_RETURN_IF_ERROR(d.CopyIn(out_.addr, marker.data(), marker.size()));
    LOOM_RETURN_IF_ERROR(d.Submit(program_->insn_addr(), program_->insn_count()));
    LOOM_RETURN_IF_ERROR(d.Wait(1000));
    out->assign(out_.bytes, 0);
    return d.CopyOut(out->data(), out_.addr, out_.bytes);
  }

  // The first Install chunk that holds GEMM operands (not micro-ops or instructions).
  uint64_t OperandChunk() {
    uint64_t at = ~uint64_t{0}, biggest = 0;
    EXPECT_TRUE(program_
                    ->Install([&](uint64_t a, const uint8_t*, size_t n) {
                      const bool has_insns =
                          program_->insn_addr() >= a && program_->insn_addr() < a + n;
                      if (!has_insns && n > biggest) biggest = n, at = a;
                      return Status::Ok();
                    })
                    .ok());
    return at;
  }

  static constexpr uint8_t kMarker = 0xee;
  HwConfig config_;
  programs::GemmSpec spec_;
  programs::GemmData data_;
  std::unique_ptr<programs::Program> program_;
  programs::GemmOutput out_;
  uint64_t dram_bytes_ = 0;
  std::vector<uint8_t> fsim_out_;
};

TEST_F(ProtocolTsimTest, WithEverySyncTheResultIsBitIdenticalToFsim) {
  // The tsim device itself: the protocol driver over tsim's transports, stale cache by default.
  std::unique_ptr<Driver> d = runtime::CreateTsimDriver();
  std::vector<uint8_t> got;
  const Status s = Run(*d, &got);
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(got, fsim_out_);
  EXPECT_EQ(programs::UnblockOutput(config_, spec_, got),
            programs::ReferenceGemm(config_, spec_, data_));
  // One Verilated model at a time: two instances of a model in one process do not tear down.
  d.reset();
  // The same through the forgetful wrapper with nothing dropped: the wrapper is not the difference.
  std::unique_ptr<Driver> f = runtime::CreateProtocolDriver("tsim-forgetful", &OpenForgetfulTsim);
  ASSERT_TRUE(Run(*f, &got).ok());
  EXPECT_EQ(got, fsim_out_);
  EXPECT_EQ(g_drops.dropped, 0);
}

TEST_F(ProtocolTsimTest, AMissingFlushLeavesTheRtlComputingOnStaleData) {
  g_drops.drop_device_at = OperandChunk();
  ASSERT_NE(g_drops.drop_device_at, ~uint64_t{0});
  std::unique_ptr<Driver> d = runtime::CreateProtocolDriver("tsim-forgetful", &OpenForgetfulTsim);
  std::vector<uint8_t> got;
  const Status s = Run(*d, &got);
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(g_drops.dropped, 1);
  EXPECT_NE(got, fsim_out_) << "the operands the CPU wrote but never flushed reached the RTL";
}

TEST_F(ProtocolTsimTest, AMissingInvalidateReadsStaleResults) {
  g_drops.drop_cpu = true;
  std::unique_ptr<Driver> d = runtime::CreateProtocolDriver("tsim-forgetful", &OpenForgetfulTsim);
  std::vector<uint8_t> got;
  const Status s = Run(*d, &got);
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(g_drops.dropped, 1);
  // What the CPU wrote before the run, not what the RTL stored.
  EXPECT_EQ(got, std::vector<uint8_t>(out_.bytes, kMarker));
  EXPECT_NE(fsim_out_, got);
}

TEST_F(ProtocolTsimTest, CoherentModeSharesOneCopy) {
  // "tsim:coherent": the CPU's view is the DRAM model, so even a driver without syncs is right.
  g_drops.drop_cpu = true;
  g_drops.drop_device_at = OperandChunk();
  std::unique_ptr<Driver> d = runtime::CreateProtocolDriver("tsim-forgetful", &OpenForgetfulTsim);
  std::vector<uint8_t> got;
  const Status s = Run(*d, &got, "coherent");
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(got, fsim_out_);
  EXPECT_EQ(g_drops.dropped, 2);

  runtime::TsimOptions o;
  const Status bad = runtime::ParseTsimDeviceArgs("writeback", &o);
  EXPECT_EQ(bad.code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(bad.message(), ::testing::HasSubstr("unknown device argument 'writeback'"));
}

}  // namespace
}  // namespace loom::testing
