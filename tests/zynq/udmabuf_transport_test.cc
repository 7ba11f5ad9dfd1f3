// u-dma-buf discovery, allocation inside the region, address-width checks and the sync commands
// against a fake sysfs/dev tree.
#include "runtime/drivers/zynq/udmabuf_transport.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstring>

#include "tests/zynq/fake_tree.h"

namespace loom::runtime::zynq {
namespace {

using ::loom::testing::FakeTree;
using ::testing::HasSubstr;

constexpr uint64_t kMiB = 1 << 20;

UdmabufOptions Options(const FakeTree& tree) {
  UdmabufOptions o;
  o.root = tree.root();
  return o;
}

TEST(UdmabufTransport, AllocatesAlignedDeviceAddressesInsideTheRegion) {
  FakeTree tree;
  tree.AddUdmabuf(0x70000000, kMiB, false);
  std::unique_ptr<UdmabufTransport> t;
  const Status s = UdmabufTransport::Open(Options(tree), &t);
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(t->coherence(), Coherence::kNonCoherent);
  DmaBuffer a, b;
  ASSERT_TRUE(t->Allocate(100, 64, &a).ok());
  ASSERT_TRUE(t->Allocate(4096, 4096, &b).ok());
  EXPECT_EQ(a.device_address, 0x70000000u);
  EXPECT_EQ(b.device_address, 0x70001000u);
  EXPECT_EQ(b.device_address % 4096, 0u);
  EXPECT_EQ(static_cast<uint8_t*>(b.host) - static_cast<uint8_t*>(a.host), 0x1000);
  // The host pointer is the region's mapping: bytes written there are in the device file at
  // device_address - phys_addr.
  std::memcpy(b.host, "loom", 4);
  EXPECT_EQ(tree.Read("dev/udmabuf-loom").substr(0x1000, 4), "loom");
  ASSERT_TRUE(t->Free(a).ok());
  EXPECT_EQ(t->Free(a).code(), StatusCode::kInvalidArgument);
}

TEST(UdmabufTransport, RefusesExhaustion) {
  FakeTree tree;
  tree.AddUdmabuf(0x70000000, kMiB, false);
  std::unique_ptr<UdmabufTransport> t;
  ASSERT_TRUE(UdmabufTransport::Open(Options(tree), &t).ok());
  DmaBuffer a, b;
  ASSERT_TRUE(t->Allocate(kMiB - 4096, 64, &a).ok());
  const Status s = t->Allocate(8192, 64, &b);
  EXPECT_EQ(s.code(), StatusCode::kOutOfRange);
  EXPECT_THAT(s.message(), HasSubstr("exhausted"));
  EXPECT_THAT(s.message(), HasSubstr(tree.Path("dev/udmabuf-loom")));
  EXPECT_TRUE(t->Allocate(4096, 64, &b).ok());
}

TEST(UdmabufTransport, SyncWritesUdmabufCommandsForWholeCacheLines) {
  FakeTree tree;
  tree.AddUdmabuf(0x70000000, kMiB, false);
  std::unique_ptr<UdmabufTransport> t;
  ASSERT_TRUE(UdmabufTransport::Open(Options(tree), &t).ok());
  DmaBuffer a, b;
  ASSERT_TRUE(t->Allocate(0x2000, 4096, &a).ok());
  ASSERT_TRUE(t->Allocate(0x1000, 4096, &b).ok());
  const std::string dir = "sys/class/u-dma-buf/udmabuf-loom/";
  // Offset 0x2000 in the region, 0x1000 bytes, DMA_TO_DEVICE (1 << 2), bit 0 set.
  ASSERT_TRUE(t->SyncForDevice(b, 0, 0x1000).ok());
  EXPECT_EQ(tree.Read(dir + "sync_for_device"), "0x0000200000001005");
  // [0x2010, 0x2090) widens to the lines [0x2000, 0x20c0); DMA_FROM_DEVICE (2 << 2).
  ASSERT_TRUE(t->SyncForCpu(b, 0x10, 0x80).ok());
  EXPECT_EQ(tree.Read(dir + "sync_for_cpu"), "0x00002000000000C9");
}

TEST(UdmabufTransport, SyncOutsideTheBufferIsRefused) {
  FakeTree tree;
  tree.AddUdmabuf(0x70000000, kMiB, false);
  std::unique_ptr<UdmabufTransport> t;
  ASSERT_TRUE(UdmabufTransport::Open(Options(tree), &t).ok());
  DmaBuffer a;
  ASSERT_TRUE(t->Allocate(256, 64, &a).ok());
  Status s = t->SyncForDevice(a, 200, 100);
  EXPECT_EQ(s.code(), StatusCode::kOutOfRange);
  EXPECT_THAT(s.message(), HasSubstr("not inside a live allocation"));
  EXPECT_EQ(t->SyncForCpu(a, UINT64_MAX, 2).code(), StatusCode::kOutOfRange);
  DmaBuffer forged = a;
  forged.device_address += 4096;
  EXPECT_EQ(t->SyncForCpu(forged, 0, 16).code(), StatusCode::kOutOfRange);
  ASSERT_TRUE(t->Free(a).ok());
  EXPECT_EQ(t->SyncForCpu(a, 0, 16).code(), StatusCode::kOutOfRange);
  EXPECT_EQ(tree.Read("sys/class/u-dma-buf/udmabuf-loom/sync_for_cpu"), "");
}

TEST(UdmabufTransport, CoherentRegionSyncsAreNoOps) {
  FakeTree tree;
  tree.AddUdmabuf(0x70000000, kMiB, true);
  std::unique_ptr<UdmabufTransport> t;
  ASSERT_TRUE(UdmabufTransport::Open(Options(tree), &t).ok());
  EXPECT_EQ(t->coherence(), Coherence::kCoherent);
  DmaBuffer a;
  ASSERT_TRUE(t->Allocate(256, 64, &a).ok());
  ASSERT_TRUE(t->SyncForDevice(a, 0, 256).ok());
  EXPECT_EQ(tree.Read("sys/class/u-dma-buf/udmabuf-loom/sync_for_device"), "");
}

TEST(UdmabufTransport, UncachedOptionMakesSyncsNoOps) {
  FakeTree tree;
  tree.AddUdmabuf(0x70000000, kMiB, false);
  UdmabufOptions o = Options(tree);
  o.uncached = true;
  std::unique_ptr<UdmabufTransport> t;
  ASSERT_TRUE(UdmabufTransport::Open(o, &t).ok());
  EXPECT_EQ(t->coherence(), Coherence::kUncached);
  DmaBuffer a;
  ASSERT_TRUE(t->Allocate(256, 64, &a).ok());
  ASSERT_TRUE(t->SyncForCpu(a, 0, 256).ok());
  EXPECT_EQ(tree.Read("sys/class/u-dma-buf/udmabuf-loom/sync_for_cpu"), "");
}

TEST(UdmabufTransport, FortyBitAddressesWorkAndBeyondIsRefused) {
  FakeTree tree;
  // The last MiB below 2^40 (ZynqMP's high DDR lives above 2^32).
  tree.AddUdmabuf((uint64_t{1} << 40) - kMiB, kMiB, false);
  std::unique_ptr<UdmabufTransport> t;
  Status s = UdmabufTransport::Open(Options(tree), &t);
  ASSERT_TRUE(s.ok()) << s.ToString();
  DmaBuffer a;
  ASSERT_TRUE(t->Allocate(64, 64, &a).ok());
  EXPECT_EQ(a.device_address, 0xFFFFF00000u);

  FakeTree over;
  over.AddUdmabuf((uint64_t{1} << 40) - kMiB + 4096, kMiB, false);
  s = UdmabufTransport::Open(Options(over), &t);
  EXPECT_EQ(s.code(), StatusCode::kOutOfRange);
  EXPECT_THAT(s.message(), HasSubstr("40-bit"));
  EXPECT_THAT(s.message(), HasSubstr("0xfffff01000"));

  FakeTree wrap;
  wrap.AddUdmabuf(UINT64_MAX - 4095, kMiB, false);
  UdmabufOptions o = Options(wrap);
  o.address_bits = 64;
  EXPECT_EQ(UdmabufTransport::Open(o, &t).code(), StatusCode::kOutOfRange);
}

TEST(UdmabufTransport, MissingDeviceSaysToLoadTheModule) {
  FakeTree tree;
  std::unique_ptr<UdmabufTransport> t;
  const Status s = UdmabufTransport::Open(Options(tree), &t);
  EXPECT_EQ(s.code(), StatusCode::kNotFound);
  EXPECT_THAT(s.message(), HasSubstr(tree.Path("sys/class/u-dma-buf/udmabuf-loom")));
  EXPECT_THAT(s.message(), HasSubstr("insmod u-dma-buf.ko"));
}

TEST(UdmabufTransport, BadAttributesAndShortDeviceAreRefused) {
  FakeTree tree;
  tree.AddUdmabuf(0x70000000, kMiB, false);
  tree.Write("sys/class/u-dma-buf/udmabuf-loom/size", "lots\n");
  std::unique_ptr<UdmabufTransport> t;
  Status s = UdmabufTransport::Open(Options(tree), &t);
  EXPECT_EQ(s.code(), StatusCode::kDataLoss);
  EXPECT_THAT(s.message(), HasSubstr("udmabuf-loom/size"));

  FakeTree zero;
  zero.AddUdmabuf(0x70000000, 0, false);
  EXPECT_EQ(UdmabufTransport::Open(Options(zero), &t).code(), StatusCode::kInvalidArgument);

  FakeTree shorter;
  shorter.AddUdmabuf(0x70000000, kMiB, false);
  shorter.WriteZeros("dev/udmabuf-loom", 4096);
  s = UdmabufTransport::Open(Options(shorter), &t);
  EXPECT_EQ(s.code(), StatusCode::kDataLoss);
  EXPECT_THAT(s.message(), HasSubstr("less than its size attribute"));
}

}  // namespace
}  // namespace loom::runtime::zynq
