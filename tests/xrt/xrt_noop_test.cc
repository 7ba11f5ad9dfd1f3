// The xrt transports under XRT's noop emulation: XRT's own API runs (device open, xclbin parse and
// load, xrt::ip lookup, xrt::bo allocate / map / sync) over a shim that keeps buffers in host
// memory, reports every bo at device address 0xdeadbeef and has no registers or interrupt.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "runtime/drivers/xrt/xrt_transport.h"

namespace loom::runtime::xrt {
namespace {

using ::testing::HasSubstr;

// XRT reads these once, at its first call: set them before any test runs.
const bool kEnvironment = [] {
  setenv("XCL_EMULATION_MODE", "noop", 1);
  setenv("XILINX_XRT", LOOM_XRT_ROOT, 1);
  unsetenv("LOOM_XCLBIN");
  return true;
}();

const std::string kU250Xclbin = std::string(LOOM_XRT_TEST_DIR) + "/alveo-u250.xclbin";
const std::string kBank2Xclbin = std::string(LOOM_XRT_TEST_DIR) + "/alveo-bank2.xclbin";

struct Opened {
  std::unique_ptr<XrtRegisterTransport> regs;
  std::unique_ptr<XrtDmaTransport> dma;
};

Status Open(const std::string& args, Opened* out) {
  XrtOptions options;
  LOOM_RETURN_IF_ERROR(ParseXrtDeviceArgs(args, nullptr, &options));
  return OpenXrtTransportPair(options, &out->regs, &out->dma);
}

TEST(XrtArgs, DeviceXclbinAndKernel) {
  ASSERT_TRUE(kEnvironment);
  XrtOptions o;
  ASSERT_TRUE(ParseXrtDeviceArgs("", nullptr, &o).ok());
  EXPECT_EQ(o.device, "");
  EXPECT_EQ(o.xclbin, "");
  EXPECT_EQ(o.kernel, "loom");
  ASSERT_TRUE(ParseXrtDeviceArgs("1", "/env.xclbin", &o).ok());
  EXPECT_EQ(o.device, "1");
  EXPECT_EQ(o.xclbin, "/env.xclbin");  // LOOM_XCLBIN when the string names none
  ASSERT_TRUE(ParseXrtDeviceArgs("0000:65:00.1,xclbin=/a/b.xclbin,kernel=k2", "/env", &o).ok());
  EXPECT_EQ(o.device, "0000:65:00.1");
  EXPECT_EQ(o.xclbin, "/a/b.xclbin");  // the string wins over LOOM_XCLBIN
  EXPECT_EQ(o.kernel, "k2");
  ASSERT_TRUE(ParseXrtDeviceArgs(",xclbin=x", nullptr, &o).ok());
  EXPECT_EQ(o.device, "");
  EXPECT_EQ(o.xclbin, "x");
}

TEST(XrtArgs, BadStringsNameThePart) {
  XrtOptions o;
  Status s = ParseXrtDeviceArgs("card0", nullptr, &o);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("device 'card0' is neither an index"));
  s = ParseXrtDeviceArgs("0,bitstream=x", nullptr, &o);
  EXPECT_THAT(s.message(), HasSubstr("unknown key 'bitstream'"));
  s = ParseXrtDeviceArgs("0,xclbin=", nullptr, &o);
  EXPECT_THAT(s.message(), HasSubstr("xclbin= has no value"));
  s = ParseXrtDeviceArgs("0,1", nullptr, &o);
  EXPECT_THAT(s.message(), HasSubstr("'1' is not KEY=VALUE"));
}

TEST(XrtNoop, OpensDeviceLoadsXclbinFindsKernelAndBank) {
  Opened t;
  Status s = Open("0,xclbin=" + kU250Xclbin, &t);
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(t.dma->coherence(), Coherence::kNonCoherent);
  EXPECT_EQ(t.dma->memory_group(), 0);
  EXPECT_EQ(t.dma->memory_tag(), "bank0");
}

TEST(XrtNoop, MemoryGroupComesFromTheXclbinConnectivity) {
  Opened t;
  Status s = Open("xclbin=" + kBank2Xclbin + ",kernel=loomx", &t);
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(t.dma->memory_group(), 2);
  EXPECT_EQ(t.dma->memory_tag(), "bank2");
}

TEST(XrtNoop, MissingXclbinIsRefusedWithWhereToNameOne) {
  Opened t;
  Status s = Open("0", &t);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("no xclbin for the xrt device"));
  EXPECT_THAT(s.message(), HasSubstr("LOOM_XCLBIN"));
  s = Open("0,xclbin=/nonexistent/loom.xclbin", &t);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("cannot read xclbin /nonexistent/loom.xclbin"));
  // Not an xclbin at all: XRT's parser refuses it.
  s = Open(std::string("0,xclbin=") + LOOM_SOURCE_DIR + "/boards/alveo-u250.json", &t);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("Invalid xclbin"));
}

