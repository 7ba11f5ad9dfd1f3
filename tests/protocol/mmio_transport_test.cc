// The transports of a board without an OS (runtime/drivers/mmio) on the host: the register window
// and the DMA region are plain memory here, so each test can see exactly which register the
// protocol wrote and where a buffer landed. The device's side of a run is played between two
// polls, in the clock's pause hook, the only moment a polled device can change under the CPU.
#include "runtime/drivers/mmio/mmio_transport.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <cstring>
#include <memory>
#include <vector>

#include "runtime/drivers/cpu/cpu_driver.h"
#include "runtime/drivers/mmio/mmio_driver.h"
#include "runtime/drivers/protocol/accelerator.h"
#include "runtime/drivers/protocol/registers.h"

namespace loom::runtime {
namespace {

using ::testing::HasSubstr;

// A register window in memory plus a device clock; when `finish_after_pauses` pauses have passed
// after a start, the "accelerator" reports done with the counters below.
struct Window {
  std::array<uint32_t, 0x1000 / 4> words{};
  uint64_t now_ns = 5000;
  int pauses = 0;
  int finish_after_pauses = 3;

  uintptr_t base() { return reinterpret_cast<uintptr_t>(words.data()); }
  uint32_t& at(uint32_t offset) { return words[offset / 4]; }
  MmioClock clock() {
    MmioClock c;
    c.ctx = this;
    c.now_ns = [](void* ctx) { return static_cast<Window*>(ctx)->now_ns; };
    c.pause_us = [](void* ctx, uint32_t micros) {
      Window* w = static_cast<Window*>(ctx);
      w->now_ns += uint64_t{micros} * 1000;
      if (++w->pauses == w->finish_after_pauses && (w->at(reg::kCtrl) & reg::kCtrlStart)) {
        w->at(reg::kCtrl) = reg::kCtrlDone | reg::kCtrlIdle;
        w->at(reg::kCyclesLo) = 1234;
        w->at(reg::kCyclesHi) = 1;
        w->at(reg::kFetched) = 7;
        w->at(reg::kGemmIters) = 10;
      }
    };
    return c;
  }
  void PowerOn(const HwConfig& config) {
    at(reg::kVersion) = reg::kExpectedVersion;
    at(reg::kConfigHashLo) = static_cast<uint32_t>(config.CompatibilityHash());
    at(reg::kConfigHashHi) = static_cast<uint32_t>(config.CompatibilityHash() >> 32);
    at(reg::kCtrl) = reg::kCtrlIdle;
  }
};

HwConfig TestConfig() {
  HwConfig c;
  c.name = "1x16x16";
  return c;
}

TEST(MmioRegisters, ReadsAndWritesTheWordAtBasePlusOffset) {
  Window w;
  MmioRegisters regs(w.base(), 0x1000);
  ASSERT_TRUE(regs.Write32(0x24, 0xdeadbeef).ok());
  EXPECT_EQ(w.at(0x24), 0xdeadbeefu);
  EXPECT_EQ(w.at(0x20), 0u);
  EXPECT_EQ(w.at(0x28), 0u);
  w.at(0xffc) = 42;
  uint32_t v = 0;
  ASSERT_TRUE(regs.Read32(0xffc, &v).ok());
  EXPECT_EQ(v, 42u);
}

TEST(MmioRegisters, RefusesUnalignedAndOutOfWindowOffsets) {
  Window w;
  MmioRegisters regs(w.base(), 0x100);
  uint32_t v = 0;
  for (uint32_t offset : {0x2u, 0x100u, 0xfffffffcu}) {
    const Status s = regs.Read32(offset, &v);
    EXPECT_EQ(s.code(), StatusCode::kOutOfRange) << offset;
    EXPECT_THAT(s.message(), HasSubstr("window of 256 bytes"));
  }
  const Status s = regs.Write32(0x101, 1);
  EXPECT_EQ(s.code(), StatusCode::kOutOfRange);
  EXPECT_THAT(s.message(), HasSubstr("write at offset 0x101"));
  EXPECT_EQ(w.at(0x100 - 4), 0u);
}

TEST(MmioRegisters, HasNoInterruptSoTheProtocolPolls) {
  Window w;
  MmioRegisters regs(w.base(), 0x1000);
  bool fired = true;
  EXPECT_EQ(regs.EnableInterrupt().code(), StatusCode::kUnimplemented);
  EXPECT_EQ(regs.WaitInterrupt(10, &fired).code(), StatusCode::kUnimplemented);
  EXPECT_FALSE(fired);
}

TEST(MmioRegisters, DefaultClockIsThePlatformsAndMonotonic) {
  Window w;
  MmioRegisters regs(w.base(), 0x1000);
  const uint64_t a = regs.NowNanos();
  regs.Pause(1);
  EXPECT_GT(regs.NowNanos(), a);
}

// The protocol's whole register sequence over the mmio window: open checks, the start writes,
// polling until done, the counters.
TEST(MmioRegisters, RunsTheProtocolsRegisterSequence) {
  const HwConfig config = TestConfig();
  Window w;
  w.PowerOn(config);
  MmioRegisters regs(w.base(), 0x1000, w.clock());
  Accelerator acc;
  ASSERT_TRUE(acc.Open(&regs, config, "mmio").ok());
  EXPECT_FALSE(acc.uses_interrupt());
  ASSERT_TRUE(acc.Start(0x1F000040ull | (uint64_t{0x2} << 32), 5, nullptr).ok());
  EXPECT_EQ(w.at(reg::kInsnAddrLo), 0x1F000040u);
  EXPECT_EQ(w.at(reg::kInsnAddrHi), 0x2u);
  EXPECT_EQ(w.at(reg::kInsnCount), 5u);
  EXPECT_EQ(w.at(reg::kGie), 0u);
  EXPECT_EQ(w.at(reg::kIer), 0u);
  EXPECT_EQ(w.at(reg::kCtrl), reg::kCtrlStart);
  ASSERT_TRUE(acc.Wait(1000000000ull).ok());
  EXPECT_EQ(w.pauses, 3);
  DeviceCounters c;
  ASSERT_TRUE(acc.ReadCounters(&c).ok());
  EXPECT_TRUE(c.valid);
  EXPECT_EQ(c.cycles, (uint64_t{1} << 32) + 1234);
  EXPECT_EQ(c.insns, 7u);
  EXPECT_EQ(c.macs, 10u * config.macs_per_cycle());
}

TEST(MmioRegisters, ProtocolTimesOutInDeviceTime) {
  const HwConfig config = TestConfig();
  Window w;
  w.PowerOn(config);
  w.finish_after_pauses = -1;  // never done
  MmioRegisters regs(w.base(), 0x1000, w.clock());
  Accelerator acc;
  ASSERT_TRUE(acc.Open(&regs, config, "mmio").ok());
  ASSERT_TRUE(acc.Start(0x1000, 1, nullptr).ok());
  const uint64_t start = w.now_ns;
  const Status s = acc.Wait(2000000);  // 2 ms of device time
  EXPECT_EQ(s.code(), StatusCode::kDeadlineExceeded);
  EXPECT_GE(w.now_ns - start, 2000000u);
  EXPECT_LT(w.now_ns - start, 2000000u + Accelerator::kPollMicros * 1000u);
}

TEST(MmioRegisters, OpenRefusesAnotherConfigsBitstream) {
  Window w;
  w.PowerOn(TestConfig());
  HwConfig other = TestConfig();
  other.name = "shallow-queues";
  other.token_queue_depth = 16;  // part of the hash, and still a valid layout
  MmioRegisters regs(w.base(), 0x1000, w.clock());
  Accelerator acc;
  const Status s = acc.Open(&regs, other, "mmio");
  EXPECT_EQ(s.code(), StatusCode::kFailedPrecondition);
  EXPECT_THAT(s.message(), HasSubstr("CONFIG_HASH"));
}

TEST(StaticDmaMemory, HandsOutDeviceAddressesInsideTheRegion) {
  std::vector<uint8_t> region(64 * 1024);
  StaticDmaMemory dma(region.data(), 0x1F000000, region.size(), Coherence::kUncached);
  DmaBuffer a, b;
  ASSERT_TRUE(dma.Allocate(1000, 4096, &a).ok());
  ASSERT_TRUE(dma.Allocate(16, 64, &b).ok());
  EXPECT_EQ(a.device_address, 0x1F000000u);
  EXPECT_EQ(a.host, region.data());
  EXPECT_EQ(b.device_address % 64, 0u);
  EXPECT_GE(b.device_address, a.device_address + 1000);
  EXPECT_EQ(static_cast<uint8_t*>(b.host) - region.data(),
            static_cast<ptrdiff_t>(b.device_address - 0x1F000000));
  EXPECT_TRUE(dma.SyncForDevice(a, 0, 1000).ok());
  EXPECT_EQ(dma.SyncForCpu(a, 999, 2).code(), StatusCode::kOutOfRange);
  ASSERT_TRUE(dma.Free(a).ok());
  EXPECT_EQ(dma.SyncForDevice(a, 0, 1).code(), StatusCode::kOutOfRange);
  EXPECT_EQ(dma.Free(a).code(), StatusCode::kInvalidArgument);
}

TEST(StaticDmaMemory, FullRegionIsOutOfRangeNamingItsSize) {
  std::vector<uint8_t> region(8192);
  StaticDmaMemory dma(region.data(), 0x1000, region.size(), Coherence::kUncached);
  DmaBuffer a;
  ASSERT_TRUE(dma.Allocate(8192, 16, &a).ok());
  const Status s = dma.Allocate(1, 16, &a);
  EXPECT_EQ(s.code(), StatusCode::kOutOfRange);
  EXPECT_THAT(s.message(), HasSubstr("DMA region of 8192 bytes"));
}

std::vector<std::pair<const void*, size_t>> g_cleaned, g_invalidated;

TEST(StaticDmaMemory, NonCoherentRegionDoesCacheMaintenanceOnExactlyTheRange) {
  std::vector<uint8_t> region(4096);
  {
    StaticDmaMemory bare(region.data(), 0, region.size(), Coherence::kNonCoherent);
    DmaBuffer a;
    ASSERT_TRUE(bare.Allocate(64, 16, &a).ok());
    EXPECT_EQ(bare.SyncForDevice(a, 0, 64).code(), StatusCode::kFailedPrecondition);
  }
  DmaCacheOps ops;
  ops.clean = [](const void* p, size_t n) { g_cleaned.push_back({p, n}); };
  ops.invalidate = [](void* p, size_t n) { g_invalidated.push_back({p, n}); };
  StaticDmaMemory dma(region.data(), 0, region.size(), Coherence::kNonCoherent, ops);
  DmaBuffer a;
  ASSERT_TRUE(dma.Allocate(256, 16, &a).ok());
  ASSERT_TRUE(dma.SyncForDevice(a, 16, 32).ok());
  ASSERT_TRUE(dma.SyncForCpu(a, 128, 8).ok());
  ASSERT_EQ(g_cleaned.size(), 1u);
  EXPECT_EQ(g_cleaned[0].first, region.data() + 16);
  EXPECT_EQ(g_cleaned[0].second, 32u);
  ASSERT_EQ(g_invalidated.size(), 1u);
  EXPECT_EQ(g_invalidated[0].first, region.data() + 128);
  EXPECT_EQ(g_invalidated[0].second, 8u);
}

// The Driver a bare-metal image uses: copies land at the DMA region's host address for the device
// address the protocol writes, and a run goes through Submit and Wait.
TEST(MmioDriver, CopiesSubmitsAndWaitsOverFixedAddresses) {
  const HwConfig config = TestConfig();
  Window w;
  w.PowerOn(config);
  std::vector<uint8_t> region(64 * 1024);
  MmioDeviceMap map;
  map.register_base = w.base();
  map.dma_host = region.data();
  map.dma_device = 0x1F000000;
  map.dma_bytes = region.size();
  map.clock = w.clock();
  std::unique_ptr<Driver> d = CreateMmioDriver(map);
  EXPECT_STREQ(d->name(), "mmio");
  DriverOptions o;
  o.config = config;
  ASSERT_TRUE(d->Open(o).ok());
  uint64_t addr = 0;
  ASSERT_TRUE(d->Allocate(4096, 4096, &addr).ok());
  EXPECT_EQ(addr, 0x1F000000u);
  const uint8_t bytes[4] = {1, 2, 3, 4};
  ASSERT_TRUE(d->CopyIn(addr + 32, bytes, 4).ok());
  EXPECT_EQ(std::memcmp(region.data() + 32, bytes, 4), 0);
  ASSERT_TRUE(d->Submit(addr, 2).ok());
  EXPECT_EQ(w.at(reg::kInsnAddrLo), 0x1F000000u);
  EXPECT_EQ(w.at(reg::kInsnCount), 2u);
  ASSERT_TRUE(d->Wait(1000).ok());
  DeviceCounters c;
  ASSERT_TRUE(d->ReadCounters(&c).ok());
  EXPECT_EQ(c.insns, 7u);
  d->Close();
}

TEST(MmioDriver, RefusesDeviceArgumentsAndAnEmptyMap) {
  DriverOptions o;
  o.config = TestConfig();
  o.device_args = "x";
  Window w;
  std::vector<uint8_t> region(4096);
  MmioDeviceMap map;
  map.register_base = w.base();
  map.dma_host = region.data();
  map.dma_bytes = region.size();
  EXPECT_EQ(CreateMmioDriver(map)->Open(o).code(), StatusCode::kInvalidArgument);
  o.device_args.clear();
  const Status s = CreateMmioDriver(MmioDeviceMap{})->Open(o);
  EXPECT_EQ(s.code(), StatusCode::kFailedPrecondition);
  EXPECT_THAT(s.message(), HasSubstr("board's memory map"));
}

// The cpu device of a bare-metal image: device memory is the caller's region, not the heap.
TEST(CpuDriverOver, UsesTheCallersMemoryAndRefusesMoreThanItHolds) {
  std::vector<uint8_t> region(8192, 0xAA);
  std::unique_ptr<Driver> d = CreateCpuDriverOver(region.data(), region.size());
  DriverOptions o;
  o.config = TestConfig();
  o.memory_bytes = region.size() + 1;
  const Status s = d->Open(o);
  EXPECT_EQ(s.code(), StatusCode::kOutOfRange);
  EXPECT_THAT(s.message(), HasSubstr("holds 8192"));
  o.memory_bytes = 4096;
  ASSERT_TRUE(d->Open(o).ok());
  EXPECT_EQ(region[0], 0);  // zeroed, like the vector the default cpu device allocates
  EXPECT_EQ(region[4096], 0xAA);
  uint64_t addr = 0;
  ASSERT_TRUE(d->Allocate(100, 64, &addr).ok());
  uint8_t* p = d->HostPointer(addr, 100);
  ASSERT_NE(p, nullptr);
  EXPECT_GE(p, region.data());
  EXPECT_LE(p + 100, region.data() + 4096);
  const uint8_t seven = 7;
  ASSERT_TRUE(d->CopyIn(addr, &seven, 1).ok());
  EXPECT_EQ(*p, 7);
  d->Close();
}

}  // namespace
}  // namespace loom::runtime
