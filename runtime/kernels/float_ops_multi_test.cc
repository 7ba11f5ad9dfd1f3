// The multi-output and scratch rows of the float-op table, run as the loader and executor run
// them (prepare, scratch_bytes, run_multi): each gives the bytes its kernel gives when called
// directly, fills every output it is given, and refuses parameters that would size the scratch
// from nothing the package holds.
#include "runtime/kernels/float_ops_multi.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "runtime/kernels/kernel_test_util.h"
#include "runtime/kernels/op_attrs.h"

namespace loom::kernels {
namespace {

using testing::Buf;
using ::testing::HasSubstr;
using testing::MapAttrs;
using testing::RandomFloats;

// Prepares `op` and runs it through run_multi with the scratch its row asks for.
Status RunMulti(const char* op, const AttrReader& attrs, std::vector<const TensorView*> in,
                std::vector<const TensorView*> out, size_t* scratch_bytes = nullptr) {
  const FloatOpDef* def = FindFloatOp(op);
  if (def == nullptr || def->run_multi == nullptr) return NotFound(op);
  FloatOpParams p;
  LOOM_RETURN_IF_ERROR(def->prepare(attrs, in.data(), in.size(), *out[0], &p));
  const size_t bytes =
      def->scratch_bytes ? def->scratch_bytes(p, in.data(), in.size(), *out[0]) : 0;
  if (scratch_bytes != nullptr) *scratch_bytes = bytes;
  std::vector<double> scratch((bytes + 7) / 8);
  return def->run_multi(p, in.data(), in.size(), out.data(), out.size(), scratch.data());
}

TEST(FloatOpsMulti, LayerNormalizationWritesMeanAndInvStdDev) {
  Buf<float> x({2, 3}, RandomFloats(6, 1)), scale({3}, {1.0f, 2.0f, 0.5f});
  Buf<float> y({2, 3}), mean({2, 1}), inv({2, 1});
  Buf<float> want_y({2, 3}), want_mean({2, 1}), want_inv({2, 1});
  TensorView xv = x.view(), sv = scale.view(), yv = y.view(), mv = mean.view(), iv = inv.view();
  TensorView wy = want_y.view(), wm = want_mean.view(), wi = want_inv.view();
  ASSERT_TRUE(LayerNorm(xv, sv, nullptr, 1, 1e-5f, wy, &wm, &wi).ok());
  MapAttrs a;
  a.ints["axis"] = {-1};
  ASSERT_TRUE(RunMulti("LayerNormalization", a, {&xv, &sv}, {&yv, &mv, &iv}).ok());
  EXPECT_EQ(y.data, want_y.data);
  EXPECT_EQ(mean.data, want_mean.data);
  EXPECT_EQ(inv.data, want_inv.data);
  // With Y alone it is the single-output row it always was.
  Buf<float> only({2, 3});
  TensorView ov = only.view();
  ASSERT_TRUE(RunMulti("LayerNormalization", a, {&xv, &sv}, {&ov}).ok());
  EXPECT_EQ(only.data, want_y.data);
}

TEST(FloatOpsMulti, BatchNormalizationTrainingUpdatesRunningStatistics) {
  Buf<float> x({2, 2, 1, 2}, RandomFloats(8, 2)), scale({2}, {1, 1}), bias({2}, {0, 0.5f});
  Buf<float> mean({2}, {0.1f, -0.2f}), var({2}, {1.0f, 2.0f});
  Buf<float> y({2, 2, 1, 2}), rm({2}), rv({2}), wy({2, 2, 1, 2}), wrm({2}), wrv({2});
  TensorView in[5] = {x.view(), scale.view(), bias.view(), mean.view(), var.view()};
  TensorView yv = y.view(), rmv = rm.view(), rvv = rv.view();
  TensorView wyv = wy.view(), wrmv = wrm.view(), wrvv = wrv.view();
  ASSERT_TRUE(
      BatchNormTraining(in[0], in[1], in[2], in[3], in[4], 1e-3f, 0.8f, wyv, &wrmv, &wrvv).ok());
  MapAttrs a;
  a.floats["epsilon"] = 1e-3f;
  a.floats["momentum"] = 0.8f;
  ASSERT_TRUE(RunMulti("BatchNormalizationTraining", a, {&in[0], &in[1], &in[2], &in[3], &in[4]},
                       {&yv, &rmv, &rvv})
                  .ok());
  EXPECT_EQ(y.data, wy.data);
  EXPECT_EQ(rm.data, wrm.data);
  EXPECT_EQ(rv.data, wrv.data);
}

// One LSTM step per row over two directions: Y, Y_h and Y_c as the kernel computes them, with the
// scratch the row asks for (RecurrentScratchFloats floats).
TEST(FloatOpsMulti, LstmRunsOverPlannedScratch) {
  const int64_t s = 3, b = 2, in_size = 2, h = 3, d = 2;
  Buf<float> x({s, b, in_size}, RandomFloats(s * b * in_size, 3));
  Buf<float> w({d, 4 * h, in_size}, RandomFloats(d * 4 * h * in_size, 4, -0.5f, 0.5f));
  Buf<float> r({d, 4 * h, h}, RandomFloats(d * 4 * h * h, 5, -0.5f, 0.5f));
  Buf<float> y({s, d, b, h}), yh({d, b, h}), yc({d, b, h});
  Buf<float> wy({s, d, b, h}), wyh({d, b, h}), wyc({d, b, h});
  TensorView xv = x.view(), wv = w.view(), rv = r.view();
  TensorView yv = y.view(), yhv = yh.view(), ycv = yc.view();
  TensorView wyv = wy.view(), wyhv = wyh.view(), wycv = wyc.view();
  RecurrentParams p;
  p.hidden_size = h;
  p.direction = 2;
  for (int i = 0; i < 6; ++i) {
    p.activations[i] = {i % 3 == 0 ? RnnActivation::kSigmoid : RnnActivation::kTanh, 0, 0};
  }
  RecurrentOperands o;
  o.x = &xv, o.w = &wv, o.r = &rv, o.y = &wyv, o.y_h = &wyhv, o.y_c = &wycv;
  std::vector<float> scratch(RecurrentScratchFloats(kLstmGates, h));
  ASSERT_TRUE(Lstm(p, o, scratch.data()).ok());

  MapAttrs a;
  a.ints["hidden_size"] = {h};
  a.ints["direction"] = {2};
  for (int i = 0; i < 6; ++i) {
    a.ints["activations"].push_back(static_cast<int64_t>(p.activations[i].kind));
    a.float_lists["activation_alpha"].push_back(0);
    a.float_lists["activation_beta"].push_back(0);
  }
  size_t bytes = 0;
  ASSERT_TRUE(RunMulti("LSTM", a, {&xv, &wv, &rv}, {&yv, &yhv, &ycv}, &bytes).ok());
  EXPECT_EQ(bytes, RecurrentScratchFloats(kLstmGates, h) * sizeof(float));
  EXPECT_EQ(y.data, wy.data);
  EXPECT_EQ(yh.data, wyh.data);
  EXPECT_EQ(yc.data, wyc.data);
}

// The scratch is sized from hidden_size, so the prepare ties it to R's shape; activation codes
// outside the enum are refused rather than cast.
TEST(FloatOpsMulti, RecurrentParametersAreCheckedAgainstTheOperands) {
  Buf<float> x({1, 1, 1}, {1}), w({1, 1, 1}, {1}), r({1, 1, 1}, {1}), y({1, 1, 1, 1});
  TensorView xv = x.view(), wv = w.view(), rv = r.view(), yv = y.view();
  MapAttrs a;
  a.ints["hidden_size"] = {1000000};
  Status st = RunMulti("RNN", a, {&xv, &wv, &rv}, {&yv});
  EXPECT_EQ(st.code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(st.message(), HasSubstr("R must be [directions, 1 * hidden_size, hidden_size]"));
  a.ints["hidden_size"] = {1};
  a.ints["activations"] = {99};
  a.float_lists["activation_alpha"] = {0};
  a.float_lists["activation_beta"] = {0};
  st = RunMulti("RNN", a, {&xv, &wv, &rv}, {&yv});
  EXPECT_EQ(st.code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(st.message(), HasSubstr("activation code 99"));
  a.ints["activations"] = {static_cast<int64_t>(RnnActivation::kTanh)};
  EXPECT_TRUE(RunMulti("RNN", a, {&xv, &wv, &rv}, {&yv}).ok());
  EXPECT_FLOAT_EQ(y.data[0], std::tanh(1.0f));
}

TEST(FloatOpsMulti, DynamicQuantizeLinearWithAndWithoutScaleOutputs) {
  Buf<float> x({4}, {-1.0f, 0.0f, 0.5f, 2.0f});
  Buf<uint8_t> y({4}), y1({4}), zp(std::vector<int64_t>{});
  Buf<float> scale(std::vector<int64_t>{});
  TensorView xv = x.view(), yv = y.view(), y1v = y1.view(), sv = scale.view(), zv = zp.view();
  ASSERT_TRUE(RunMulti("DynamicQuantizeLinear", MapAttrs{}, {&xv}, {&yv, &sv, &zv}).ok());
  EXPECT_FLOAT_EQ(scale.data[0], 3.0f / 255.0f);
  EXPECT_EQ(zp.data[0], 85);
  ASSERT_TRUE(RunMulti("DynamicQuantizeLinear", MapAttrs{}, {&xv}, {&y1v}).ok());
  EXPECT_EQ(y1.data, y.data);
}

TEST(FloatOpsMulti, DetAsksForMTimesMDoubles) {
  Buf<float> x({2, 2, 2}, {1, 2, 3, 4, 2, 0, 0, 3}), y({2});
  TensorView xv = x.view(), yv = y.view();
  size_t bytes = 0;
  ASSERT_TRUE(RunMulti("Det", MapAttrs{}, {&xv}, {&yv}, &bytes).ok());
  EXPECT_EQ(bytes, 4 * sizeof(double));
  EXPECT_NEAR(y.data[0], -2.0f, 1e-6);
  EXPECT_NEAR(y.data[1], 6.0f, 1e-6);
  Buf<float> rect({2, 3}), one({1});
  TensorView rv = rect.view(), ov = one.view();
  EXPECT_THAT(RunMulti("Det", MapAttrs{}, {&rv}, {&ov}).message(), HasSubstr("[..., M, M]"));
}

// MaxPool writes its Indices when the package gives it the output, on u8 as on f32; Dropout its
// all-true mask.
TEST(FloatOpsMulti, MaxPoolIndicesAndDropoutMask) {
  Buf<uint8_t> x({1, 1, 2, 4}, {1, 9, 3, 4, 5, 6, 8, 2}), y({1, 1, 1, 2}), want_y({1, 1, 1, 2});
  Buf<int64_t> idx({1, 1, 1, 2}), want_idx({1, 1, 1, 2});
  TensorView xv = x.view(), yv = y.view(), iv = idx.view(), wy = want_y.view(),
             wi = want_idx.view();
  MapAttrs a;
  a.ints["kernel_shape"] = {2, 2};
  a.ints["strides"] = {2, 2};
  PoolParams p;
  ASSERT_TRUE(PoolParamsFrom(a, 4, &p).ok());
  ASSERT_TRUE(MaxPool(p, xv, wy, &wi).ok());
  ASSERT_TRUE(RunMulti("MaxPool", a, {&xv}, {&yv, &iv}).ok());
  EXPECT_EQ(y.data, want_y.data);
  EXPECT_EQ(idx.data, want_idx.data);
  EXPECT_EQ(idx.data, (std::vector<int64_t>{1, 6}));

  Buf<float> d({2, 2}, {1, -2, 3, -4}), dy({2, 2});
  std::vector<uint8_t> mask(4, 0);  // bool bytes
  TensorView dv = d.view(), dyv = dy.view(), mv = View(DType::kBool, mask.data(), {2, 2});
  ASSERT_TRUE(RunMulti("Dropout", MapAttrs(), {&dv}, {&dyv, &mv}).ok());
  EXPECT_EQ(dy.data, d.data);
  EXPECT_EQ(mask, (std::vector<uint8_t>{1, 1, 1, 1}));
}

}  // namespace
}  // namespace loom::kernels
