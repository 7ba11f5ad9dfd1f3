// The string-attribute rows of the float-op table, run as the loader and executor run them: the
// string becomes the kernel's parameter (each value gives the bytes the kernel gives when called
// with it directly), and a value the kernels do not know is refused at prepare, naming it.
#include "runtime/kernels/float_ops_strings.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <vector>

#include "runtime/kernels/kernel_test_util.h"

namespace loom::kernels {
namespace {

using testing::Buf;
using ::testing::HasSubstr;
using testing::MapAttrs;
using testing::RandomFloats;

// Prepares `op` and runs it through run or run_multi, as the executor does.
Status RunRow(const char* op, const AttrReader& attrs, std::vector<const TensorView*> in,
              std::vector<const TensorView*> out) {
  const FloatOpDef* def = FindFloatOp(op);
  if (def == nullptr) return NotFound(op);
  FloatOpParams p;
  LOOM_RETURN_IF_ERROR(def->prepare(attrs, in.data(), in.size(), *out[0], &p));
  if (def->run_multi == nullptr) return def->run(p, in.data(), in.size(), *out[0]);
  const size_t bytes =
      def->scratch_bytes ? def->scratch_bytes(p, in.data(), in.size(), *out[0]) : 0;
  std::vector<double> scratch((bytes + 7) / 8);
  return def->run_multi(p, in.data(), in.size(), out.data(), out.size(), scratch.data());
}

TEST(FloatOpsStrings, LossReductionsReadTheirString) {
  Buf<float> x({2, 3}, RandomFloats(6, 3));
  Buf<int64_t> target({2}, {2, 0});
  TensorView xv = x.view(), tv = target.view();
  const struct {
    const char* name;
    LossReduction reduction;
    std::vector<int64_t> shape;
  } cases[] = {{"none", LossReduction::kNone, {2}},
               {"sum", LossReduction::kSum, {}},
               {"mean", LossReduction::kMean, {}}};
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    Buf<float> y(c.shape), want(c.shape), lp({2, 3}), want_lp({2, 3});
    TensorView yv = y.view(), wv = want.view(), lpv = lp.view(), wlpv = want_lp.view();
    MapAttrs a;
    a.strings["reduction"] = c.name;
    LossParams p;
    p.reduction = c.reduction;
    ASSERT_TRUE(NllLoss(p, xv, tv, nullptr, wv).ok());
    ASSERT_TRUE(RunRow("NegativeLogLikelihoodLoss", a, {&xv, &tv}, {&yv}).ok());
    EXPECT_EQ(y.data, want.data);
    ASSERT_TRUE(SoftmaxCrossEntropy(p, xv, tv, nullptr, wv, &wlpv).ok());
    ASSERT_TRUE(RunRow("SoftmaxCrossEntropyLoss", a, {&xv, &tv}, {&yv, &lpv}).ok());
    EXPECT_EQ(y.data, want.data);
    EXPECT_EQ(lp.data, want_lp.data);
  }
}

TEST(FloatOpsStrings, LossIgnoreIndexAndDefaultReduction) {
  Buf<float> x({3, 2}, RandomFloats(6, 4)), y({}), want({});
  Buf<int32_t> target({3}, {1, -1, 0});
  TensorView xv = x.view(), tv = target.view(), yv = y.view(), wv = want.view();
  LossParams p;  // mean, ONNX's default
  p.has_ignore_index = true;
  p.ignore_index = -1;
  ASSERT_TRUE(NllLoss(p, xv, tv, nullptr, wv).ok());
  MapAttrs a;
  a.ints["ignore_index"] = {-1};
  ASSERT_TRUE(RunRow("NegativeLogLikelihoodLoss", a, {&xv, &tv}, {&yv}).ok());
  EXPECT_EQ(y.data, want.data);
  // Without ignore_index, -1 is a target outside the classes.
  EXPECT_FALSE(RunRow("NegativeLogLikelihoodLoss", MapAttrs(), {&xv, &tv}, {&yv}).ok());
}

TEST(FloatOpsStrings, LossRefusesUnknownReductionAndShapes) {
  Buf<float> x({2, 3}), y({});
  Buf<int64_t> target({2});
  TensorView xv = x.view(), tv = target.view(), yv = y.view();
  MapAttrs a;
  a.strings["reduction"] = "average";
  Status s = RunRow("NegativeLogLikelihoodLoss", a, {&xv, &tv}, {&yv});
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("reduction 'average' is not one of none, sum, mean"));
  a.strings["reduction"] = "none";  // the loss must then have the target's shape
  s = RunRow("SoftmaxCrossEntropyLoss", a, {&xv, &tv}, {&yv});
  EXPECT_THAT(s.message(), HasSubstr("the loss must have the target's shape"));
}

