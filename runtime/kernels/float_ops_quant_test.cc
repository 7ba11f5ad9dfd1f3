// The quantized-operator rows of the float-op table, run as the loader and executor run them:
// each gives the bytes its kernel gives when called directly (the interpreter's bits), and a
// per-axis scale that does not fit its input is refused at prepare, before any run.
#include "runtime/kernels/float_ops_quant.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <vector>

#include "runtime/kernels/kernel_test_util.h"

namespace loom::kernels {
namespace {

using testing::Buf;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using testing::MapAttrs;

Status RunRow(const char* op, const AttrReader& attrs, std::vector<const TensorView*> in,
              const TensorView& y) {
  const FloatOpDef* def = FindFloatOp(op);
  if (def == nullptr) return NotFound(op);
  for (const TensorView* t : in) {
    if (t != nullptr && !FloatOpTakes(*def, t->dtype)) return InvalidArgument("type not listed");
  }
  FloatOpParams params;
  LOOM_RETURN_IF_ERROR(def->prepare(attrs, in.data(), in.size(), y, &params));
  return def->run(params, in.data(), in.size(), y);
}

TEST(FloatOpsQuant, QuantizeAndDequantizePerTensorAndPerAxis) {
  Buf<float> x({2, 2}, {-1.0f, 0.26f, 2.5f, 100.0f});
  Buf<float> s({}, {0.5f});
  Buf<uint8_t> z({}, {10});
  Buf<uint8_t> q({2, 2});
  TensorView xv = x.view(), sv = s.view(), zv = z.view(), qv = q.view();
  ASSERT_TRUE(RunRow("QuantizeLinear", MapAttrs{}, {&xv, &sv, &zv}, qv).ok());
  EXPECT_THAT(q.data, ElementsAre(8, 11, 15, 210));  // round half to even, + zero point
  Buf<float> back({2, 2});
  TensorView bv = back.view();
  ASSERT_TRUE(RunRow("DequantizeLinear", MapAttrs{}, {&qv, &sv, &zv}, bv).ok());
  EXPECT_THAT(back.data, ElementsAre(-1.0f, 0.5f, 2.5f, 100.0f));

  // Per axis 1 (given as -1): one scale and zero point per column.
  Buf<float> s2({2}, {1.0f, 0.5f});
  Buf<int8_t> z2({2}, {0, -1}), q2({2, 2});
  TensorView s2v = s2.view(), z2v = z2.view(), q2v = q2.view();
  MapAttrs last;
  last.ints["axis"] = {-1};
  ASSERT_TRUE(RunRow("QuantizeLinear", last, {&xv, &s2v, &z2v}, q2v).ok());
  EXPECT_THAT(q2.data, ElementsAre(-1, 0, 2, 127));
  // A scale of x.shape[0] entries along axis 1 of a [2, 3] input does not fit: refused.
  Buf<float> wide({2, 3});
  Buf<int8_t> qw({2, 3});
  TensorView wv = wide.view(), qwv = qw.view();
  const Status st = RunRow("QuantizeLinear", MapAttrs{}, {&wv, &s2v, &z2v}, qwv);
  EXPECT_EQ(st.code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(st.message(), HasSubstr("per-axis scale of 2 values"));
}

TEST(FloatOpsQuant, IntegerProductsMatchTheirKernels) {
  Buf<uint8_t> a({2, 3}, {1, 2, 3, 4, 5, 6});
  Buf<int8_t> b({3, 2}, {1, -1, 2, -2, 3, -3});
  Buf<uint8_t> az({}, {1});
  Buf<int32_t> y({2, 2}), want({2, 2});
  TensorView av = a.view(), bv = b.view(), azv = az.view(), yv = y.view(), wv = want.view();
  ASSERT_TRUE(MatMulInteger(av, bv, &azv, nullptr, wv).ok());
  ASSERT_TRUE(RunRow("MatMulInteger", MapAttrs{}, {&av, &bv, &azv}, yv).ok());
  EXPECT_EQ(y.data, want.data);
  EXPECT_THAT(y.data, ElementsAre(8, -8, 26, -26));  // (a - 1) @ b

  // ConvInteger over a 1x1x3x3 input and a 2x2 kernel, stride 1, no padding.
  Buf<uint8_t> x({1, 1, 3, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9});
  Buf<uint8_t> w({1, 1, 2, 2}, {1, 1, 1, 1});
  Buf<int32_t> cy({1, 1, 2, 2});
  TensorView xv = x.view(), wv2 = w.view(), cyv = cy.view();
  ASSERT_TRUE(RunRow("ConvInteger", MapAttrs{}, {&xv, &wv2}, cyv).ok());
  EXPECT_THAT(cy.data, ElementsAre(12, 16, 24, 28));
}

TEST(FloatOpsQuant, QLinearOpsRequantizeLikeTheirKernels) {
  Buf<uint8_t> a({2, 2}, {10, 20, 30, 40}), b({2, 2}, {1, 2, 3, 4});
  Buf<float> as({}, {0.1f}), bs({}, {0.2f}), ys({}, {0.05f});
  Buf<uint8_t> az({}, {5}), bz({}, {1}), yz({}, {3});
  Buf<uint8_t> y({2, 2}), want({2, 2});
  TensorView av = a.view(), bv = b.view(), asv = as.view(), bsv = bs.view(), ysv = ys.view();
  TensorView azv = az.view(), bzv = bz.view(), yzv = yz.view(), yv = y.view(), wv = want.view();
  ASSERT_TRUE(QLinearMatMul(av, {&asv, &azv}, bv, {&bsv, &bzv}, {&ysv, &yzv}, wv).ok());
  ASSERT_TRUE(
      RunRow("QLinearMatMul", MapAttrs{}, {&av, &asv, &azv, &bv, &bsv, &bzv, &ysv, &yzv}, yv).ok());
  EXPECT_EQ(y.data, want.data);

  Buf<uint8_t> x({1, 1, 2, 2}, {10, 20, 30, 40}), w({1, 1, 1, 1}, {3});
  Buf<int32_t> bias({1}, {7});
  Buf<uint8_t> cy({1, 1, 2, 2}), cwant({1, 1, 2, 2});
  TensorView xv = x.view(), w1 = w.view(), biasv = bias.view(), cyv = cy.view(), cwv = cwant.view();
  ConvParams cp;
  ASSERT_TRUE(QLinearConv(cp, xv, {&asv, &azv}, w1, {&bsv, &bzv}, {&ysv, &yzv}, &biasv, cwv).ok());
  ASSERT_TRUE(
      RunRow("QLinearConv", MapAttrs{}, {&xv, &asv, &azv, &w1, &bsv, &bzv, &ysv, &yzv, &biasv}, cyv)
          .ok());
  EXPECT_EQ(cy.data, cwant.data);
}

}  // namespace
}  // namespace loom::kernels