TEST(XrtNoop, WrongKernelNameListsWhatTheXclbinHas) {
  Opened t;
  Status s = Open("0,xclbin=" + kU250Xclbin + ",kernel=vadd", &t);
  EXPECT_EQ(s.code(), StatusCode::kNotFound);
  EXPECT_THAT(s.message(), HasSubstr("no compute unit(s) of kernel 'vadd'"));
  EXPECT_THAT(s.message(), HasSubstr("its IP layout has: loom:loom_1"));
  // The name is a kernel, not a prefix of one.
  s = Open("0,xclbin=" + kBank2Xclbin + ",kernel=loom", &t);
  EXPECT_EQ(s.code(), StatusCode::kNotFound);
  EXPECT_THAT(s.message(), HasSubstr("loomx:loomx_1"));
}

TEST(XrtNoop, AllocateMapSyncBothDirectionsAndRanges) {
  Opened t;
  ASSERT_TRUE(Open("0,xclbin=" + kU250Xclbin, &t).ok());
  for (uint64_t align : {1u, 16u, 64u, 4096u, 65536u}) {
    DmaBuffer b;
    Status s = t.dma->Allocate(1000, align, &b);
    ASSERT_TRUE(s.ok()) << s.message();
    EXPECT_EQ(b.bytes, 1000u);
    EXPECT_EQ(b.device_address % align, 0u) << "align " << align;
    ASSERT_NE(b.host, nullptr);
    // The whole mapping is writable and keeps what was written (the ASan build checks bounds).
    std::memset(b.host, 0x5a, b.bytes);
    EXPECT_TRUE(t.dma->SyncForDevice(b, 0, 1000).ok());
    EXPECT_TRUE(t.dma->SyncForDevice(b, 10, 20).ok());
    EXPECT_TRUE(t.dma->SyncForCpu(b, 999, 1).ok());
    EXPECT_TRUE(t.dma->SyncForCpu(b, 1000, 0).ok());
    EXPECT_EQ(static_cast<uint8_t*>(b.host)[999], 0x5a);
    EXPECT_TRUE(t.dma->Free(b).ok());
  }
  EXPECT_EQ(t.dma->live_buffers(), 0u);
}

TEST(XrtNoop, OutOfRangeSyncsAreRefused) {
  Opened t;
  ASSERT_TRUE(Open("0,xclbin=" + kU250Xclbin, &t).ok());
  DmaBuffer b;
  ASSERT_TRUE(t.dma->Allocate(256, 64, &b).ok());
  Status s = t.dma->SyncForDevice(b, 200, 57);
  EXPECT_EQ(s.code(), StatusCode::kOutOfRange);
  EXPECT_THAT(s.message(), HasSubstr("sync for device: range [200, +57) is outside the 256-byte"));
  s = t.dma->SyncForCpu(b, 257, 0);
  EXPECT_EQ(s.code(), StatusCode::kOutOfRange);
  EXPECT_THAT(s.message(), HasSubstr("sync for cpu"));
  s = t.dma->SyncForCpu(b, UINT64_MAX, 2);  // offset + bytes wraps
  EXPECT_EQ(s.code(), StatusCode::kOutOfRange);
  DmaBuffer forged = b;
  forged.bytes = 512;  // larger than allocated
  s = t.dma->SyncForDevice(forged, 300, 10);
  EXPECT_EQ(s.code(), StatusCode::kOutOfRange);
  EXPECT_THAT(s.message(), HasSubstr("is not a live allocation"));
  ASSERT_TRUE(t.dma->Free(b).ok());
  s = t.dma->SyncForDevice(b, 0, 1);  // freed
  EXPECT_EQ(s.code(), StatusCode::kOutOfRange);
  s = t.dma->Free(b);  // twice
  EXPECT_EQ(s.code(), StatusCode::kOutOfRange);
  EXPECT_THAT(s.message(), HasSubstr("free: buffer at device address"));
}