TEST(FloatOpsStrings, PadModesMatchTheKernel) {
  Buf<float> x({2, 3}, RandomFloats(6, 5));
  TensorView xv = x.view();
  const int64_t pads[4] = {1, 2, 1, 0};
  const std::pair<const char*, PadMode> modes[] = {
      {"constant", PadMode::kConstant}, {"reflect", PadMode::kReflect}, {"edge", PadMode::kEdge}};
  for (const auto& [name, mode] : modes) {
    SCOPED_TRACE(name);
    Buf<float> y({4, 5}), want({4, 5});
    TensorView yv = y.view(), wv = want.view();
    ASSERT_TRUE(Pad(xv, pads, mode, 0.5, wv).ok());
    MapAttrs a;
    a.strings["mode"] = name;
    a.ints["pads"] = {1, 2, 1, 0};
    a.floats["value"] = 0.5f;
    ASSERT_TRUE(RunRow("Pad", a, {&xv}, {&yv}).ok());
    EXPECT_EQ(y.data, want.data);
  }
}

TEST(FloatOpsStrings, PadRefusesWhatItCannotRunAtPrepare) {
  Buf<int64_t> x({2, 3});
  Buf<int64_t> y({4, 5});
  TensorView xv = x.view(), yv = y.view();
  MapAttrs a;
  a.strings["mode"] = "wrap";
  a.ints["pads"] = {1, 2, 1, 0};
  Status s = RunRow("Pad", a, {&xv}, {&yv});
  EXPECT_THAT(s.message(), HasSubstr("mode 'wrap' is not one of constant, reflect, edge"));
  a.strings["mode"] = "reflect";
  a.ints["pads"] = {1, 2};
  s = RunRow("Pad", a, {&xv}, {&yv});
  EXPECT_THAT(s.message(), HasSubstr("pads has 2 entries, a rank-2 input needs 4"));
  a.ints["pads"] = {2, 2, 0, 0};  // reflecting 2 past an axis of 2
  s = RunRow("Pad", a, {&xv}, {&yv});
  EXPECT_THAT(s.message(), HasSubstr("reflect pads must be smaller than the axis"));
}

TEST(FloatOpsStrings, EyeLikeChecksItsDTypeAgainstTheOutput) {
  Buf<float> like({3, 4});
  Buf<int64_t> y({3, 4}), want({3, 4});
  TensorView lv = like.view(), yv = y.view(), wv = want.view();
  ASSERT_TRUE(EyeLike(1, wv).ok());
  MapAttrs a;
  a.ints["k"] = {1};
  a.strings["dtype"] = "i64";
  ASSERT_TRUE(RunRow("EyeLike", a, {&lv}, {&yv}).ok());
  EXPECT_EQ(y.data, want.data);
  a.strings["dtype"] = "f32";
  Status s = RunRow("EyeLike", a, {&lv}, {&yv});
  EXPECT_THAT(s.message(), HasSubstr("dtype says f32, the output tensor is i64"));
  a.strings["dtype"] = "float";
  s = RunRow("EyeLike", a, {&lv}, {&yv});
  EXPECT_THAT(s.message(), HasSubstr("dtype 'float' is not an element type"));
}

TEST(FloatOpsStrings, TopKWritesIndicesOrKeepsThemInScratch) {
  Buf<float> x({2, 5}, RandomFloats(10, 6));
  Buf<float> v({2, 3}), want_v({2, 3});
  Buf<int64_t> i({2, 3}), want_i({2, 3});
  TensorView xv = x.view(), vv = v.view(), iv = i.view(), wvv = want_v.view(), wiv = want_i.view();
  ASSERT_TRUE(TopK(xv, 1, false, wvv, wiv).ok());
  MapAttrs a;
  a.ints["axis"] = {-1};
  a.ints["largest"] = {0};
  ASSERT_TRUE(RunRow("TopK", a, {&xv}, {&vv, &iv}).ok());
  EXPECT_EQ(v.data, want_v.data);
  EXPECT_EQ(i.data, want_i.data);
  Buf<float> only({2, 3});
  TensorView ov = only.view();
  ASSERT_TRUE(RunRow("TopK", a, {&xv}, {&ov}).ok());
  EXPECT_EQ(only.data, want_v.data);
  Buf<float> too_many({2, 6});
  TensorView tv = too_many.view();
  EXPECT_THAT(RunRow("TopK", a, {&xv}, {&tv}).message(), HasSubstr("at most x's length"));
}

}  // namespace
}  // namespace loom::kernels
