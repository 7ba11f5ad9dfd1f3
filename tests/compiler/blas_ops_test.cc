// The interpreter's BLAS paths (compiler/interp/blas_ops.h) against the reference kernels on
// random shapes: equal up to float rounding (sgemm sums in its own order), and the cases the BLAS
// path leaves to the reference (other dtypes, bad shapes, empty products) really are left.
#include "compiler/interp/blas_ops.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <string>
#include <vector>

namespace loom::interp {
namespace {

using kernels::TensorView;

std::vector<float> Random(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> d(-1.0f, 1.0f);
  std::vector<float> v(n);
  for (float& x : v) x = d(rng);
  return v;
}

TensorView F32(std::vector<float>& v, std::initializer_list<int64_t> dims) {
  return kernels::View(DType::kF32, v.data(), dims);
}

// |got - want| within a few ulps of the sum of |terms| (bounded by `scale`).
void ExpectClose(const std::vector<float>& got, const std::vector<float>& want, float scale,
                 const std::string& what) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    ASSERT_NEAR(got[i], want[i], 1e-5f * scale) << what << " element " << i;
  }
}

struct ConvCase {
  int64_t n, c, h, w, m, kh, kw, sh, sw, dh, dw, pt, pl, pb, pr, group;
  bool bias;
};

void CheckConv(const ConvCase& k, uint32_t seed) {
  const std::string what = "conv n" + std::to_string(k.n) + " c" + std::to_string(k.c) + " " +
                           std::to_string(k.h) + "x" + std::to_string(k.w) + " m" +
                           std::to_string(k.m) + " k" + std::to_string(k.kh) + "x" +
                           std::to_string(k.kw) + " g" + std::to_string(k.group);
  kernels::ConvParams p;
  p.spatial = 2;
  p.strides[0] = k.sh;
  p.strides[1] = k.sw;
  p.dilations[0] = k.dh;
  p.dilations[1] = k.dw;
  p.pads_begin[0] = k.pt;
  p.pads_begin[1] = k.pl;
  p.pads_end[0] = k.pb;
  p.pads_end[1] = k.pr;
  p.group = k.group;
  const int64_t oh = (k.h + k.pt + k.pb - (k.kh - 1) * k.dh - 1) / k.sh + 1;
  const int64_t ow = (k.w + k.pl + k.pr - (k.kw - 1) * k.dw - 1) / k.sw + 1;
  auto x = Random(static_cast<size_t>(k.n * k.c * k.h * k.w), seed);
  auto w = Random(static_cast<size_t>(k.m * (k.c / k.group) * k.kh * k.kw), seed + 1);
  auto b = Random(static_cast<size_t>(k.m), seed + 2);
  std::vector<float> want(static_cast<size_t>(k.n * k.m * oh * ow), 0.0f), got(want.size(), 7.0f);
  TensorView xv = F32(x, {k.n, k.c, k.h, k.w}), wv = F32(w, {k.m, k.c / k.group, k.kh, k.kw});
  TensorView bv = F32(b, {k.m});
  TensorView want_v = F32(want, {k.n, k.m, oh, ow}), got_v = F32(got, {k.n, k.m, oh, ow});
  ASSERT_TRUE(kernels::Conv(p, xv, wv, k.bias ? &bv : nullptr, want_v).ok()) << what;
  bool done = false;
  ASSERT_TRUE(BlasConv(p, xv, wv, k.bias ? &bv : nullptr, got_v, /*constant_w=*/false, &done).ok())
      << what;
  ASSERT_EQ(done, HaveBlas()) << what;
  if (!done) return;
  ExpectClose(got, want, static_cast<float>(k.c / k.group * k.kh * k.kw + 1), what);
}

TEST(BlasOps, ConvMatchesReference) {
  const ConvCase cases[] = {
      {1, 3, 17, 19, 8, 7, 7, 2, 2, 1, 1, 3, 3, 3, 3, 1, true},    // ResNet's first layer, small
      {2, 16, 9, 9, 32, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1, true},    // 3x3, batch 2
      {1, 32, 8, 8, 16, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1, false},   // 1x1 read in place
      {1, 32, 8, 8, 16, 1, 1, 2, 2, 1, 1, 0, 0, 0, 0, 1, true},    // strided 1x1: im2col
      {1, 12, 10, 7, 12, 3, 3, 2, 1, 1, 1, 1, 0, 2, 1, 12, true},  // depthwise, asymmetric pads
      {1, 8, 11, 11, 6, 3, 3, 1, 1, 2, 3, 2, 3, 2, 3, 2, true},    // grouped, dilated
      {3, 4, 5, 6, 5, 2, 3, 3, 2, 1, 1, 0, 1, 1, 0, 1, true},      // pads past the stride
      // Winograd F(2x2, 3x3) (winograd_test.cc checks these take it): padded, odd sizes with
      // asymmetric pads (partial tiles), no padding at batch 2.
      {1, 64, 12, 12, 64, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1, true},
      {1, 64, 13, 11, 72, 3, 3, 1, 1, 1, 1, 1, 0, 2, 1, 1, true},
      {2, 64, 14, 14, 64, 3, 3, 1, 1, 1, 1, 0, 0, 0, 0, 1, false},
  };
  uint32_t seed = 1;
  for (const ConvCase& c : cases) CheckConv(c, seed += 10);
}

