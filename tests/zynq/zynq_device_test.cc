// The zynq device string and the transports it opens, against a fake sysfs/dev/proc tree.
#include "runtime/drivers/zynq/zynq_device.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstring>

#include "tests/zynq/fake_tree.h"

namespace loom::runtime::zynq {
namespace {

using ::loom::testing::FakeTree;
using ::testing::HasSubstr;

constexpr uint64_t kMiB = 1 << 20;
const std::string kZynqMp("xlnx,zynqmp-zcu104-revC\0xlnx,zynqmp\0", 36);
const std::string kZynq7000("tul,pynq-z1\0xlnx,zynq-7000\0", 27);

TEST(ZynqDeviceArgs, DefaultsAndEveryKey) {
  ZynqDeviceArgs a;
  ASSERT_TRUE(ParseZynqDeviceArgs("", &a).ok());
  EXPECT_EQ(a.root, "/");
  EXPECT_EQ(a.uio, "loom");
  EXPECT_EQ(a.dma.kind, DmaOption::Kind::kUdmabuf);
  EXPECT_EQ(a.dma.udmabuf_name, "udmabuf-loom");
  EXPECT_FALSE(a.uncached);
  EXPECT_EQ(a.address_bits, 0);
  const Status s =
      ParseZynqDeviceArgs("uio=accel,dma=devmem:0x70000000:0x100000,addr_bits=32,root=/tmp/x", &a);
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(a.uio, "accel");
  EXPECT_EQ(a.dma.kind, DmaOption::Kind::kDevmem);
  EXPECT_EQ(a.dma.devmem_addr, 0x70000000u);
  EXPECT_EQ(a.dma.devmem_bytes, kMiB);
  EXPECT_EQ(a.address_bits, 32);
  EXPECT_EQ(a.root, "/tmp/x");
  ASSERT_TRUE(ParseZynqDeviceArgs("dma=udmabuf:udmabuf1,uncached,addr_bits=40", &a).ok());
  EXPECT_EQ(a.dma.udmabuf_name, "udmabuf1");
  EXPECT_TRUE(a.uncached);
  EXPECT_EQ(a.address_bits, 40);
}

TEST(ZynqDeviceArgs, BadStringsNameTheProblem) {
  const struct {
    const char* args;
    const char* message;
  } cases[] = {
      {"speed=9", "unknown key 'speed'"},
      {"uio=a,uio=b", "uio given twice"},
      {"addr_bits=36", "addr_bits=36: expected 32 (Zynq-7000) or 40 (ZynqMP)"},
      {"root=tmp", "root=tmp is not an absolute path"},
      {"uncached=1", "uncached takes no value"},
      {"uio", "'uio' is not KEY=VALUE"},
      {"uio=", "uio= has no value"},
      {"uio=a,,uncached", "empty entry between commas"},
      {"uio=a,", "empty entry after the last ','"},
      {"uio=../x", "not a UIO device name"},
      {"dma=devmem:0x1000", "dma=devmem:0x1000: expected devmem:ADDR:SIZE"},
      {"dma=devmem:0x1000:0x1000,uncached", "dma=devmem is always mapped uncached"},
  };
  for (const auto& c : cases) {
    ZynqDeviceArgs a;
    const Status s = ParseZynqDeviceArgs(c.args, &a);
    EXPECT_EQ(s.code(), StatusCode::kInvalidArgument) << c.args;
    EXPECT_THAT(s.message(), HasSubstr(c.message)) << c.args;
    EXPECT_THAT(s.message(), HasSubstr(std::string("device string 'zynq:") + c.args + "'"));
  }
}

TEST(ZynqDeviceAddressBits, FromTheDeviceTreeCompatibleList) {
  FakeTree tree;
  int bits = 0;
  Status s = DetectAddressBits(tree.root(), &bits);
  EXPECT_EQ(s.code(), StatusCode::kNotFound);
  EXPECT_THAT(s.message(), HasSubstr(tree.Path("proc/device-tree/compatible")));
  EXPECT_THAT(s.message(), HasSubstr("addr_bits=32 or 40"));
  // /sys/firmware/devicetree is the fallback when /proc/device-tree is absent.
  tree.Write("sys/firmware/devicetree/base/compatible", kZynq7000);
  ASSERT_TRUE(DetectAddressBits(tree.root(), &bits).ok());
  EXPECT_EQ(bits, 32);
  tree.Write("proc/device-tree/compatible", kZynqMp);
  ASSERT_TRUE(DetectAddressBits(tree.root(), &bits).ok());
  EXPECT_EQ(bits, 40);
  tree.Write("proc/device-tree/compatible",
             std::string("raspberrypi,4-model-b\0brcm,bcm2711\0", 35));
  s = DetectAddressBits(tree.root(), &bits);
  EXPECT_EQ(s.code(), StatusCode::kFailedPrecondition);
  EXPECT_THAT(s.message(), HasSubstr("(raspberrypi,4-model-b, brcm,bcm2711) names neither"));
}

ZynqDeviceArgs ArgsFor(const FakeTree& tree, const std::string& more = "") {
  ZynqDeviceArgs a;
  const Status s = ParseZynqDeviceArgs("root=" + tree.root() + more, &a);
  EXPECT_TRUE(s.ok()) << s.ToString();
  return a;
}

TEST(ZynqDevice, OpensRegistersAndDmaMemoryOfTheFakeBoard) {
  FakeTree tree;
  tree.AddUioDevices();
  tree.AddUdmabuf(0x70000000, kMiB, false);
  tree.Write("proc/device-tree/compatible", kZynqMp);
  std::unique_ptr<RegisterTransport> regs;
  std::unique_ptr<DmaTransport> dma;
  const Status s = OpenZynqDevice(ArgsFor(tree), &regs, &dma);
  ASSERT_TRUE(s.ok()) << s.ToString();
  // The register window is uio1's (named "loom"), not uio0's.
  ASSERT_TRUE(regs->Write32(8, 0x12345678).ok());
  const std::string window = tree.Read("dev/uio1");
  uint32_t word = 0;
  std::memcpy(&word, window.data() + 8, 4);
  EXPECT_EQ(word, 0x12345678u);
  EXPECT_EQ(tree.Read("dev/uio0"), std::string(4096, '\0'));
  EXPECT_EQ(dma->coherence(), Coherence::kNonCoherent);
  DmaBuffer b;
  ASSERT_TRUE(dma->Allocate(256, 64, &b).ok());
  EXPECT_EQ(b.device_address, 0x70000000u);
  ASSERT_TRUE(dma->SyncForDevice(b, 0, 256).ok());
  EXPECT_EQ(tree.Read("sys/class/u-dma-buf/udmabuf-loom/sync_for_device"), "0x0000000000000105");
}

TEST(ZynqDevice, AddressWidthComesFromTheSoc) {
  // A region above 4 GiB: reachable on ZynqMP (40 bits), not on Zynq-7000 (32 bits).
  FakeTree tree;
  tree.AddUioDevices();
  tree.AddUdmabuf(uint64_t{0x800000000}, kMiB, false);
  tree.Write("proc/device-tree/compatible", kZynq7000);
  std::unique_ptr<RegisterTransport> regs;
  std::unique_ptr<DmaTransport> dma;
  Status s = OpenZynqDevice(ArgsFor(tree), &regs, &dma);
  EXPECT_EQ(s.code(), StatusCode::kOutOfRange);
  EXPECT_THAT(s.message(), HasSubstr("ends above the 32-bit address range"));
  tree.Write("proc/device-tree/compatible", kZynqMp);
  s = OpenZynqDevice(ArgsFor(tree), &regs, &dma);
  ASSERT_TRUE(s.ok()) << s.ToString();
  // addr_bits= overrides the device tree.
  s = OpenZynqDevice(ArgsFor(tree, ",addr_bits=32"), &regs, &dma);
  EXPECT_EQ(s.code(), StatusCode::kOutOfRange);
}

TEST(ZynqDevice, MissingUioSaysWhatToCheck) {
  FakeTree tree;
  tree.AddUdmabuf(0x70000000, kMiB, false);
  tree.Write("proc/device-tree/compatible", kZynqMp);
  std::unique_ptr<RegisterTransport> regs;
  std::unique_ptr<DmaTransport> dma;
  Status s = OpenZynqDevice(ArgsFor(tree), &regs, &dma);
  EXPECT_EQ(s.code(), StatusCode::kNotFound);
  EXPECT_THAT(s.message(), HasSubstr(tree.Path("sys/class/uio")));
  EXPECT_THAT(s.message(), HasSubstr("of_id=generic-uio"));
  // UIO devices, none named as asked: the message lists what there is.
  tree.AddUioDevices();
  s = OpenZynqDevice(ArgsFor(tree, ",uio=vta"), &regs, &dma);
  EXPECT_EQ(s.code(), StatusCode::kNotFound);
  EXPECT_THAT(s.message(), HasSubstr("no UIO device named 'vta'"));
  EXPECT_THAT(s.message(), HasSubstr("uio0 'other', uio1 'loom'"));
  EXPECT_EQ(regs, nullptr);
  EXPECT_EQ(dma, nullptr);
}

TEST(ZynqDevice, MissingUdmabufSaysWhatToCheck) {
  FakeTree tree;
  tree.AddUioDevices();
  tree.Write("proc/device-tree/compatible", kZynqMp);
  std::unique_ptr<RegisterTransport> regs;
  std::unique_ptr<DmaTransport> dma;
  Status s = OpenZynqDevice(ArgsFor(tree), &regs, &dma);
  EXPECT_EQ(s.code(), StatusCode::kNotFound);
  EXPECT_THAT(s.message(), HasSubstr("no u-dma-buf device 'udmabuf-loom'"));
  EXPECT_THAT(s.message(), HasSubstr("u-dma-buf.ko"));
  tree.AddUdmabuf(0x70000000, kMiB, false);
  s = OpenZynqDevice(ArgsFor(tree, ",dma=udmabuf:udmabuf1"), &regs, &dma);
  EXPECT_EQ(s.code(), StatusCode::kNotFound);
  EXPECT_THAT(s.message(), HasSubstr("no u-dma-buf device 'udmabuf1'"));
  EXPECT_EQ(regs, nullptr);
}

TEST(ZynqDevice, DevmemRangeIsCheckedAndMapped) {
  FakeTree tree;
  tree.AddUioDevices();
  tree.Write("proc/device-tree/compatible", kZynq7000);
  std::unique_ptr<RegisterTransport> regs;
  std::unique_ptr<DmaTransport> dma;
  // Ends at 4 GiB + 1 MiB: beyond Zynq-7000's 32 bits.
  Status s = OpenZynqDevice(ArgsFor(tree, ",dma=devmem:0xfff00000:0x200000"), &regs, &dma);
  EXPECT_EQ(s.code(), StatusCode::kOutOfRange);
  EXPECT_THAT(s.message(), HasSubstr("0xfff00000 + 0x200000"));
  EXPECT_THAT(s.message(), HasSubstr("32-bit"));
  // No /dev/mem in the tree.
  s = OpenZynqDevice(ArgsFor(tree, ",dma=devmem:0x10000000:0x100000"), &regs, &dma);
  EXPECT_EQ(s.code(), StatusCode::kNotFound);
  EXPECT_THAT(s.message(), HasSubstr(tree.Path("dev/mem")));
  // A sparse /dev/mem reaching the range: mapped uncached at the physical address.
  tree.WriteZeros("dev/mem", 0x10000000 + kMiB);
  s = OpenZynqDevice(ArgsFor(tree, ",dma=devmem:0x10000000:0x100000"), &regs, &dma);
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(dma->coherence(), Coherence::kUncached);
  DmaBuffer b;
  ASSERT_TRUE(dma->Allocate(64, 64, &b).ok());
  EXPECT_EQ(b.device_address, 0x10000000u);
}

}  // namespace
}  // namespace loom::runtime::zynq
