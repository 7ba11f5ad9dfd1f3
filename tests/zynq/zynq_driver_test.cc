// The registered `zynq` device opened against a fake board: the register window is a regular file
// (plain memory, so VERSION and CONFIG_HASH are written into it before Open, as the bitstream would
// report them) and the u-dma-buf region and its sync attributes are regular files. What cannot run
// here is a program: that needs the RTL behind the registers, which protocol_tsim covers.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "runtime/config/config_file.h"
#include "runtime/drivers/driver.h"
#include "runtime/drivers/protocol/registers.h"
#include "tests/zynq/fake_tree.h"

namespace loom::testing {
namespace {

using runtime::Driver;
using runtime::DriverOptions;
using ::testing::HasSubstr;

constexpr uint64_t kMiB = 1 << 20;
const std::string kZynqMp("xlnx,zynqmp\0", 12);

class ZynqDriverTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(LoadHwConfig("1x8x8", &options_.config).ok());
    options_.memory_bytes = kMiB;
    options_.device_args = "root=" + tree_.root();
    tree_.AddUioDevices();  // the accelerator is uio1, a 4 KiB window in dev/uio1
    tree_.AddUdmabuf(0x70000000, kMiB, false);
    tree_.Write("proc/device-tree/compatible", kZynqMp);
    const uint64_t hash = options_.config.CompatibilityHash();
    SetRegister(runtime::reg::kVersion, runtime::reg::kExpectedVersion);
    SetRegister(runtime::reg::kConfigHashLo, static_cast<uint32_t>(hash));
    SetRegister(runtime::reg::kConfigHashHi, static_cast<uint32_t>(hash >> 32));
    ASSERT_TRUE(runtime::CreateDriver("zynq", &driver_).ok());
    EXPECT_STREQ(driver_->name(), "zynq");
    EXPECT_TRUE(driver_->executes_programs());
  }

  // What the bitstream's register block would hold at `offset`.
  void SetRegister(uint32_t offset, uint32_t value) {
    std::string window = tree_.Read("dev/uio1");
    ASSERT_EQ(window.size(), 4096u);
    std::memcpy(&window[offset], &value, 4);
    tree_.Write("dev/uio1", window);
  }

  FakeTree tree_;
  DriverOptions options_;
  std::unique_ptr<Driver> driver_;
};

TEST_F(ZynqDriverTest, MatchingConfigOpens) {
  const Status s = driver_->Open(options_);
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(driver_->config().CompatibilityHash(), options_.config.CompatibilityHash());
}

TEST_F(ZynqDriverTest, ConfigHashMismatchIsRefusedNamingBoth) {
  SetRegister(runtime::reg::kConfigHashLo, 0x89abcdef);
  SetRegister(runtime::reg::kConfigHashHi, 0x01234567);
  const Status s = driver_->Open(options_);
  EXPECT_EQ(s.code(), StatusCode::kFailedPrecondition);
  EXPECT_THAT(s.message(), HasSubstr(options_.config.HashHex()));
  EXPECT_THAT(s.message(), HasSubstr("0123456789abcdef"));
  EXPECT_THAT(s.message(), HasSubstr("CONFIG_HASH"));
}

TEST_F(ZynqDriverTest, WrongVersionMajorIsRefused) {
  SetRegister(runtime::reg::kVersion, runtime::reg::kExpectedVersion + 0x00010000);
  const Status s = driver_->Open(options_);
  EXPECT_EQ(s.code(), StatusCode::kFailedPrecondition);
  EXPECT_THAT(s.message(), HasSubstr("VERSION"));
  EXPECT_THAT(s.message(), HasSubstr("major version 1"));
  // A minor version step is compatible.
  SetRegister(runtime::reg::kVersion, runtime::reg::kExpectedVersion + 0x00000100);
  const Status ok = driver_->Open(options_);
  EXPECT_TRUE(ok.ok()) << ok.ToString();
}

// CopyIn writes the region and hands exactly the written range to the device; CopyOut takes
// exactly the read range back first. u-dma-buf's sync commands: offset in the region (high 32
// bits), size rounded out to cache lines, direction (1: to device, 2: from device) << 2, bit 0.
TEST_F(ZynqDriverTest, CopiesGoToTheDmaRegionWithSyncsForTheirRange) {
  ASSERT_TRUE(driver_->Open(options_).ok());
  uint64_t a = 0, b = 0;
  ASSERT_TRUE(driver_->Allocate(4096, 4096, &a).ok());
  ASSERT_TRUE(driver_->Allocate(4096, 4096, &b).ok());
  EXPECT_EQ(a, 0x70000000u);  // device addresses are the region's physical ones
  EXPECT_EQ(b, 0x70001000u);
  const std::string dir = "sys/class/u-dma-buf/udmabuf-loom/";
  std::vector<uint8_t> in(128);
  for (size_t i = 0; i < in.size(); ++i) in[i] = static_cast<uint8_t>(i * 7 + 1);
  ASSERT_TRUE(driver_->CopyIn(b + 64, in.data(), in.size()).ok());
  EXPECT_EQ(tree_.Read("dev/udmabuf-loom").substr(0x1040, 128), std::string(in.begin(), in.end()));
  EXPECT_EQ(tree_.Read(dir + "sync_for_device"), "0x0000104000000085");
  EXPECT_EQ(tree_.Read(dir + "sync_for_cpu"), "");
  // The accelerator "writes" a result into the region; CopyOut reads it after its sync.
  std::string region = tree_.Read("dev/udmabuf-loom");
  std::memcpy(&region[0x20], "result", 6);
  tree_.Write("dev/udmabuf-loom", region);
  char out[6];
  ASSERT_TRUE(driver_->CopyOut(out, a + 0x20, 6).ok());
  EXPECT_EQ(std::string(out, 6), "result");
  // [0x20, 0x26) widens to the line [0, 0x40); DMA_FROM_DEVICE.
  EXPECT_EQ(tree_.Read(dir + "sync_for_cpu"), "0x0000000000000049");
  // Outside every allocation: refused before any sync.
  uint8_t byte = 0;
  EXPECT_EQ(driver_->CopyOut(&byte, 0x70000000 + kMiB - 1, 1).code(), StatusCode::kOutOfRange);
  ASSERT_TRUE(driver_->Free(a).ok());
  ASSERT_TRUE(driver_->Free(b).ok());
}

TEST_F(ZynqDriverTest, DeviceStringErrorsAndMissingPartsNameTheProblem) {
  options_.device_args = "root=" + tree_.root() + ",speed=9";
  Status s = driver_->Open(options_);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("unknown key 'speed'"));
  options_.device_args = "root=" + tree_.root() + ",uio=vta";
  s = driver_->Open(options_);
  EXPECT_EQ(s.code(), StatusCode::kNotFound);
  EXPECT_THAT(s.message(), HasSubstr("no UIO device named 'vta'"));
  options_.device_args = "root=" + tree_.root() + ",dma=udmabuf:udmabuf7";
  s = driver_->Open(options_);
  EXPECT_EQ(s.code(), StatusCode::kNotFound);
  EXPECT_THAT(s.message(), HasSubstr("no u-dma-buf device 'udmabuf7'"));
  // After failed opens the device still opens with the right string.
  options_.device_args = "root=" + tree_.root();
  s = driver_->Open(options_);
  EXPECT_TRUE(s.ok()) << s.ToString();
}

}  // namespace
}  // namespace loom::testing
