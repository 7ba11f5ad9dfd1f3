// Unary math and activations: values against closed forms, integer wrap-around, the bool-valued
// ops, float16 through double, and the refusals of types an op has no meaning for.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "runtime/kernels/kernel_test_util.h"
#include "runtime/kernels/kernels_math.h"

namespace loom::kernels {
namespace {

using testing::Buf;

std::vector<float> RunF(UnaryParams p, std::vector<float> x) {
  Buf<float> in({static_cast<int64_t>(x.size())}, x);
  Buf<float> out({static_cast<int64_t>(x.size())});
  const Status s = Unary(p, in.view(), out.view());
  EXPECT_TRUE(s.ok()) << s.ToString();
  return out.data;
}

UnaryParams Op(UnaryOp op, float alpha = 0, float beta = 0, float gamma = 0) {
  UnaryParams p;
  p.op = op;
  p.alpha = alpha;
  p.beta = beta;
  p.gamma = gamma;
  return p;
}

TEST(Unary, MathFunctions) {
  EXPECT_EQ(RunF(Op(UnaryOp::kRound), {0.5f, 1.5f, 2.5f, -0.5f, -1.5f, 2.4f}),
            (std::vector<float>{0, 2, 2, -0.0f, -2, 2}));  // half to even
  EXPECT_EQ(RunF(Op(UnaryOp::kCeil), {-1.5f, 1.2f}), (std::vector<float>{-1, 2}));
  EXPECT_EQ(RunF(Op(UnaryOp::kFloor), {-1.5f, 1.2f}), (std::vector<float>{-2, 1}));
  EXPECT_EQ(RunF(Op(UnaryOp::kSign), {-3, 0, 2}), (std::vector<float>{-1, 0, 1}));
  EXPECT_EQ(RunF(Op(UnaryOp::kReciprocal), {4, -0.5f}), (std::vector<float>{0.25f, -2}));
  const std::vector<float> x = {-0.9f, -0.1f, 0.3f, 0.7f};
  struct Ref {
    UnaryOp op;
    double (*f)(double);
  };
  const Ref refs[] = {
      {UnaryOp::kExp, std::exp},   {UnaryOp::kTanh, std::tanh},   {UnaryOp::kSin, std::sin},
      {UnaryOp::kCos, std::cos},   {UnaryOp::kTan, std::tan},     {UnaryOp::kAsin, std::asin},
      {UnaryOp::kAcos, std::acos}, {UnaryOp::kAtan, std::atan},   {UnaryOp::kSinh, std::sinh},
      {UnaryOp::kCosh, std::cosh}, {UnaryOp::kAsinh, std::asinh}, {UnaryOp::kAtanh, std::atanh},
      {UnaryOp::kErf, std::erf}};
  for (const Ref& r : refs) {
    const std::vector<float> y = RunF(Op(r.op), x);
    for (size_t i = 0; i < x.size(); ++i) {
      EXPECT_FLOAT_EQ(y[i], static_cast<float>(r.f(x[i]))) << UnaryOpName(r.op) << " at " << i;
    }
  }
  const std::vector<float> l = RunF(Op(UnaryOp::kLog), {1, std::exp(2.0f)});
  EXPECT_FLOAT_EQ(l[0], 0.0f);
  EXPECT_FLOAT_EQ(l[1], 2.0f);
  EXPECT_FLOAT_EQ(RunF(Op(UnaryOp::kAcosh), {2})[0], static_cast<float>(std::acosh(2.0)));
  EXPECT_FLOAT_EQ(RunF(Op(UnaryOp::kSqrt), {9})[0], 3.0f);
}

TEST(Unary, Activations) {
  EXPECT_EQ(RunF(Op(UnaryOp::kHardSigmoid, 0.5f, 0.5f), {-2, 0, 0.5f, 3}),
            (std::vector<float>{0, 0.5f, 0.75f, 1}));
  EXPECT_EQ(RunF(Op(UnaryOp::kHardSwish), {-4, 0, 3, 6}), (std::vector<float>{0, 0, 3, 6}));
  EXPECT_EQ(RunF(Op(UnaryOp::kThresholdedRelu, 1.0f), {0.5f, 1, 2}), (std::vector<float>{0, 0, 2}));
  EXPECT_EQ(RunF(Op(UnaryOp::kShrink, 1.5f, 0.5f), {-2, -1, 1, 2}),
            (std::vector<float>{-1.5f, 0, 0, 1.5f}));
  EXPECT_EQ(RunF(Op(UnaryOp::kSoftsign), {-3, 1}), (std::vector<float>{-0.75f, 0.5f}));
  // Softplus must not overflow for large inputs.
  const std::vector<float> sp = RunF(Op(UnaryOp::kSoftplus), {0, 100, -100});
  EXPECT_FLOAT_EQ(sp[0], std::log(2.0f));
  EXPECT_FLOAT_EQ(sp[1], 100.0f);
  EXPECT_GE(sp[2], 0.0f);
  const std::vector<float> elu = RunF(Op(UnaryOp::kElu, 2.0f), {-1, 3});
  EXPECT_FLOAT_EQ(elu[0], static_cast<float>(2.0 * (std::exp(-1.0) - 1)));
  EXPECT_EQ(elu[1], 3.0f);
  const std::vector<float> selu = RunF(Op(UnaryOp::kSelu, 2.0f, 0, 3.0f), {-1, 3});
  EXPECT_FLOAT_EQ(selu[0], static_cast<float>(3.0 * 2.0 * (std::exp(-1.0) - 1)));
  EXPECT_EQ(selu[1], 9.0f);
  const std::vector<float> celu = RunF(Op(UnaryOp::kCelu, 2.0f), {-1, 3});
  EXPECT_FLOAT_EQ(celu[0], static_cast<float>(2.0 * (std::exp(-0.5) - 1)));
  EXPECT_EQ(celu[1], 3.0f);
}

TEST(Unary, IntegersWrap) {
  Buf<int8_t> x({4}, {-128, -3, 0, 7});
  Buf<int8_t> y({4});
  ASSERT_TRUE(Unary(Op(UnaryOp::kAbs), x.view(), y.view()).ok());
  EXPECT_EQ(y.data, (std::vector<int8_t>{-128, 3, 0, 7}));  // as NumPy
  ASSERT_TRUE(Unary(Op(UnaryOp::kNeg), x.view(), y.view()).ok());
  EXPECT_EQ(y.data, (std::vector<int8_t>{-128, 3, 0, -7}));
  ASSERT_TRUE(Unary(Op(UnaryOp::kSign), x.view(), y.view()).ok());
  EXPECT_EQ(y.data, (std::vector<int8_t>{-1, -1, 0, 1}));
  ASSERT_TRUE(Unary(Op(UnaryOp::kBitwiseNot), x.view(), y.view()).ok());
  EXPECT_EQ(y.data, (std::vector<int8_t>{127, 2, -1, -8}));
  // In place is allowed.
  ASSERT_TRUE(Unary(Op(UnaryOp::kNeg), y.view(), y.view()).ok());
  EXPECT_EQ(y.data, (std::vector<int8_t>{-127, -2, 1, 8}));
}

TEST(Unary, BoolValuedOps) {
  const float inf = std::numeric_limits<float>::infinity();
  Buf<float> x({4}, {inf, -inf, std::nanf(""), 1});
  std::vector<uint8_t> out(4);
  TensorView y;
  const int64_t four[] = {4};
  ASSERT_TRUE(MakeView(DType::kBool, out.data(), four, 1, &y).ok());
  ASSERT_TRUE(Unary(Op(UnaryOp::kIsNaN), x.view(), y).ok());
  EXPECT_EQ(out, (std::vector<uint8_t>{0, 0, 1, 0}));
  UnaryParams neg_only = Op(UnaryOp::kIsInf);
  neg_only.detect_positive = false;
  ASSERT_TRUE(Unary(neg_only, x.view(), y).ok());
  EXPECT_EQ(out, (std::vector<uint8_t>{0, 1, 0, 0}));
  ASSERT_TRUE(Unary(Op(UnaryOp::kIsInf), x.view(), y).ok());
  EXPECT_EQ(out, (std::vector<uint8_t>{1, 1, 0, 0}));
  std::vector<uint8_t> b = {1, 0, 0, 1};
  TensorView bv;
  ASSERT_TRUE(MakeView(DType::kBool, b.data(), four, 1, &bv).ok());
  ASSERT_TRUE(Unary(Op(UnaryOp::kNot), bv, y).ok());
  EXPECT_EQ(out, (std::vector<uint8_t>{0, 1, 1, 0}));
}

TEST(Unary, Float64AndFloat16) {
  Buf<double> x({2}, {0.25, 4});
  Buf<double> y({2});
  ASSERT_TRUE(Unary(Op(UnaryOp::kSqrt), x.view(), y.view()).ok());
  EXPECT_EQ(y.data, (std::vector<double>{0.5, 2}));
  std::vector<uint16_t> h = {0x4400}, hy(1);  // 4.0
  const int64_t one[] = {1};
  TensorView hv, hyv;
  ASSERT_TRUE(MakeView(DType::kF16, h.data(), one, 1, &hv).ok());
  ASSERT_TRUE(MakeView(DType::kF16, hy.data(), one, 1, &hyv).ok());
  ASSERT_TRUE(Unary(Op(UnaryOp::kReciprocal), hv, hyv).ok());
  EXPECT_EQ(F16ToF32(hy[0]), 0.25f);
}

TEST(Unary, RefusesWhatTheOpCannotTake) {
  Buf<int32_t> i({2}, {1, 2});
  Buf<int32_t> iy({2});
  EXPECT_EQ(Unary(Op(UnaryOp::kExp), i.view(), iy.view()).message(),
            "Exp: input type i32 is not supported (needs a float type (f32, f64, f16))");
  EXPECT_EQ(Unary(Op(UnaryOp::kNot), i.view(), iy.view()).message(),
            "Not: input type i32 is not supported (needs bool)");
  Buf<float> f({2}, {1, 2});
  Buf<float> wrong({3});
  EXPECT_FALSE(Unary(Op(UnaryOp::kExp), f.view(), wrong.view()).ok());
  Buf<float> not_bool({2});
  EXPECT_FALSE(Unary(Op(UnaryOp::kIsNaN), f.view(), not_bool.view()).ok());
}

}  // namespace
}  // namespace loom::kernels
