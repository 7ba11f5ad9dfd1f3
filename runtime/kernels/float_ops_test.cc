#include "runtime/kernels/float_ops.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "runtime/kernels/kernel_test_util.h"

namespace loom::kernels {
namespace {

using ::testing::HasSubstr;
using testing::MapAttrs;

// Prepares `op` from `attrs` and runs it through its row, as the loader and executor do.
Status RunRow(const char* op, const AttrReader& attrs, std::vector<const TensorView*> in,
              const TensorView& y) {
  const FloatOpDef* def = FindFloatOp(op);
  if (def == nullptr) return NotFound(op);
  FloatOpParams params;
  LOOM_RETURN_IF_ERROR(def->prepare(attrs, in.data(), in.size(), y, &params));
  return def->run(params, in.data(), in.size(), y);
}

TEST(FloatOps, EveryRowIsFoundByItsNameOnce) {
  size_t n = 0;
  const FloatOpDef* table = FloatOpTable(&n);
  ASSERT_GT(n, 0u);
  std::set<std::string> names;
  for (size_t i = 0; i < n; ++i) {
    EXPECT_TRUE(names.insert(table[i].name).second) << table[i].name << " twice";
    EXPECT_EQ(FindFloatOp(table[i].name), &table[i]);
    EXPECT_NE(table[i].prepare, nullptr) << table[i].name;
    // Single-output rows run through run; rows with extra outputs or scratch through run_multi.
    EXPECT_TRUE(table[i].run != nullptr || table[i].run_multi != nullptr) << table[i].name;
    if (table[i].extra_outputs || table[i].scratch_bytes) {
      EXPECT_NE(table[i].run_multi, nullptr) << table[i].name;
    }
    EXPECT_GE(table[i].required, 1) << table[i].name;
  }
  EXPECT_EQ(FindFloatOp("StringNormalizer"), nullptr);  // Loom has no string tensors
  EXPECT_EQ(FindFloatOp("relu"), nullptr);              // names are ONNX's, case and all
}

TEST(FloatOps, AttributeListsMatchWholeNames) {
  EXPECT_TRUE(AttrListed("strides dilations pads group", "pads"));
  EXPECT_TRUE(AttrListed("strides dilations pads group", "group"));
  EXPECT_FALSE(AttrListed("strides dilations pads group", "pad"));
  EXPECT_FALSE(AttrListed("strides dilations", "strides dilations"));
  EXPECT_FALSE(AttrListed("", "axis"));
  const FloatOpDef* pool = FindFloatOp("AveragePool");
  ASSERT_NE(pool, nullptr);
  EXPECT_FALSE(AttrListed(pool->reads, "dilations"));  // its kernel has none: refused at load
  EXPECT_TRUE(AttrListed(pool->ignores, "ceil_mode"));
}

TEST(FloatOps, TransposeTakesItsPermFromTheAttribute) {
  const float x[6] = {1, 2, 3, 4, 5, 6};
  float y[6] = {};
  const TensorView xv = View(DType::kF32, x, {2, 3});
  const TensorView yv = View(DType::kF32, y, {3, 2});
  MapAttrs attrs;
  attrs.ints["perm"] = {1, 0};
  ASSERT_TRUE(RunRow("Transpose", attrs, {&xv}, yv).ok());
  EXPECT_THAT(y, ::testing::ElementsAre(1, 4, 2, 5, 3, 6));
  // No perm: ONNX reverses the dims.
  float z[6] = {};
  ASSERT_TRUE(RunRow("Transpose", MapAttrs{}, {&xv}, View(DType::kF32, z, {3, 2})).ok());
  EXPECT_THAT(z, ::testing::ElementsAre(1, 4, 2, 5, 3, 6));
}

TEST(FloatOps, PrepareRefusesBadAttributesNamingThem) {
  const TensorView x = View(DType::kF32, nullptr, {2, 3});
  const TensorView y = View(DType::kF32, nullptr, {3, 2});
  const TensorView* in[] = {&x};
  FloatOpParams p;
  MapAttrs perm;
  perm.ints["perm"] = {0, 0};
  Status s = FindFloatOp("Transpose")->prepare(perm, in, 1, y, &p);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("not a permutation"));
  perm.ints["perm"] = {1, 0, 2};
  s = FindFloatOp("Transpose")->prepare(perm, in, 1, y, &p);
  EXPECT_THAT(s.message(), HasSubstr("perm has 3 entries for a rank-2 input"));
  MapAttrs axis;
  axis.ints["axis"] = {2};
  s = FindFloatOp("Softmax")->prepare(axis, in, 1, x, &p);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("Softmax: axis 2 is outside [-2, 2)"));
  MapAttrs pool;  // kernel_shape is required
  const TensorView x4 = View(DType::kF32, nullptr, {1, 1, 4, 4});
  const TensorView* in4[] = {&x4};
  s = FindFloatOp("MaxPool")->prepare(pool, in4, 1, x4, &p);
  EXPECT_THAT(s.message(), HasSubstr("kernel_shape is missing"));
}

