// The interpreter's float MaxPool and fused ReLU loops (compiler/interp/float_fast.h) against the
// reference kernels, bit for bit: they only compare, so nothing may differ, NaN and signed zeros
// included.
#include "compiler/interp/float_fast.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

namespace loom::interp {
namespace {

using kernels::TensorView;

std::vector<float> Random(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> d(-3.0f, 3.0f);
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i) {
    v[i] = d(rng);
    if (i % 37 == 5) v[i] = std::numeric_limits<float>::quiet_NaN();
    if (i % 41 == 7) v[i] = -0.0f;
    if (i % 43 == 9) v[i] = -std::numeric_limits<float>::infinity();
  }
  return v;
}

bool SameBits(const std::vector<float>& a, const std::vector<float>& b) {
  // memcmp must not see the null data() of an empty vector.
  return a.size() == b.size() &&
         (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0);
}

TEST(FloatFast, MaxPoolMatchesReferenceBitForBit) {
  struct P {
    int64_t n, c, h, w, kh, kw, sh, sw, dh, dw, pt, pl, pb, pr, oh, ow;
  };
  const P cases[] = {
      {1, 4, 16, 16, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 8, 8},  // ResNet's stem pool
      {2, 3, 9, 7, 2, 2, 2, 2, 1, 1, 0, 0, 0, 0, 4, 3},    // floor mode
      {1, 2, 9, 7, 2, 2, 2, 2, 1, 1, 0, 0, 0, 0, 5, 4},    // ceil mode: last windows clipped
      {1, 3, 10, 11, 3, 2, 1, 3, 2, 2, 2, 1, 1, 2, 9, 4},  // dilated, asymmetric pads
      {1, 1, 5, 5, 5, 5, 1, 1, 1, 1, 4, 4, 4, 4, 9, 9},    // windows mostly in the padding
      // Rows wide enough for the 16-window vector interior, with scalar borders either side.
      {1, 2, 40, 70, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 20, 35},  // the stem pool's shape
      {1, 1, 20, 40, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 20, 40},  // stride 1
      {1, 1, 12, 60, 2, 3, 1, 1, 2, 2, 0, 2, 0, 2, 10, 60},  // dilated
  };
  uint32_t seed = 1;
  for (const P& c : cases) {
    kernels::PoolParams p;
    p.kernel[0] = c.kh;
    p.kernel[1] = c.kw;
    p.strides[0] = c.sh;
    p.strides[1] = c.sw;
    p.dilations[0] = c.dh;
    p.dilations[1] = c.dw;
    p.pads_begin[0] = c.pt;
    p.pads_begin[1] = c.pl;
    p.pads_end[0] = c.pb;
    p.pads_end[1] = c.pr;
    auto x = Random(static_cast<size_t>(c.n * c.c * c.h * c.w), seed++);
    std::vector<float> want(static_cast<size_t>(c.n * c.c * c.oh * c.ow), 1.0f);
    std::vector<float> got(want.size(), 2.0f);
    const TensorView xv = kernels::View(DType::kF32, x.data(), {c.n, c.c, c.h, c.w});
    const TensorView wv = kernels::View(DType::kF32, want.data(), {c.n, c.c, c.oh, c.ow});
    const TensorView gv = kernels::View(DType::kF32, got.data(), {c.n, c.c, c.oh, c.ow});
    const std::string what = "pool case " + std::to_string(seed - 1);
    ASSERT_TRUE(kernels::MaxPool(p, xv, wv, nullptr).ok()) << what;
    bool done = false;
    ASSERT_TRUE(FastMaxPool2d(p, xv, gv, &done).ok()) << what;
    ASSERT_TRUE(done) << what;
    EXPECT_TRUE(SameBits(got, want)) << what;
  }
}

TEST(FloatFast, MaxPoolLeavesOtherCasesToTheReference) {
  std::vector<float> x(16), y(4);
  kernels::PoolParams p;
  p.kernel[0] = p.kernel[1] = 2;
  p.strides[0] = p.strides[1] = 2;
  bool done = true;
  std::vector<int8_t> xi(16), yi(4);
  ASSERT_TRUE(FastMaxPool2d(p, kernels::View(DType::kI8, xi.data(), {1, 1, 4, 4}),
                            kernels::View(DType::kI8, yi.data(), {1, 1, 2, 2}), &done)
                  .ok());
  EXPECT_FALSE(done);
  done = true;
  p.spatial = 1;
  ASSERT_TRUE(FastMaxPool2d(p, kernels::View(DType::kF32, x.data(), {1, 1, 16}),
                            kernels::View(DType::kF32, y.data(), {1, 1, 8}), &done)
                  .ok());
  EXPECT_FALSE(done);
  done = true;
  p.spatial = 2;  // y of the wrong shape: the reference reports it
  ASSERT_TRUE(FastMaxPool2d(p, kernels::View(DType::kF32, x.data(), {1, 1, 4, 4}),
                            kernels::View(DType::kF32, y.data(), {1, 1, 4, 1}), &done)
                  .ok());
  EXPECT_FALSE(done);
}

TEST(FloatFast, SameShapeAddMatchesReferenceBitForBit) {
  for (int64_t n : {0, 1, 17, 1000}) {
    auto a = Random(static_cast<size_t>(n), 70 + static_cast<uint32_t>(n));
    auto b = Random(static_cast<size_t>(n), 90 + static_cast<uint32_t>(n));
    std::vector<float> want(a.size(), 1.0f), got(a.size(), 2.0f);
    const TensorView av = kernels::View(DType::kF32, a.data(), {1, n});
    const TensorView bv = kernels::View(DType::kF32, b.data(), {1, n});
    ASSERT_TRUE(kernels::Binary(kernels::BinaryOp::kAdd, av, bv,
                                kernels::View(DType::kF32, want.data(), {1, n}))
                    .ok());
    bool done = false;
    ASSERT_TRUE(
        FastAddSameShape(av, bv, kernels::View(DType::kF32, got.data(), {1, n}), &done).ok());
    ASSERT_TRUE(done);
    EXPECT_TRUE(SameBits(got, want)) << n << " elements";
  }
  // Broadcasting and other dtypes stay with the reference.
  std::vector<float> a(8), b(4), y(8);
  bool done = true;
  ASSERT_TRUE(FastAddSameShape(kernels::View(DType::kF32, a.data(), {2, 4}),
                               kernels::View(DType::kF32, b.data(), {4}),
                               kernels::View(DType::kF32, y.data(), {2, 4}), &done)
                  .ok());
  EXPECT_FALSE(done);
  std::vector<int32_t> ai(8), bi(8), yi(8);
  done = true;
  ASSERT_TRUE(FastAddSameShape(kernels::View(DType::kI32, ai.data(), {8}),
                               kernels::View(DType::kI32, bi.data(), {8}),
                               kernels::View(DType::kI32, yi.data(), {8}), &done)
                  .ok());
  EXPECT_FALSE(done);
}

TEST(FloatFast, FusedReluMatchesReferenceBitForBit) {
  for (size_t n : {size_t{0}, size_t{5}, size_t{16}, size_t{37}, size_t{1000}}) {
    auto want = Random(n, 50 + static_cast<uint32_t>(n));
    auto got = want;
    kernels::ActivationParams ap;
    ap.kind = kernels::ActivationKind::kRelu;
    const TensorView wv = kernels::View(DType::kF32, want.data(), {static_cast<int64_t>(n)});
    ASSERT_TRUE(kernels::Activation(ap, wv, wv).ok());
    ir::Node node;
    node.SetAttr("activation", ir::Attribute::String("relu"));
    bool done = false;
    FastFusedRelu(node, kernels::View(DType::kF32, got.data(), {static_cast<int64_t>(n)}), &done);
    ASSERT_TRUE(done);
    EXPECT_TRUE(SameBits(got, want)) << n << " elements";
  }
  // Clip and no activation stay with the reference.
  std::vector<float> v(4);
  ir::Node clip;
  clip.SetAttr("activation", ir::Attribute::String("clip"));
  bool done = true;
  FastFusedRelu(clip, kernels::View(DType::kF32, v.data(), {4}), &done);
  EXPECT_FALSE(done);
  done = true;
  FastFusedRelu(ir::Node(), kernels::View(DType::kF32, v.data(), {4}), &done);
  EXPECT_FALSE(done);
}

}  // namespace
}  // namespace loom::interp
