// Add/Sub/Mul: broadcasting in both directions, uint8 wrap-around, and shape/dtype checks.
#include <gtest/gtest.h>

#include "runtime/kernels/kernel_test_util.h"
#include "runtime/kernels/kernels.h"

namespace loom::kernels {
namespace {

using testing::Buf;

TEST(Binary, BroadcastBothWays) {
  Buf<float> a({2, 1}, {1, 2});
  Buf<float> b({3}, {10, 20, 30});
  Buf<float> y({2, 3});
  ASSERT_TRUE(Binary(BinaryOp::kSub, a.view(), b.view(), y.view()).ok());
  EXPECT_EQ(y.data, (std::vector<float>{-9, -19, -29, -8, -18, -28}));
  ASSERT_TRUE(Binary(BinaryOp::kMul, b.view(), a.view(), y.view()).ok());
  EXPECT_EQ(y.data, (std::vector<float>{10, 20, 30, 20, 40, 60}));
}

TEST(Binary, Uint8Wraps) {
  Buf<uint8_t> a({3}, {250, 3, 16});
  Buf<uint8_t> b({3}, {10, 5, 16});
  Buf<uint8_t> y({3});
  ASSERT_TRUE(Binary(BinaryOp::kAdd, a.view(), b.view(), y.view()).ok());
  EXPECT_EQ(y.data, (std::vector<uint8_t>{4, 8, 32}));
  ASSERT_TRUE(Binary(BinaryOp::kSub, a.view(), b.view(), y.view()).ok());
  EXPECT_EQ(y.data, (std::vector<uint8_t>{240, 254, 0}));
  ASSERT_TRUE(Binary(BinaryOp::kMul, a.view(), b.view(), y.view()).ok());
  EXPECT_EQ(y.data, (std::vector<uint8_t>{196, 15, 0}));
}

// Types of loom::DType the kernel has no arithmetic for are refused by name, not skipped.
TEST(Binary, UnsupportedTypesAreRefused) {
  Buf<double> a({2}, {1, 2});
  Buf<double> y({2});
  const Status s = Binary(BinaryOp::kAdd, a.view(), a.view(), y.view());
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(s.message(), "binary: f64 is not supported");
  ActivationParams relu;
  relu.kind = ActivationKind::kRelu;
  const Status r = Activation(relu, a.view(), y.view());
  EXPECT_EQ(r.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(r.message(), "activation: f64 is not supported");
}

TEST(Binary, Int64AndErrors) {
  Buf<int64_t> a({2}, {INT64_C(1) << 40, -5});
  Buf<int64_t> b({}, {3});
  Buf<int64_t> y({2});
  ASSERT_TRUE(Binary(BinaryOp::kMul, a.view(), b.view(), y.view()).ok());
  EXPECT_EQ(y.data, (std::vector<int64_t>{INT64_C(3) << 40, -15}));
  Buf<int64_t> wrong({3});
  EXPECT_FALSE(Binary(BinaryOp::kAdd, a.view(), b.view(), wrong.view()).ok());
  Buf<int32_t> other({2});
  EXPECT_FALSE(Binary(BinaryOp::kAdd, a.view(), other.view(), y.view()).ok());
}

}  // namespace
}  // namespace loom::kernels