TEST(FloatOps, NegativeAxesResolveAtPrepare) {
  const TensorView x = View(DType::kF32, nullptr, {2, 3, 4});
  const TensorView* in[] = {&x};
  MapAttrs axis;
  axis.ints["axis"] = {-1};
  FloatOpParams p;
  ASSERT_TRUE(FindFloatOp("Softmax")->prepare(axis, in, 1, x, &p).ok());
  EXPECT_EQ(p.axis, 2);
  axis.ints["axis"] = {-3};
  ASSERT_TRUE(FindFloatOp("Concat")->prepare(axis, in, 1, x, &p).ok());
  EXPECT_EQ(p.axis, 0);
}

TEST(FloatOps, ClipBoundsAreScalarInputsReadAtRunTime) {
  const float x[4] = {-5, -1, 1, 5};
  float y[4] = {};
  const float lo = -2, hi = 3;
  const TensorView xv = View(DType::kF32, x, {4});
  const TensorView lov = View(DType::kF32, &lo, {});
  const TensorView hiv = View(DType::kF32, &hi, {1});
  const TensorView yv = View(DType::kF32, y, {4});
  ASSERT_TRUE(RunRow("Clip", MapAttrs{}, {&xv, &lov, &hiv}, yv).ok());
  EXPECT_THAT(y, ::testing::ElementsAre(-2, -1, 1, 3));
  // Only a max: the min slot is omitted.
  ASSERT_TRUE(RunRow("Clip", MapAttrs{}, {&xv, nullptr, &hiv}, yv).ok());
  EXPECT_THAT(y, ::testing::ElementsAre(-5, -1, 1, 3));
  const float two[2] = {0, 1};
  const TensorView bad = View(DType::kF32, two, {2});
  const Status s = RunRow("Clip", MapAttrs{}, {&xv, &bad}, yv);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("bound 1 (min) has 2 elements"));
}

