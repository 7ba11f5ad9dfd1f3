// The binary elementwise ops: broadcasting in both directions, integer wrap-around, the cases ONNX
// leaves undefined, mixed-type Pow, comparisons and logic to bool, and shape/dtype checks.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

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

// Types an op has no meaning for are refused by name, not skipped.
TEST(Binary, UnsupportedTypesAreRefused) {
  Buf<double> a({2}, {1, 2});
  Buf<double> y({2});
  const Status s = Binary(BinaryOp::kBitShiftLeft, a.view(), a.view(), y.view());
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(s.message(), "BitShiftLeft: f64 is not supported");
  const Status l = Binary(BinaryOp::kAnd, a.view(), a.view(), y.view());
  EXPECT_EQ(l.message(), "And: f64 is not supported (needs bool)");
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

TEST(Binary, DivModFmodSigns) {
  Buf<int32_t> a({4}, {7, -7, 7, -7});
  Buf<int32_t> b({4}, {3, 3, -3, -3});
  Buf<int32_t> y({4});
  ASSERT_TRUE(Binary(BinaryOp::kDiv, a.view(), b.view(), y.view()).ok());
  EXPECT_EQ(y.data, (std::vector<int32_t>{2, -2, -2, 2}));  // truncating, as C and onnxruntime
  ASSERT_TRUE(Binary(BinaryOp::kMod, a.view(), b.view(), y.view()).ok());
  EXPECT_EQ(y.data, (std::vector<int32_t>{1, 2, -2, -1}));  // sign of the divisor
  ASSERT_TRUE(Binary(BinaryOp::kFmod, a.view(), b.view(), y.view()).ok());
  EXPECT_EQ(y.data, (std::vector<int32_t>{1, -1, 1, -1}));  // sign of the dividend
  Buf<float> fa({2}, {-4.5f, 5.5f});
  Buf<float> fb({2}, {2.0f, -2.0f});
  Buf<float> fy({2});
  ASSERT_TRUE(Binary(BinaryOp::kMod, fa.view(), fb.view(), fy.view()).ok());
  EXPECT_EQ(fy.data, (std::vector<float>{1.5f, -0.5f}));
  ASSERT_TRUE(Binary(BinaryOp::kFmod, fa.view(), fb.view(), fy.view()).ok());
  EXPECT_EQ(fy.data, (std::vector<float>{-0.5f, 1.5f}));
}

// Division by zero and INT_MIN / -1 are undefined in C++; the kernel defines them.
TEST(Binary, IntegerEdgeCasesAreDefined) {
  Buf<int8_t> a({3}, {-128, 5, -128});
  Buf<int8_t> b({3}, {-1, 0, 0});
  Buf<int8_t> y({3});
  ASSERT_TRUE(Binary(BinaryOp::kDiv, a.view(), b.view(), y.view()).ok());
  EXPECT_EQ(y.data, (std::vector<int8_t>{-128, 0, 0}));
  ASSERT_TRUE(Binary(BinaryOp::kMod, a.view(), b.view(), y.view()).ok());
  EXPECT_EQ(y.data, (std::vector<int8_t>{0, 0, 0}));
  Buf<int16_t> big({1}, {-32768});
  Buf<int16_t> y16({1});
  ASSERT_TRUE(Binary(BinaryOp::kMul, big.view(), big.view(), y16.view()).ok());
  EXPECT_EQ(y16.data[0], 0);  // 2^30 wraps to 0 in 16 bits
}

TEST(Binary, MaxMinPropagateNaN) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  Buf<float> a({3}, {1, nan, -2});
  Buf<float> b({}, {0});
  Buf<float> y({3});
  ASSERT_TRUE(Binary(BinaryOp::kMax, a.view(), b.view(), y.view()).ok());
  EXPECT_EQ(y.data[0], 1);
  EXPECT_TRUE(std::isnan(y.data[1]));
  EXPECT_EQ(y.data[2], 0);
  ASSERT_TRUE(Binary(BinaryOp::kMin, a.view(), b.view(), y.view()).ok());
  EXPECT_EQ(y.data[0], 0);
  EXPECT_EQ(y.data[2], -2);
}

TEST(Binary, PowMixedTypes) {
  Buf<int64_t> base({3}, {2, 3, -2});
  Buf<float> fexp({}, {2.5f});
  Buf<int64_t> y({3});
  ASSERT_TRUE(Binary(BinaryOp::kPow, base.view(), fexp.view(), y.view()).ok());
  EXPECT_EQ(y.data, (std::vector<int64_t>{5, 15, 0}));  // truncated; (-2)^2.5 is NaN -> 0
  Buf<int32_t> iexp({3}, {10, 0, 3});
  ASSERT_TRUE(Binary(BinaryOp::kPow, base.view(), iexp.view(), y.view()).ok());
  EXPECT_EQ(y.data, (std::vector<int64_t>{1024, 1, -8}));
  Buf<float> fbase({2}, {4, 9});
  Buf<int64_t> half({2}, {2, -1});
  Buf<float> fy({2});
  ASSERT_TRUE(Binary(BinaryOp::kPow, fbase.view(), half.view(), fy.view()).ok());
  EXPECT_FLOAT_EQ(fy.data[0], 16.0f);
  EXPECT_FLOAT_EQ(fy.data[1], 1.0f / 9.0f);
}