TEST(BlasOps, GemmMatchesReferenceWithTransposesAndBroadcastC) {
  struct G {
    int64_t m, n, k;
    bool ta, tb;
    int c_kind;  // 0 none, 1 scalar, 2 [N], 3 [M, 1], 4 [M, N]
    float alpha, beta;
  };
  const G cases[] = {{1, 1000, 512, false, true, 2, 1.0f, 1.0f},
                     {7, 5, 9, true, false, 4, 0.5f, 2.0f},
                     {4, 6, 3, true, true, 3, 1.0f, -1.0f},
                     {5, 4, 8, false, false, 1, 2.0f, 0.25f},
                     {3, 3, 3, false, false, 0, 1.0f, 1.0f}};
  uint32_t seed = 100;
  for (const G& g : cases) {
    const std::string what = "gemm " + std::to_string(g.m) + "x" + std::to_string(g.n) + "x" +
                             std::to_string(g.k) + " c_kind " + std::to_string(g.c_kind);
    auto a = Random(static_cast<size_t>(g.m * g.k), seed++);
    auto b = Random(static_cast<size_t>(g.k * g.n), seed++);
    auto c = Random(static_cast<size_t>(g.m * g.n), seed++);
    TensorView av = g.ta ? F32(a, {g.k, g.m}) : F32(a, {g.m, g.k});
    TensorView bv = g.tb ? F32(b, {g.n, g.k}) : F32(b, {g.k, g.n});
    TensorView cv;
    switch (g.c_kind) {
      case 1:
        cv = kernels::View(DType::kF32, c.data(), {});
        break;
      case 2:
        cv = F32(c, {g.n});
        break;
      case 3:
        cv = F32(c, {g.m, 1});
        break;
      case 4:
        cv = F32(c, {g.m, g.n});
        break;
      default:
        break;
    }
    kernels::GemmParams p;
    p.alpha = g.alpha;
    p.beta = g.beta;
    p.trans_a = g.ta;
    p.trans_b = g.tb;
    std::vector<float> want(static_cast<size_t>(g.m * g.n)), got(want.size(), 7.0f);
    const TensorView* cp = g.c_kind == 0 ? nullptr : &cv;
    ASSERT_TRUE(kernels::Gemm(p, av, bv, cp, F32(want, {g.m, g.n})).ok()) << what;
    bool done = false;
    ASSERT_TRUE(BlasGemm(p, av, bv, cp, F32(got, {g.m, g.n}), &done).ok()) << what;
    ASSERT_EQ(done, HaveBlas()) << what;
    if (done) ExpectClose(got, want, static_cast<float>(g.k) * 2.0f + 2.0f, what);
  }
}

TEST(BlasOps, MatMulMatchesReferenceWithBatchBroadcastAndVectors) {
  uint32_t seed = 300;
  auto check = [&](std::initializer_list<int64_t> ad, std::initializer_list<int64_t> bd,
                   std::initializer_list<int64_t> yd, size_t an, size_t bn, size_t yn) {
    auto a = Random(an, seed++);
    auto b = Random(bn, seed++);
    std::vector<float> want(yn), got(yn, 7.0f);
    TensorView av = F32(a, ad), bv = F32(b, bd);
    ASSERT_TRUE(kernels::MatMul(av, bv, F32(want, yd)).ok());
    bool done = false;
    ASSERT_TRUE(BlasMatMul(av, bv, F32(got, yd), &done).ok());
    ASSERT_EQ(done, HaveBlas());
    if (done) ExpectClose(got, want, 64.0f, "matmul");
  };
  check({2, 3, 4, 5}, {5, 6}, {2, 3, 4, 6}, 120, 30, 144);         // b broadcast over batches
  check({3, 1, 4, 5}, {1, 2, 5, 6}, {3, 2, 4, 6}, 60, 60, 144);    // both broadcast
  check({5}, {5, 6}, {6}, 5, 30, 6);                               // 1-D a
  check({4, 5}, {5}, {4}, 20, 5, 4);                               // 1-D b
  check({1, 64, 48}, {1, 48, 32}, {1, 64, 32}, 3072, 1536, 2048);  // one larger product
}

TEST(BlasOps, LeavesOtherCasesToTheReference) {
  std::vector<float> a(6), b(6), y(4);
  std::vector<int32_t> ai(6);
  bool done = true;
  // Inner dimensions differ: the reference reports it.
  ASSERT_TRUE(BlasMatMul(F32(a, {2, 3}), F32(b, {2, 3}), F32(y, {2, 2}), &done).ok());
  EXPECT_FALSE(done);
  // Not f32.
  done = true;
  const TensorView iv = kernels::View(DType::kI32, ai.data(), {2, 3});
  ASSERT_TRUE(BlasMatMul(iv, F32(b, {3, 2}), F32(y, {2, 2}), &done).ok());
  EXPECT_FALSE(done);
  // An empty product.
  done = true;
  std::vector<float> e;
  ASSERT_TRUE(BlasMatMul(F32(a, {2, 0}), F32(e, {0, 2}), F32(y, {2, 2}), &done).ok());
  EXPECT_FALSE(done);
  // Gemm with beta == 0 and a C (the reference computes 0 * c).
  done = true;
  kernels::GemmParams p;
  p.beta = 0.0f;
  const TensorView cv = F32(y, {2, 2});
  std::vector<float> out(4);
  ASSERT_TRUE(BlasGemm(p, F32(a, {2, 3}), F32(b, {3, 2}), &cv, F32(out, {2, 2}), &done).ok());
  EXPECT_FALSE(done);
  // Conv of rank 3 (1-D).
  done = true;
  kernels::ConvParams cp;
  cp.spatial = 1;
  std::vector<float> x(8), w(2), yc(8);
  ASSERT_TRUE(
      BlasConv(cp, F32(x, {1, 1, 8}), F32(w, {1, 1, 2}), nullptr, F32(yc, {1, 1, 7}), false, &done)
          .ok());
  EXPECT_FALSE(done);
}

}  // namespace
}  // namespace loom::interp