TEST(FloatOps, ConvThroughTheTableMatchesTheKernel) {
  std::vector<float> x(1 * 2 * 5 * 5), w(3 * 2 * 3 * 3), b = {0.5f, -1.0f, 2.0f};
  for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(i % 7) - 3.0f;
  for (size_t i = 0; i < w.size(); ++i) w[i] = static_cast<float>(i % 5) * 0.25f - 0.5f;
  std::vector<float> y1(1 * 3 * 3 * 3), y2(y1.size());
  const TensorView xv = View(DType::kF32, x.data(), {1, 2, 5, 5});
  const TensorView wv = View(DType::kF32, w.data(), {3, 2, 3, 3});
  const TensorView bv = View(DType::kF32, b.data(), {3});
  MapAttrs attrs;
  attrs.ints["strides"] = {2, 2};
  attrs.ints["pads"] = {1, 1, 1, 1};
  ASSERT_TRUE(
      RunRow("Conv", attrs, {&xv, &wv, &bv}, View(DType::kF32, y1.data(), {1, 3, 3, 3})).ok());
  ConvParams p;
  p.strides[0] = p.strides[1] = 2;
  p.pads_begin[0] = p.pads_begin[1] = p.pads_end[0] = p.pads_end[1] = 1;
  ASSERT_TRUE(Conv(p, xv, wv, &bv, View(DType::kF32, y2.data(), {1, 3, 3, 3})).ok());
  EXPECT_EQ(y1, y2);
  // Without the optional bias (an omitted slot, or no slot at all).
  ASSERT_TRUE(
      RunRow("Conv", attrs, {&xv, &wv, nullptr}, View(DType::kF32, y1.data(), {1, 3, 3, 3})).ok());
  ASSERT_TRUE(RunRow("Conv", attrs, {&xv, &wv}, View(DType::kF32, y2.data(), {1, 3, 3, 3})).ok());
  EXPECT_EQ(y1, y2);
}

// --- vision and normalization family ---

TEST(FloatOps, ResizeScalesComeFromTheAttributeOrTheShapes) {
  const float x[2] = {0, 4};
  float y[3] = {};
  const TensorView xv = View(DType::kF32, x, {1, 2});
  const TensorView yv = View(DType::kF32, y, {1, 3});
  MapAttrs attrs;
  attrs.ints["mode"] = {1};                            // linear
  attrs.ints["coordinate_transformation_mode"] = {1};  // asymmetric: x / scale
  // No scales: 3 / 2 per the shapes, sources 0, 2/3, 4/3.
  ASSERT_TRUE(RunRow("Resize", attrs, {&xv}, yv).ok());
  EXPECT_FLOAT_EQ(y[1], 4.0f * 2 / 3);
  EXPECT_FLOAT_EQ(y[2], 4.0f);
  // Explicit scale 2 along the last dim: sources 0, 0.5, 1.
  attrs.float_lists["scales"] = {1, 2};
  ASSERT_TRUE(RunRow("Resize", attrs, {&xv}, yv).ok());
  EXPECT_THAT(y, ::testing::ElementsAre(0, 2, 4));
  attrs.ints["mode"] = {3};
  const Status s = RunRow("Resize", attrs, {&xv}, yv);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("mode 3"));
  attrs.ints["mode"] = {0};
  attrs.ints["coordinate_transformation_mode"] = {5};  // tf_crop_and_resize needs roi
  EXPECT_THAT(RunRow("Resize", attrs, {&xv}, yv).message(), HasSubstr("roi with 4 entries"));
}

TEST(FloatOps, ConvTransposeAndNormsThroughTheTable) {
  const float x[3] = {1, 2, 3}, w[2] = {1, 10}, b[1] = {0.5f};
  float y[6] = {};
  const TensorView xv = View(DType::kF32, x, {1, 1, 3});
  const TensorView wv = View(DType::kF32, w, {1, 1, 2});
  const TensorView bv = View(DType::kF32, b, {1});
  MapAttrs attrs;
  attrs.ints["strides"] = {2};
  attrs.ints["output_padding"] = {0};  // listed as ignored: y's shape has it
  ASSERT_TRUE(
      RunRow("ConvTranspose", attrs, {&xv, &wv, &bv}, View(DType::kF32, y, {1, 1, 6})).ok());
  EXPECT_THAT(y, ::testing::ElementsAre(1.5f, 10.5f, 2.5f, 20.5f, 3.5f, 30.5f));
  EXPECT_TRUE(AttrListed(FindFloatOp("ConvTranspose")->ignores, "output_padding"));
  // LayerNormalization's negative axis resolves at prepare; the bias slot is optional.
  const float s2[3] = {1, 1, 1};
  const TensorView sv = View(DType::kF32, s2, {3});
  float ln[3] = {};
  MapAttrs ax;
  ax.ints["axis"] = {-1};
  ax.floats["epsilon"] = 0.0f;
  ASSERT_TRUE(RunRow("LayerNormalization", ax, {&xv, &sv}, View(DType::kF32, ln, {1, 1, 3})).ok());
  EXPECT_NEAR(ln[0], -1.2247449f, 1e-6);
  EXPECT_NEAR(ln[2], 1.2247449f, 1e-6);
  ax.ints["axis"] = {3};
  EXPECT_THAT(
      RunRow("LayerNormalization", ax, {&xv, &sv}, View(DType::kF32, ln, {1, 1, 3})).message(),
      HasSubstr("axis 3 is outside"));
  float g[1] = {};
  ASSERT_TRUE(RunRow("GlobalMaxPool", MapAttrs{}, {&xv}, View(DType::kF32, g, {1, 1, 1})).ok());
  EXPECT_EQ(g[0], 3.0f);
}