TEST(Binary, ComparisonsAndLogicGiveBool) {
  Buf<int32_t> a({2, 1}, {1, 5});
  Buf<int32_t> b({3}, {0, 1, 7});
  std::vector<uint8_t> out(6);
  TensorView y;
  const int64_t dims[] = {2, 3};
  ASSERT_TRUE(MakeView(DType::kBool, out.data(), dims, 2, &y).ok());
  ASSERT_TRUE(Binary(BinaryOp::kGreaterOrEqual, a.view(), b.view(), y).ok());
  EXPECT_EQ(out, (std::vector<uint8_t>{1, 1, 0, 1, 1, 0}));
  ASSERT_TRUE(Binary(BinaryOp::kEqual, a.view(), b.view(), y).ok());
  EXPECT_EQ(out, (std::vector<uint8_t>{0, 1, 0, 0, 0, 0}));

  std::vector<uint8_t> p = {1, 1, 0, 0}, q = {1, 0, 1, 0}, r(4);
  const int64_t four[] = {4};
  TensorView pv, qv, rv;
  ASSERT_TRUE(MakeView(DType::kBool, p.data(), four, 1, &pv).ok());
  ASSERT_TRUE(MakeView(DType::kBool, q.data(), four, 1, &qv).ok());
  ASSERT_TRUE(MakeView(DType::kBool, r.data(), four, 1, &rv).ok());
  ASSERT_TRUE(Binary(BinaryOp::kXor, pv, qv, rv).ok());
  EXPECT_EQ(r, (std::vector<uint8_t>{0, 1, 1, 0}));
  ASSERT_TRUE(Binary(BinaryOp::kOr, pv, qv, rv).ok());
  EXPECT_EQ(r, (std::vector<uint8_t>{1, 1, 1, 0}));
  // A comparison must write bool.
  Buf<int32_t> not_bool({2, 3});
  EXPECT_EQ(Binary(BinaryOp::kLess, a.view(), b.view(), not_bool.view()).message(),
            "Less: y is i32, must be bool");
}

TEST(Binary, ShiftsAndPRelu) {
  Buf<uint8_t> a({3}, {16, 4, 1});
  Buf<uint8_t> s({3}, {1, 2, 8});
  Buf<uint8_t> y({3});
  ASSERT_TRUE(Binary(BinaryOp::kBitShiftLeft, a.view(), s.view(), y.view()).ok());
  EXPECT_EQ(y.data, (std::vector<uint8_t>{32, 16, 0}));  // a shift by the width gives 0
  ASSERT_TRUE(Binary(BinaryOp::kBitShiftRight, a.view(), s.view(), y.view()).ok());
  EXPECT_EQ(y.data, (std::vector<uint8_t>{8, 1, 0}));
  Buf<float> x({2, 2}, {-1, 2, -3, 4});
  Buf<float> slope({2, 1}, {0.5f, 2});
  Buf<float> py({2, 2});
  ASSERT_TRUE(Binary(BinaryOp::kPRelu, x.view(), slope.view(), py.view()).ok());
  EXPECT_EQ(py.data, (std::vector<float>{-0.5f, 2, -6, 4}));
}

TEST(Binary, UnsignedWideTypes) {
  // uint64 above 2^63 compares and divides as unsigned, not as a negative int64.
  const uint64_t big = (uint64_t{1} << 63) + 5;
  Buf<uint64_t> a({3}, {big, 7, 1});
  Buf<uint64_t> b({3}, {3, big, 63});
  Buf<uint64_t> y({3});
  ASSERT_TRUE(Binary(BinaryOp::kMax, a.view(), b.view(), y.view()).ok());
  EXPECT_EQ(y.data, (std::vector<uint64_t>{big, big, 63}));
  ASSERT_TRUE(Binary(BinaryOp::kMod, a.view(), b.view(), y.view()).ok());
  EXPECT_EQ(y.data, (std::vector<uint64_t>{big % 3, 7, 1}));
  ASSERT_TRUE(Binary(BinaryOp::kBitShiftLeft, a.view(), b.view(), y.view()).ok());
  EXPECT_EQ(y.data, (std::vector<uint64_t>{big << 3, 0, uint64_t{1} << 63}));
  Buf<uint16_t> h({2}, {65535, 3});
  Buf<uint16_t> one({}, {1});
  Buf<uint16_t> hy({2});
  ASSERT_TRUE(Binary(BinaryOp::kAdd, h.view(), one.view(), hy.view()).ok());
  EXPECT_EQ(hy.data, (std::vector<uint16_t>{0, 4}));  // wraps
  ASSERT_TRUE(Binary(BinaryOp::kBitShiftRight, h.view(), one.view(), hy.view()).ok());
  EXPECT_EQ(hy.data, (std::vector<uint16_t>{32767, 1}));
  // A float base with a uint32 exponent (test_pow_types_float32_uint32).
  Buf<float> base({2}, {2, 3});
  Buf<uint32_t> e({2}, {10, 2});
  Buf<float> py({2});
  ASSERT_TRUE(Binary(BinaryOp::kPow, base.view(), e.view(), py.view()).ok());
  EXPECT_EQ(py.data, (std::vector<float>{1024, 9}));
}

TEST(Binary, Float16ComputesInFloat) {
  // 1.5 + 2.25 and 3 / 2, exactly representable in binary16.
  std::vector<uint16_t> a = {0x3E00, 0x4200}, b = {0x4080, 0x4000}, y(2);
  const int64_t two[] = {2};
  TensorView av, bv, yv;
  ASSERT_TRUE(MakeView(DType::kF16, a.data(), two, 1, &av).ok());
  ASSERT_TRUE(MakeView(DType::kF16, b.data(), two, 1, &bv).ok());
  ASSERT_TRUE(MakeView(DType::kF16, y.data(), two, 1, &yv).ok());
  ASSERT_TRUE(Binary(BinaryOp::kAdd, av, bv, yv).ok());
  EXPECT_EQ(F16ToF32(y[0]), 3.75f);
  ASSERT_TRUE(Binary(BinaryOp::kDiv, av, bv, yv).ok());
  EXPECT_EQ(F16ToF32(y[1]), 1.5f);
}

}  // namespace
}  // namespace loom::kernels
