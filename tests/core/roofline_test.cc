// The roofline bound: the DRAM rates (reads with bursts in flight, writes one full burst at a
// time), which side bounds, and the ratio. fsim's timing model is checked against the same rates
// in tests/fsim/fsim_timing_test.cc.
#include "runtime/core/roofline.h"

#include <gtest/gtest.h>

namespace loom {
namespace {

TEST(Roofline, ReadsRunAtTheBusWidthWritesPayTheLatencyPerBurst) {
  HwConfig c;  // 64-bit AXI, 256-beat bursts, 32 cycles latency
  EXPECT_DOUBLE_EQ(DramBytesPerCycle(c), 8.0);
  EXPECT_DOUBLE_EQ(DramWriteBytesPerCycle(c), 2048.0 / 288.0);
  c.dma_burst_latency = 0;
  EXPECT_DOUBLE_EQ(DramWriteBytesPerCycle(c), 8.0);
  c.axi_data_bits = 128;
  EXPECT_DOUBLE_EQ(DramBytesPerCycle(c), 16.0);
  EXPECT_DOUBLE_EQ(DramWriteBytesPerCycle(c), 16.0);
}

TEST(Roofline, ComputeBoundLayer) {
  HwConfig c;  // 1x16x16: 256 MACs per cycle
  const RooflineBound r = Roofline(c, 256 * 1000 + 1, 2048, 100);
  EXPECT_EQ(r.compute_cycles, 1001u);  // rounded up
  EXPECT_EQ(r.dram_cycles, 256u);      // 2048 read bytes at 8 per cycle
  EXPECT_EQ(r.cycles(), 1001u);
  EXPECT_FALSE(r.dram_bound());
  EXPECT_DOUBLE_EQ(r.Ratio(2002), 2.0);
}

TEST(Roofline, DramBoundTakesTheBusierPort) {
  HwConfig c;
  c.dma_burst_latency = 0;  // 8 bytes per cycle both ways
  const RooflineBound reads = Roofline(c, 256, 8000, 80);
  EXPECT_EQ(reads.dram_cycles, 1000u);
  EXPECT_TRUE(reads.dram_bound());
  // Loads and stores have their own ports: the larger direction bounds, not the sum.
  const RooflineBound writes = Roofline(c, 256, 80, 16000);
  EXPECT_EQ(writes.dram_cycles, 2000u);
  EXPECT_EQ(writes.cycles(), 2000u);
}

TEST(Roofline, EmptyWork) {
  HwConfig c;
  const RooflineBound r = Roofline(c, 0, 0, 0);
  EXPECT_EQ(r.cycles(), 0u);
  EXPECT_DOUBLE_EQ(r.Ratio(123), 0.0);
}

}  // namespace
}  // namespace loom