TEST(FloatOps, GridSampleAndRoiAlignThroughTheTable) {
  const float x[4] = {1, 3, 10, 30};
  const TensorView xv = View(DType::kF32, x, {1, 1, 2, 2});
  const float grid[2] = {0, 0};  // the center
  const TensorView gv = View(DType::kF32, grid, {1, 1, 1, 2});
  float y[1] = {};
  MapAttrs attrs;
  attrs.ints["mode"] = {1};
  attrs.ints["padding_mode"] = {0};
  attrs.ints["align_corners"] = {0};
  ASSERT_TRUE(RunRow("GridSample", attrs, {&xv, &gv}, View(DType::kF32, y, {1, 1, 1, 1})).ok());
  EXPECT_FLOAT_EQ(y[0], 11.0f);
  attrs.ints["padding_mode"] = {3};
  EXPECT_THAT(RunRow("GridSample", attrs, {&xv, &gv}, View(DType::kF32, y, {1, 1, 1, 1})).message(),
              HasSubstr("padding_mode 3"));
  // RoiAlign: one region over the whole image, one bin, 2x2 samples at the pixel centers.
  const float roi[4] = {0, 0, 2, 2};
  const int64_t batch[1] = {0};
  const TensorView rv = View(DType::kF32, roi, {1, 4});
  const TensorView bv = View(DType::kI64, batch, {1});
  MapAttrs ra;
  ra.ints["sampling_ratio"] = {2};
  ra.ints["output_height"] = {1};  // listed as ignored: y's shape has it
  ASSERT_TRUE(RunRow("RoiAlign", ra, {&xv, &rv, &bv}, View(DType::kF32, y, {1, 1, 1, 1})).ok());
  EXPECT_FLOAT_EQ(y[0], 11.0f);
  ra.ints["mode"] = {2};
  EXPECT_FALSE(RunRow("RoiAlign", ra, {&xv, &rv, &bv}, View(DType::kF32, y, {1, 1, 1, 1})).ok());
}

