// The integer and bool rows of the float-op table, run as the loader and executor run them: the
// results their kernels give, and each prepare refusing the operand types its kernel would refuse
// at run time (so a package with them fails at load, naming the op).
#include "runtime/kernels/float_ops_typed.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "runtime/kernels/kernel_test_util.h"

namespace loom::kernels {
namespace {

using testing::Buf;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using testing::MapAttrs;

// bool tensors as bytes (std::vector<bool> has no contiguous storage to view).
struct Bools {
  std::vector<int64_t> shape;
  std::vector<uint8_t> data;
  Bools(std::vector<int64_t> s, std::vector<uint8_t> d = {})
      : shape(std::move(s)), data(std::move(d)) {
    int64_t n = 1;
    for (int64_t x : shape) n *= x;
    data.resize(static_cast<size_t>(n));
  }
  TensorView view() {
    TensorView v;
    (void)MakeView(DType::kBool, data.data(), shape.data(), static_cast<int>(shape.size()), &v);
    return v;
  }
};

Status RunRow(const char* op, const AttrReader& attrs, std::vector<const TensorView*> in,
              const TensorView& y) {
  const FloatOpDef* def = FindFloatOp(op);
  if (def == nullptr) return NotFound(op);
  for (const TensorView* t : in) {
    if (t != nullptr && !FloatOpTakes(*def, t->dtype)) return Unimplemented("type not in the row");
  }
  if (!FloatOpTakes(*def, y.dtype)) return Unimplemented("type not in the row");
  FloatOpParams p;
  LOOM_RETURN_IF_ERROR(def->prepare(attrs, in.data(), in.size(), y, &p));
  return def->run(p, in.data(), in.size(), y);
}

TEST(FloatOpsTyped, ArithmeticOnIntegersAndComparisonsToBool) {
  Buf<uint8_t> a({3}, {250, 7, 9}), b({3}, {10, 2, 3});
  Buf<uint8_t> sum({3});
  TensorView av = a.view(), bv = b.view(), sv = sum.view();
  ASSERT_TRUE(RunRow("Add", MapAttrs{}, {&av, &bv}, sv).ok());
  EXPECT_THAT(sum.data, ElementsAre(4, 9, 12));  // wraps, as ONNX backends do
  Bools gt({3});
  TensorView gv = gt.view();
  ASSERT_TRUE(RunRow("Greater", MapAttrs{}, {&av, &bv}, gv).ok());
  EXPECT_THAT(gt.data, ElementsAre(1, 1, 1));
  Buf<int64_t> x({2}, {-7, 7}), m({2}, {3, -3}), r({2});
  TensorView xv = x.view(), mv = m.view(), rv = r.view();
  ASSERT_TRUE(RunRow("Mod", MapAttrs{}, {&xv, &mv}, rv).ok());
  EXPECT_THAT(r.data, ElementsAre(2, -2));  // the divisor's sign
  MapAttrs fmod;
  fmod.ints["fmod"] = {1};
  ASSERT_TRUE(RunRow("Mod", fmod, {&xv, &mv}, rv).ok());
  EXPECT_THAT(r.data, ElementsAre(-1, 1));
  MapAttrs right;
  right.ints["direction"] = {1};
  Buf<uint8_t> s({3}, {1, 1, 2}), shifted({3});
  TensorView shv = s.view(), outv = shifted.view();
  ASSERT_TRUE(RunRow("BitShift", right, {&av, &shv}, outv).ok());
  EXPECT_THAT(shifted.data, ElementsAre(125, 3, 2));
}

TEST(FloatOpsTyped, TypesAreCheckedAtPrepare) {
  Buf<float> f({2}, {1, 2});
  Buf<int32_t> i({2}, {1, 2});
  Buf<float> y({2});
  TensorView fv = f.view(), iv = i.view(), yv = y.view();
  Status s = RunRow("Add", MapAttrs{}, {&fv, &iv}, yv);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("both must have the same type"));
  Bools b({2});
  TensorView bv = b.view();
  s = RunRow("And", MapAttrs{}, {&bv, &bv}, yv);  // y must be bool: not in the row
  EXPECT_EQ(s.code(), StatusCode::kUnimplemented);
  s = RunRow("Not", MapAttrs{}, {&bv}, iv);
  EXPECT_FALSE(s.ok());
  s = RunRow("IsNaN", MapAttrs{}, {&iv}, bv);
  EXPECT_THAT(s.message(), HasSubstr("IsNaN: x is i32, must be a float type"));
  s = RunRow("Where", MapAttrs{}, {&fv, &fv, &fv}, yv);
  EXPECT_THAT(s.message(), HasSubstr("Where: cond is f32, must be bool"));
  Buf<int32_t> idx(std::vector<int64_t>{});
  TensorView idxv = idx.view();
  MapAttrs axis;
  axis.ints["axis"] = {0};
  s = RunRow("ArgMax", axis, {&fv}, idxv);
  EXPECT_THAT(s.message(), HasSubstr("ArgMax: y is i32, must be i64"));
}

TEST(FloatOpsTyped, LogicWhereCastAndArgReduce) {
  Bools a({4}, {1, 1, 0, 0}), b({4}, {1, 0, 1, 0});
  Bools x({4}), n({4});
  TensorView av = a.view(), bv = b.view(), xv = x.view(), nv = n.view();
  ASSERT_TRUE(RunRow("Xor", MapAttrs{}, {&av, &bv}, xv).ok());
  EXPECT_THAT(x.data, ElementsAre(0, 1, 1, 0));
  ASSERT_TRUE(RunRow("Not", MapAttrs{}, {&av}, nv).ok());
  EXPECT_THAT(n.data, ElementsAre(0, 0, 1, 1));

  Buf<int64_t> p({4}, {1, 2, 3, 4}), q({4}, {-1, -2, -3, -4}), w({4});
  TensorView pv = p.view(), qv = q.view(), wv = w.view();
  ASSERT_TRUE(RunRow("Where", MapAttrs{}, {&bv, &pv, &qv}, wv).ok());
  EXPECT_THAT(w.data, ElementsAre(1, -2, 3, -4));

  Buf<float> f({3}, {-1.7f, 300.0f, std::numeric_limits<float>::quiet_NaN()});
  Buf<uint8_t> c({3});
  Bools nan({3});
  TensorView fv = f.view(), cv = c.view(), nanv = nan.view();
  ASSERT_TRUE(RunRow("Cast", MapAttrs{}, {&fv}, cv).ok());
  Buf<uint8_t> direct({3});
  TensorView dv = direct.view();
  ASSERT_TRUE(Cast(fv, dv).ok());
  EXPECT_EQ(c.data, direct.data);
  ASSERT_TRUE(RunRow("IsNaN", MapAttrs{}, {&fv}, nanv).ok());
  EXPECT_THAT(nan.data, ElementsAre(0, 0, 1));

  Buf<float> m({2, 3}, {1, 5, 5, 7, 0, 7});
  Buf<int64_t> first({2, 1}), last({2});
  TensorView mv = m.view(), firstv = first.view(), lastv = last.view();
  MapAttrs keep;
  keep.ints["axis"] = {-1};
  keep.ints["keepdims"] = {1};
  ASSERT_TRUE(RunRow("ArgMax", keep, {&mv}, firstv).ok());
  EXPECT_THAT(first.data, ElementsAre(1, 0));
  MapAttrs lastmax;
  lastmax.ints["axis"] = {1};
  lastmax.ints["select_last_index"] = {1};
  ASSERT_TRUE(RunRow("ArgMax", lastmax, {&mv}, lastv).ok());
  EXPECT_THAT(last.data, ElementsAre(2, 2));
  ASSERT_TRUE(RunRow("ArgMin", lastmax, {&mv}, lastv).ok());
  EXPECT_THAT(last.data, ElementsAre(0, 1));
}

// Clip on int8 reads its bounds as int8; a bound of another type than x is refused at prepare.
TEST(FloatOpsTyped, ClipOnIntegersReadsBoundsOfTheirType) {
  Buf<int8_t> x({5}, {-128, -3, 0, 4, 127}), lo({}, {-2}), hi({}, {3}), y({5});
  TensorView xv = x.view(), lov = lo.view(), hiv = hi.view(), yv = y.view();
  ASSERT_TRUE(RunRow("Clip", MapAttrs{}, {&xv, &lov, &hiv}, yv).ok());
  EXPECT_THAT(y.data, ElementsAre(-2, -2, 0, 3, 3));
  ASSERT_TRUE(RunRow("Clip", MapAttrs{}, {&xv, nullptr, &hiv}, yv).ok());
  EXPECT_THAT(y.data, ElementsAre(-128, -3, 0, 3, 3));
  Buf<float> flo({}, {-2.0f});
  TensorView flov = flo.view();
  const Status s = RunRow("Clip", MapAttrs{}, {&xv, &flov}, yv);
  EXPECT_THAT(s.message(), HasSubstr("Clip: min is f32, must be x's type"));
}

}  // namespace
}  // namespace loom::kernels