TEST(XrtNoop, BadAllocationsAreRefused) {
  Opened t;
  ASSERT_TRUE(Open("0,xclbin=" + kU250Xclbin, &t).ok());
  DmaBuffer b;
  EXPECT_EQ(t.dma->Allocate(0, 64, &b).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(t.dma->Allocate(64, 48, &b).code(), StatusCode::kInvalidArgument);
  Status s = t.dma->Allocate(UINT64_MAX - 2, 64, &b);
  EXPECT_EQ(s.code(), StatusCode::kOutOfRange);
  // Larger than the bank (16 GiB in boards/alveo-u250.json): refused before XRT allocates.
  s = t.dma->Allocate(uint64_t{17} << 30, 64, &b);
  EXPECT_EQ(s.code(), StatusCode::kOutOfRange);
  EXPECT_THAT(s.message(), HasSubstr("does not fit memory bank bank0"));
}

TEST(XrtNoop, ManyLiveBuffersAreDistinct) {
  Opened t;
  ASSERT_TRUE(Open("0,xclbin=" + kU250Xclbin, &t).ok());
  std::vector<DmaBuffer> buffers(8);
  for (size_t i = 0; i < buffers.size(); ++i) {
    ASSERT_TRUE(t.dma->Allocate(128 * (i + 1), 16, &buffers[i]).ok());
    std::memset(buffers[i].host, static_cast<int>(i), buffers[i].bytes);
  }
  EXPECT_EQ(t.dma->live_buffers(), 8u);
  for (size_t i = 0; i < buffers.size(); ++i) {
    EXPECT_EQ(static_cast<uint8_t*>(buffers[i].host)[buffers[i].bytes - 1], i);
    EXPECT_TRUE(t.dma->Free(buffers[i]).ok());
  }
  EXPECT_EQ(t.dma->live_buffers(), 0u);
}

// noop has no register file: xrt::ip is found and opened, the range check is XRT's own, and the
// access itself fails in the shim. Register traffic is tested on tsim (docs/boards.md).
TEST(XrtNoop, RegisterAccessReportsTheXrtCall) {
  Opened t;
  ASSERT_TRUE(Open("0,xclbin=" + kU250Xclbin, &t).ok());
  uint32_t v = 0;
  Status s = t.regs->Read32(0x10, &v);
  EXPECT_FALSE(s.ok());
  EXPECT_THAT(s.message(), HasSubstr("xrt::ip::read_register(16) on kernel loom"));
  s = t.regs->Write32(0x0, 1);
  EXPECT_FALSE(s.ok());
  EXPECT_THAT(s.message(), HasSubstr("xrt::ip::write_register(0) on kernel loom"));
  s = t.regs->Read32(0x6, &v);
  EXPECT_EQ(s.code(), StatusCode::kOutOfRange);
  EXPECT_THAT(s.message(), HasSubstr("not 4-byte aligned"));
  // XRT sizes the window from the xclbin's metadata: the 4 KiB of the slave port, as on a card.
  s = t.regs->Read32(0xffc, &v);
  EXPECT_NE(s.code(), StatusCode::kOutOfRange) << s.message();
  s = t.regs->Read32(0x1000, &v);
  EXPECT_EQ(s.code(), StatusCode::kOutOfRange);
  EXPECT_THAT(s.message(), HasSubstr("outside kernel register space"));
  s = t.regs->Write32(0x1000, 0);
  EXPECT_EQ(s.code(), StatusCode::kOutOfRange);
}

TEST(XrtNoop, NoInterruptMeansUnimplementedSoTheProtocolPolls) {
  Opened t;
  ASSERT_TRUE(Open("0,xclbin=" + kU250Xclbin, &t).ok());
  EXPECT_THAT(t.regs->no_interrupt_reason(), HasSubstr("has no interrupt here"));
  EXPECT_EQ(t.regs->EnableInterrupt().code(), StatusCode::kUnimplemented);
  bool fired = true;
  Status s = t.regs->WaitInterrupt(1, &fired);
  EXPECT_EQ(s.code(), StatusCode::kUnimplemented);
  EXPECT_THAT(s.message(), HasSubstr("poll the status register"));
}

}  // namespace
}  // namespace loom::runtime::xrt