TEST(FloatOps, ReductionFamilyThroughTheTable) {
  const float x[6] = {1, 2, 3, 4, 5, 6};
  const TensorView xv = View(DType::kF32, x, {2, 3});
  MapAttrs attrs;
  attrs.ints["axes"] = {1};
  attrs.ints["keepdims"] = {0};  // listed as ignored: y's shape has it
  float y[2] = {};
  ASSERT_TRUE(RunRow("ReduceSumSquare", attrs, {&xv}, View(DType::kF32, y, {2})).ok());
  EXPECT_THAT(y, ::testing::ElementsAre(14.0f, 77.0f));
  ASSERT_TRUE(RunRow("ReduceMax", attrs, {&xv}, View(DType::kF32, y, {2})).ok());
  EXPECT_THAT(y, ::testing::ElementsAre(3.0f, 6.0f));
  attrs.ints["axes"] = {2};
  EXPECT_THAT(RunRow("ReduceSum", attrs, {&xv}, View(DType::kF32, y, {2})).message(),
              HasSubstr("axis 2 is outside"));
  EXPECT_THAT(RunRow("ReduceSum", MapAttrs{}, {&xv}, View(DType::kF32, y, {2})).message(),
              HasSubstr("axes is missing"));
  float c[6] = {};
  MapAttrs cs;
  cs.ints["axis"] = {-1};
  cs.ints["reverse"] = {1};
  ASSERT_TRUE(RunRow("CumSum", cs, {&xv}, View(DType::kF32, c, {2, 3})).ok());
  EXPECT_THAT(c, ::testing::ElementsAre(6.0f, 5.0f, 3.0f, 15.0f, 11.0f, 6.0f));
  MapAttrs ax;
  ax.ints["axis"] = {0};
  ASSERT_TRUE(RunRow("Hardmax", ax, {&xv}, View(DType::kF32, c, {2, 3})).ok());
  EXPECT_THAT(c, ::testing::ElementsAre(0.0f, 0.0f, 0.0f, 1.0f, 1.0f, 1.0f));
  ASSERT_TRUE(RunRow("LogSoftmax", ax, {&xv}, View(DType::kF32, c, {2, 3})).ok());
  EXPECT_NEAR(c[3], -std::log1p(std::exp(-3.0f)), 1e-6);
}

// The elementwise math rows: attributes become kernel parameters (Mod's fmod picks the op,
// an activation's alpha reaches the kernel), and PRelu refuses a slope that would grow x.
TEST(FloatOps, MathRowsReadTheirAttributes) {
  float a[4] = {-7, 7, -4.5f, 5.5f}, b[4] = {3, -3, 2, -2}, y[4] = {};
  const TensorView av = View(DType::kF32, a, {4}), bv = View(DType::kF32, b, {4}),
                   yv = View(DType::kF32, y, {4});
  MapAttrs fmod;
  fmod.ints["fmod"] = {1};
  ASSERT_TRUE(RunRow("Mod", fmod, {&av, &bv}, yv).ok());
  EXPECT_THAT(std::vector<float>(y, y + 4), ::testing::ElementsAre(-1, 1, -0.5f, 1.5f));
  MapAttrs python_mod;
  ASSERT_TRUE(RunRow("Mod", python_mod, {&av, &bv}, yv).ok());
  EXPECT_THAT(std::vector<float>(y, y + 4), ::testing::ElementsAre(2, -2, 1.5f, -0.5f));

  MapAttrs hs;
  hs.floats["alpha"] = 0.5f;
  hs.floats["beta"] = 0.25f;
  ASSERT_TRUE(RunRow("HardSigmoid", hs, {&av}, yv).ok());
  EXPECT_THAT(std::vector<float>(y, y + 4), ::testing::ElementsAre(0, 1, 0, 1));
  MapAttrs shrink;
  shrink.floats["lambd"] = 5.0f;
  shrink.floats["bias"] = 1.0f;
  ASSERT_TRUE(RunRow("Shrink", shrink, {&av}, yv).ok());
  EXPECT_THAT(std::vector<float>(y, y + 4), ::testing::ElementsAre(-6, 6, 0, 4.5f));

  MapAttrs none;
  float slope[2] = {0.5f, 2}, x2[2] = {-2, -2};
  const TensorView sv = View(DType::kF32, slope, {2}), xv = View(DType::kF32, x2, {1, 2}),
                   y2 = View(DType::kF32, y, {1, 2});
  ASSERT_TRUE(RunRow("PRelu", none, {&xv, &sv}, y2).ok());
  EXPECT_THAT(std::vector<float>(y, y + 2), ::testing::ElementsAre(-1, -4));
  const TensorView x1 = View(DType::kF32, x2, {1}), wide = View(DType::kF32, y, {2});
  const Status grow = RunRow("PRelu", none, {&x1, &sv}, wide);
  EXPECT_THAT(grow.message(), HasSubstr("slope does not broadcast to x"));

  MapAttrs celu;
  celu.floats["alpha"] = 0.0f;
  EXPECT_THAT(RunRow("Celu", celu, {&av}, yv).message(), HasSubstr("alpha must be finite"));
}

