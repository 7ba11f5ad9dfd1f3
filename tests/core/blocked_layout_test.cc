#include "runtime/core/blocked_layout.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>

namespace loom {
namespace {

constexpr uint64_t kMax = std::numeric_limits<uint64_t>::max();

TEST(BlockedLayoutTest, CeilDivDoesNotOverflowNearTheTop) {
  EXPECT_EQ(CeilDiv(0u, 16u), 0u);
  EXPECT_EQ(CeilDiv(1u, 16u), 1u);
  EXPECT_EQ(CeilDiv(16u, 16u), 1u);
  EXPECT_EQ(CeilDiv(17u, 16u), 2u);
  // (a + b - 1) / b wraps here and gives 0.
  EXPECT_EQ(CeilDiv(uint32_t{0xffffffffu}, uint32_t{16}), uint32_t{0x10000000u});
  EXPECT_EQ(CeilDiv(kMax, uint64_t{2}), uint64_t{1} << 63);
}

TEST(BlockedLayoutTest, SizesPadToWholeBlocks) {
  uint64_t v = 0;
  // [N=3, C=5, H=2, W=7], B=2, c=4: ceil(3/2)=2 batch blocks, ceil(5/4)=2 channel blocks.
  ASSERT_TRUE(BlockedActivationVectors(3, 5, 2, 7, 2, 4, &v));
  EXPECT_EQ(v, 2u * 2 * 2 * 7);
  ASSERT_TRUE(BlockedActivationElems(3, 5, 2, 7, 2, 4, &v));
  EXPECT_EQ(v, 2u * 2 * 2 * 7 * 2 * 4);
  // Exact multiples need no padding.
  ASSERT_TRUE(BlockedActivationElems(2, 8, 3, 3, 2, 4, &v));
  EXPECT_EQ(v, 2u * 8 * 3 * 3);
  // Weights [O=5, I=3, 3, 3], c=4: [2][1][3][3][4][4].
  ASSERT_TRUE(BlockedWeightElems(5, 3, 3, 3, 4, &v));
  EXPECT_EQ(v, 2u * 1 * 3 * 3 * 4 * 4);
  // Depthwise [C=9, 1, 3, 3], c=4: [3][3][3][4].
  ASSERT_TRUE(BlockedDepthwiseElems(9, 3, 3, 4, &v));
  EXPECT_EQ(v, 3u * 3 * 3 * 4);
  // Vector [C=6], B=2, c=4: [2][2][4].
  ASSERT_TRUE(BlockedVectorElems(6, 2, 4, &v));
  EXPECT_EQ(v, 2u * 2 * 4);
  // Zero-sized dims give empty tensors, not errors.
  ASSERT_TRUE(BlockedActivationElems(1, 0, 4, 4, 1, 16, &v));
  EXPECT_EQ(v, 0u);
}

TEST(BlockedLayoutTest, OverflowAndZeroBlocksAreRefused) {
  const uint64_t big = uint64_t{1} << 32, untouched = 12345;
  uint64_t v = untouched;
  // 2^32 * 2^32 * ... does not fit 64 bits.
  EXPECT_FALSE(BlockedActivationElems(1, 16, big, big, 1, 16, &v));
  EXPECT_FALSE(BlockedActivationVectors(1, 16, big, big, 1, 16, &v));
  // The vectors fit but times B * c they do not.
  EXPECT_FALSE(BlockedActivationElems(1, 16, big, uint64_t{1} << 31, 1, 16, &v));
  EXPECT_FALSE(BlockedWeightElems(kMax, kMax, 1, 1, 16, &v));
  EXPECT_FALSE(BlockedDepthwiseElems(16, big, big, 16, &v));
  EXPECT_FALSE(BlockedVectorElems(kMax, 16, 16, &v));
  EXPECT_EQ(v, untouched);
  // Largest 32-bit dims still fit where the product does: the package loader relies on this.
  ASSERT_TRUE(BlockedVectorElems(0xffffffffu, 1, 16, &v));
  EXPECT_EQ(v, uint64_t{0x10000000u} * 16);
  v = untouched;
  EXPECT_FALSE(BlockedActivationElems(1, 1, 1, 1, 0, 16, &v));
  EXPECT_FALSE(BlockedActivationElems(1, 1, 1, 1, 1, 0, &v));
  EXPECT_FALSE(BlockedWeightElems(1, 1, 1, 1, 0, &v));
  EXPECT_FALSE(BlockedDepthwiseElems(1, 1, 1, 0, &v));
  EXPECT_FALSE(BlockedVectorElems(1, 0, 16, &v));
  EXPECT_EQ(v, untouched);
}

}  // namespace
}  // namespace loom
