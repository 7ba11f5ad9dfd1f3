// Reduce*: every op over one axis, a non-adjacent axis set, all axes, integer inputs, the empty
// extent's identities and the shape checks.
#include <gtest/gtest.h>

#include <cmath>

#include "runtime/kernels/kernel_test_util.h"
#include "runtime/kernels/kernels_reduce.h"

namespace loom::kernels {
namespace {

using testing::Buf;

float ReduceOne(ReduceOp op, uint32_t axes, Buf<float>& x, Buf<float>& y) {
  EXPECT_TRUE(Reduce(op, x.view(), axes, y.view()).ok());
  return y.data[0];
}

TEST(Reduce, EveryOpOverOneAxis) {
  Buf<float> x({2, 3}, {1, -2, 3, 4, 5, -6});
  Buf<float> y({1, 3});
  const struct {
    ReduceOp op;
    float first;  // of column 0: {1, 4}
  } cases[] = {{ReduceOp::kSum, 5},
               {ReduceOp::kMean, 2.5f},
               {ReduceOp::kMax, 4},
               {ReduceOp::kMin, 1},
               {ReduceOp::kProd, 4},
               {ReduceOp::kL1, 5},
               {ReduceOp::kL2, std::sqrt(17.0f)},
               {ReduceOp::kLogSum, std::log(5.0f)},
               {ReduceOp::kLogSumExp, std::log(std::exp(1.0f) + std::exp(4.0f))},
               {ReduceOp::kSumSquare, 17}};
  for (const auto& c : cases) {
    EXPECT_NEAR(ReduceOne(c.op, 1u, x, y), c.first, 1e-5f) << static_cast<int>(c.op);
  }
  ASSERT_TRUE(Reduce(ReduceOp::kL1, x.view(), 1u, y.view()).ok());
  EXPECT_EQ(y.data, (std::vector<float>{5, 7, 9}));
}

TEST(Reduce, NonAdjacentAxesKeepOrder) {
  Buf<float> x({2, 3, 2});
  for (size_t i = 0; i < x.data.size(); ++i) x.data[i] = static_cast<float>(i);
  Buf<float> y({3});  // dims 0 and 2 reduced, keepdims off
  ASSERT_TRUE(Reduce(ReduceOp::kSum, x.view(), 0b101u, y.view()).ok());
  // x[a][b][c] = 6a + 2b + c: sum over a, c = 4 * 2b + (0 + 1) * 2 + 6 * 2.
  EXPECT_EQ(y.data, (std::vector<float>{14, 22, 30}));
  Buf<float> all({1, 1, 1});
  ASSERT_TRUE(Reduce(ReduceOp::kMax, x.view(), 0b111u, all.view()).ok());
  EXPECT_EQ(all.data[0], 11);
}

TEST(Reduce, LargeLogSumExpDoesNotOverflow) {
  Buf<float> x({2}, {1000, 1000});
  Buf<float> y({1});
  EXPECT_NEAR(ReduceOne(ReduceOp::kLogSumExp, 1u, x, y), 1000 + std::log(2.0f), 1e-3f);
}

TEST(Reduce, IntegersAndIdentities) {
  Buf<int64_t> x({3}, {5, -7, 2});
  Buf<int64_t> y({1});
  ASSERT_TRUE(Reduce(ReduceOp::kProd, x.view(), 1u, y.view()).ok());
  EXPECT_EQ(y.data[0], -70);
  ASSERT_TRUE(Reduce(ReduceOp::kMin, x.view(), 1u, y.view()).ok());
  EXPECT_EQ(y.data[0], -7);
  EXPECT_FALSE(Reduce(ReduceOp::kLogSum, x.view(), 1u, y.view()).ok());
  Buf<float> empty({2, 0});
  Buf<float> e({2, 1});
  ASSERT_TRUE(Reduce(ReduceOp::kProd, empty.view(), 0b10u, e.view()).ok());
  EXPECT_EQ(e.data, (std::vector<float>{1, 1}));
  ASSERT_TRUE(Reduce(ReduceOp::kMax, empty.view(), 0b10u, e.view()).ok());
  EXPECT_TRUE(std::isinf(e.data[0]) && e.data[0] < 0);
}

TEST(Reduce, RefusesBadShapesAndAxes) {
  Buf<float> x({2, 3});
  Buf<float> y({2});
  EXPECT_FALSE(Reduce(ReduceOp::kSum, x.view(), 1u, y.view()).ok());  // wants 3 cells
  EXPECT_FALSE(Reduce(ReduceOp::kSum, x.view(), 4u, y.view()).ok());  // axis 2 of rank 2
  const int64_t axes[] = {0, 0};
  uint32_t mask = 0;
  EXPECT_FALSE(ReduceAxesMask(axes, 2, 2, &mask).ok());
  EXPECT_TRUE(ReduceAxesMask(axes, 1, 2, &mask).ok());
  EXPECT_EQ(mask, 1u);
  ReduceOp op;
  EXPECT_TRUE(ReduceOpFromName("ReduceLogSumExp", &op));
  EXPECT_EQ(op, ReduceOp::kLogSumExp);
  EXPECT_FALSE(ReduceOpFromName("Reduce", &op));
}

}  // namespace
}  // namespace loom::kernels
