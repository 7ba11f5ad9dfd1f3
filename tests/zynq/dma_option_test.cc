// The dma= device argument and the /dev/mem fallback, against a sparse regular file standing in for
// /dev/mem.
#include "runtime/drivers/zynq/dma_option.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstring>

#include "tests/zynq/fake_tree.h"

namespace loom::runtime::zynq {
namespace {

using ::loom::testing::FakeTree;
using ::testing::HasSubstr;

TEST(DmaOption, UdmabufIsTheDefaultAndDevmemMustBeSpelledOut) {
  DmaOption o;
  EXPECT_EQ(o.kind, DmaOption::Kind::kUdmabuf);
  ASSERT_TRUE(ParseDmaOption("udmabuf", &o).ok());
  EXPECT_EQ(o.kind, DmaOption::Kind::kUdmabuf);
  EXPECT_EQ(o.udmabuf_name, "udmabuf-loom");
  ASSERT_TRUE(ParseDmaOption("udmabuf:udmabuf0", &o).ok());
  EXPECT_EQ(o.udmabuf_name, "udmabuf0");
  ASSERT_TRUE(ParseDmaOption("devmem:0x70000000:16777216", &o).ok());
  EXPECT_EQ(o.kind, DmaOption::Kind::kDevmem);
  EXPECT_EQ(o.devmem_addr, 0x70000000u);
  EXPECT_EQ(o.devmem_bytes, 16u << 20);
}

TEST(DmaOption, MalformedValuesAreRefused) {
  DmaOption o;
  for (const char* bad : {"", "mem", "devmem", "devmem:0x1000", "devmem:x:0x1000",
                          "devmem:0x1000:0", "devmem:0x1001:0x1000", "devmem:0x1000:0x10",
                          "devmem:0x1000:0x100000000000000000", "udmabuf:", "udmabuf:../x"}) {
    const Status s = ParseDmaOption(bad, &o);
    EXPECT_EQ(s.code(), StatusCode::kInvalidArgument) << bad;
    EXPECT_THAT(s.message(), HasSubstr(std::string("dma=") + bad)) << bad;
  }
}

TEST(DevmemTransport, MapsThePhysicalRangeAndAllocatesInIt) {
  FakeTree tree;
  const uint64_t addr = 0x10000000, bytes = 1 << 20;
  tree.WriteZeros("dev/mem", addr + bytes);  // sparse
  std::unique_ptr<DevmemTransport> t;
  const Status s = DevmemTransport::Open(tree.root(), addr, bytes, 40, &t);
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(t->coherence(), Coherence::kUncached);
  DmaBuffer a, b;
  ASSERT_TRUE(t->Allocate(100, 64, &a).ok());
  ASSERT_TRUE(t->Allocate(64, 4096, &b).ok());
  EXPECT_EQ(a.device_address, addr);
  EXPECT_EQ(b.device_address, addr + 4096);
  std::memcpy(b.host, "mem!", 4);
  EXPECT_TRUE(t->SyncForDevice(b, 0, 4).ok());
  EXPECT_EQ(t->SyncForCpu(b, 0, 65).code(), StatusCode::kOutOfRange);
  EXPECT_EQ(t->Allocate(bytes, 64, &a).code(), StatusCode::kOutOfRange);
  t.reset();
  // The bytes went to /dev/mem at the physical address.
  FILE* f = fopen(tree.Path("dev/mem").c_str(), "rb");
  ASSERT_NE(f, nullptr);
  char got[4] = {};
  ASSERT_EQ(fseek(f, static_cast<long>(addr + 4096), SEEK_SET), 0);
  ASSERT_EQ(fread(got, 1, 4, f), 4u);
  fclose(f);
  EXPECT_EQ(std::string(got, 4), "mem!");
}

TEST(DevmemTransport, RangeAboveTheAddressWidthIsRefused) {
  FakeTree tree;
  tree.WriteZeros("dev/mem", 4096);
  std::unique_ptr<DevmemTransport> t;
  const Status s = DevmemTransport::Open(tree.root(), uint64_t{1} << 40, 4096, 40, &t);
  EXPECT_EQ(s.code(), StatusCode::kOutOfRange);
  EXPECT_THAT(s.message(), HasSubstr("40-bit"));
  EXPECT_EQ(DevmemTransport::Open(tree.root(), 0, 4096, 20, &t).code(),
            StatusCode::kInvalidArgument);
}

TEST(DevmemTransport, MissingDevMemNamesThePath) {
  FakeTree tree;
  std::unique_ptr<DevmemTransport> t;
  const Status s = DevmemTransport::Open(tree.root(), 0x10000000, 4096, 40, &t);
  EXPECT_EQ(s.code(), StatusCode::kNotFound);
  EXPECT_THAT(s.message(), HasSubstr(tree.Path("dev/mem")));
}

}  // namespace
}  // namespace loom::runtime::zynq
