// UIO discovery, register access and interrupt plumbing against a fake sysfs/dev tree.
#include "runtime/drivers/zynq/uio_transport.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstring>

#include "tests/zynq/fake_tree.h"

namespace loom::runtime::zynq {
namespace {

using ::loom::testing::FakeTree;
using ::testing::HasSubstr;

UioOptions Options(const FakeTree& tree) {
  UioOptions o;
  o.root = tree.root();
  return o;
}

uint32_t WordAt(const std::string& bytes, size_t offset) {
  uint32_t v = 0;
  std::memcpy(&v, bytes.data() + offset, 4);
  return v;
}

TEST(UioTransport, FindsTheDeviceByNameNotByNumber) {
  FakeTree tree;
  tree.AddUioDevices();
  std::string dev;
  ASSERT_TRUE(FindUioDevice(Options(tree), &dev).ok());
  EXPECT_EQ(dev, "uio1");
  UioOptions other = Options(tree);
  other.name = "other";
  ASSERT_TRUE(FindUioDevice(other, &dev).ok());
  EXPECT_EQ(dev, "uio0");
}

TEST(UioTransport, OrdersDevicesNumerically) {
  FakeTree tree;
  tree.Write("sys/class/uio/uio10/name", "loom\n");
  tree.Write("sys/class/uio/uio2/name", "loom\n");
  std::string dev;
  ASSERT_TRUE(FindUioDevice(Options(tree), &dev).ok());
  EXPECT_EQ(dev, "uio2");
}

TEST(UioTransport, WritesLandAtTheirOffsetsAndReadsComeBack) {
  FakeTree tree;
  tree.AddUioDevices();
  std::unique_ptr<UioTransport> t;
  const Status s = UioTransport::Open(Options(tree), &t);
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(t->phys_addr(), 0xa0000000u);
  EXPECT_EQ(t->window_bytes(), 4096u);
  ASSERT_TRUE(t->Write32(0x0, 0x11223344).ok());
  ASSERT_TRUE(t->Write32(0x18, 0xdeadbeef).ok());
  ASSERT_TRUE(t->Write32(0xffc, 7).ok());
  uint32_t v = 0;
  ASSERT_TRUE(t->Read32(0x18, &v).ok());
  EXPECT_EQ(v, 0xdeadbeefu);
  // MAP_SHARED: the stores are in the file behind /dev/uio1, at the byte offsets written.
  const std::string file = tree.Read("dev/uio1");
  ASSERT_EQ(file.size(), 4096u);
  EXPECT_EQ(WordAt(file, 0x0), 0x11223344u);
  EXPECT_EQ(WordAt(file, 0x18), 0xdeadbeefu);
  EXPECT_EQ(WordAt(file, 0xffc), 7u);
  EXPECT_EQ(WordAt(file, 0x4), 0u);
  EXPECT_EQ(tree.Read("dev/uio0"), std::string(4096, '\0'));
}

TEST(UioTransport, RefusesOffsetsOutsideTheWindowOrUnaligned) {
  FakeTree tree;
  tree.AddUioDevices();
  std::unique_ptr<UioTransport> t;
  ASSERT_TRUE(UioTransport::Open(Options(tree), &t).ok());
  uint32_t v;
  Status s = t->Read32(0x1000, &v);
  EXPECT_EQ(s.code(), StatusCode::kOutOfRange);
  EXPECT_THAT(s.message(), HasSubstr("0x1000"));
  EXPECT_THAT(s.message(), HasSubstr("4096-byte window"));
  s = t->Write32(0x2, 1);
  EXPECT_EQ(s.code(), StatusCode::kOutOfRange);
  EXPECT_THAT(s.message(), HasSubstr("aligned"));
  EXPECT_EQ(t->Write32(0xfffffffc, 1).code(), StatusCode::kOutOfRange);
}

TEST(UioTransport, InterruptUnmaskWritesOneAndWaitReadsTheCount) {
  FakeTree tree;
  tree.AddUioDevices();
  std::unique_ptr<UioTransport> t;
  ASSERT_TRUE(UioTransport::Open(Options(tree), &t).ok());
  // On the fake, write() of the unmask lands at the file position (0) and read() of the count
  // continues from there; a real /dev/uioN ignores the position.
  ASSERT_TRUE(t->EnableInterrupt().ok());
  EXPECT_EQ(WordAt(tree.Read("dev/uio1"), 0), 1u);
  ASSERT_TRUE(t->Write32(0x4, 42).ok());
  bool fired = false;
  const Status s = t->WaitInterrupt(0, &fired);
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_TRUE(fired);  // poll() on a regular file is always readable
  EXPECT_EQ(t->interrupt_count(), 42u);
  EXPECT_EQ(t->WaitInterrupt(-1, &fired).code(), StatusCode::kInvalidArgument);
}

TEST(UioTransport, MissingUioClassSaysWhatToCheck) {
  FakeTree tree;
  std::unique_ptr<UioTransport> t;
  const Status s = UioTransport::Open(Options(tree), &t);
  EXPECT_EQ(s.code(), StatusCode::kNotFound);
  EXPECT_THAT(s.message(), HasSubstr(tree.Path("sys/class/uio")));
  EXPECT_THAT(s.message(), HasSubstr("uio_pdrv_genirq"));
}

TEST(UioTransport, WrongNameListsWhatWasFound) {
  FakeTree tree;
  tree.AddUioDevices();
  UioOptions o = Options(tree);
  o.name = "vta";
  std::unique_ptr<UioTransport> t;
  const Status s = UioTransport::Open(o, &t);
  EXPECT_EQ(s.code(), StatusCode::kNotFound);
  EXPECT_THAT(s.message(), HasSubstr("no UIO device named 'vta'"));
  EXPECT_THAT(s.message(), HasSubstr("uio0 'other', uio1 'loom'"));
  EXPECT_THAT(s.message(), HasSubstr("overlay"));
}

TEST(UioTransport, UnreadableOrBadMapAttributeNamesThePath) {
  FakeTree tree;
  tree.AddUioDevices();
  std::unique_ptr<UioTransport> t;
  // A directory where the attribute should be: open() works, read() fails with EISDIR.
  remove(tree.Path("sys/class/uio/uio1/maps/map0/size").c_str());
  tree.MakeDir("sys/class/uio/uio1/maps/map0/size");
  Status s = UioTransport::Open(Options(tree), &t);
  EXPECT_EQ(s.code(), StatusCode::kFailedPrecondition);
  EXPECT_THAT(s.message(), HasSubstr(tree.Path("sys/class/uio/uio1/maps/map0/size")));

  FakeTree tree2;
  tree2.AddUioDevices();
  tree2.Write("sys/class/uio/uio1/maps/map0/addr", "banana\n");
  s = UioTransport::Open(Options(tree2), &t);
  EXPECT_EQ(s.code(), StatusCode::kDataLoss);
  EXPECT_THAT(s.message(), HasSubstr("'banana'"));
  EXPECT_THAT(s.message(), HasSubstr("maps/map0/addr"));

  FakeTree tree3;
  tree3.AddUioDevices();
  remove(tree3.Path("sys/class/uio/uio1/maps/map0/addr").c_str());
  s = UioTransport::Open(Options(tree3), &t);
  EXPECT_EQ(s.code(), StatusCode::kNotFound);
  EXPECT_THAT(s.message(), HasSubstr("UIO map0 address"));
}

TEST(UioTransport, TruncatedMapIsRefusedBeforeMapping) {
  FakeTree tree;
  tree.AddUioDevices();
  tree.WriteZeros("dev/uio1", 1024);
  std::unique_ptr<UioTransport> t;
  const Status s = UioTransport::Open(Options(tree), &t);
  EXPECT_EQ(s.code(), StatusCode::kDataLoss);
  EXPECT_THAT(s.message(), HasSubstr(tree.Path("dev/uio1")));
  EXPECT_THAT(s.message(), HasSubstr("1024 bytes"));
}

TEST(UioTransport, ZeroOrHugeWindowSizeIsRefused) {
  FakeTree tree;
  tree.AddUioDevices();
  tree.Write("sys/class/uio/uio1/maps/map0/size", "0x0\n");
  std::unique_ptr<UioTransport> t;
  Status s = UioTransport::Open(Options(tree), &t);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("not a register window"));
  tree.Write("sys/class/uio/uio1/maps/map0/size", "0x100000000\n");
  EXPECT_EQ(UioTransport::Open(Options(tree), &t).code(), StatusCode::kInvalidArgument);
}

TEST(UioTransport, MissingDeviceNodeSaysSo) {
  FakeTree tree;
  tree.AddUioDevices();
  remove(tree.Path("dev/uio1").c_str());
  std::unique_ptr<UioTransport> t;
  const Status s = UioTransport::Open(Options(tree), &t);
  EXPECT_EQ(s.code(), StatusCode::kNotFound);
  EXPECT_THAT(s.message(), HasSubstr(tree.Path("dev/uio1")));
}

}  // namespace
}  // namespace loom::runtime::zynq