// --- shape and indexing family ---

TEST(FloatOps, SliceAndTriluThroughTheTable) {
  const float x[6] = {0, 1, 2, 3, 4, 5};
  const TensorView xv = View(DType::kF32, x, {2, 3});
  float y[2] = {};
  MapAttrs attrs;
  attrs.ints["starts"] = {1, 2};
  attrs.ints["steps"] = {1, -2};
  attrs.ints["ends"] = {2, -1};  // listed as ignored: y's shape has it
  ASSERT_TRUE(RunRow("Slice", attrs, {&xv}, View(DType::kF32, y, {1, 2})).ok());
  EXPECT_THAT(y, ::testing::ElementsAre(5, 3));
  attrs.ints["steps"] = {1};
  EXPECT_THAT(RunRow("Slice", attrs, {&xv}, View(DType::kF32, y, {1, 2})).message(),
              HasSubstr("one entry per dim (2)"));
  float t[6] = {};
  MapAttrs tri;
  tri.ints["upper"] = {0};
  ASSERT_TRUE(RunRow("Trilu", tri, {&xv}, View(DType::kF32, t, {2, 3})).ok());
  EXPECT_THAT(t, ::testing::ElementsAre(0, 0, 0, 3, 4, 0));
}

TEST(FloatOps, GatherRowChecksItsAxisAtPrepare) {
  const float x[4] = {1, 2, 3, 4};
  const int64_t idx[2] = {1, -1};
  const TensorView xv = View(DType::kF32, x, {2, 2});
  const TensorView iv = View(DType::kI64, idx, {2});
  float y[4] = {};
  MapAttrs attrs;
  attrs.ints["axis"] = {1};
  ASSERT_TRUE(RunRow("Gather", attrs, {&xv, &iv}, View(DType::kF32, y, {2, 2})).ok());
  EXPECT_THAT(y, ::testing::ElementsAre(2, 2, 4, 4));
  attrs.ints["axis"] = {2};
  EXPECT_THAT(RunRow("Gather", attrs, {&xv, &iv}, View(DType::kF32, y, {2, 2})).message(),
              HasSubstr("axis 2 is outside [0, 2)"));
}

// DFT and STFT run in CPU segments: an impulse's flat spectrum, and STFT without a window.
TEST(FloatOps, SignalRows) {
  const float x[4] = {1, 0, 0, 0};
  const TensorView xv = View(DType::kF32, x, {1, 4, 1});
  float y[8] = {};
  MapAttrs attrs;
  attrs.ints["axis"] = {1};
  attrs.ints["dft_length"] = {4};
  ASSERT_TRUE(RunRow("DFT", attrs, {&xv}, View(DType::kF32, y, {1, 4, 2})).ok());
  EXPECT_THAT(y, ::testing::ElementsAre(1, 0, 1, 0, 1, 0, 1, 0));
  attrs.ints["dft_length"] = {0};
  EXPECT_THAT(RunRow("DFT", attrs, {&xv}, View(DType::kF32, y, {1, 4, 2})).message(),
              HasSubstr("dft_length must be >= 1"));
  MapAttrs st;
  st.ints["frame_step"] = {2};
  st.ints["frame_length"] = {2};
  float s[8] = {};  // frames [1, 0] and [0, 0], onesided: 2 bins each
  ASSERT_TRUE(RunRow("STFT", st, {&xv, nullptr}, View(DType::kF32, s, {1, 2, 2, 2})).ok());
  EXPECT_THAT(s, ::testing::ElementsAre(1, 0, 1, 0, 0, 0, 0, 0));
}

}  // namespace
}  // namespace loom::kernels
