// Winograd F(2x2, 3x3) (compiler/interp/winograd.h): which layers take it, the result against a
// direct sum for every padding and partial tile, and the weight transforms a ReuseConstantWork
// keeps. blas_ops_test.cc runs the same shapes through BlasConv against the reference kernel.
#include "compiler/interp/winograd.h"

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "compiler/interp/interpreter.h"

namespace loom::interp {
namespace {

std::vector<float> Random(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> d(-1.0f, 1.0f);
  std::vector<float> v(n);
  for (float& x : v) x = d(rng);
  return v;
}

// The direct sum in double.
std::vector<float> Direct(const Winograd3x3Shape& s, const std::vector<float>& x,
                          const std::vector<float>& w, const std::vector<float>& b) {
  std::vector<float> y(static_cast<size_t>(s.m * s.oh * s.ow));
  for (int64_t m = 0; m < s.m; ++m) {
    for (int64_t oy = 0; oy < s.oh; ++oy) {
      for (int64_t ox = 0; ox < s.ow; ++ox) {
        double acc = b[static_cast<size_t>(m)];
        for (int64_t c = 0; c < s.c; ++c) {
          for (int64_t ky = 0; ky < 3; ++ky) {
            for (int64_t kx = 0; kx < 3; ++kx) {
              const int64_t iy = oy + ky - s.pt, ix = ox + kx - s.pl;
              if (iy < 0 || iy >= s.h || ix < 0 || ix >= s.w) continue;
              acc +=
                  static_cast<double>(w[static_cast<size_t>(((m * s.c + c) * 3 + ky) * 3 + kx)]) *
                  x[static_cast<size_t>((c * s.h + iy) * s.w + ix)];
            }
          }
        }
        y[static_cast<size_t>((m * s.oh + oy) * s.ow + ox)] = static_cast<float>(acc);
      }
    }
  }
  return y;
}

Winograd3x3Shape Shape(int64_t c, int64_t h, int64_t w, int64_t m, int64_t pt, int64_t pl,
                       int64_t pb, int64_t pr) {
  Winograd3x3Shape s;
  s.c = c, s.h = h, s.w = w, s.m = m, s.pt = pt, s.pl = pl;
  s.oh = h + pt + pb - 2;
  s.ow = w + pl + pr - 2;
  return s;
}

void ExpectNear(const std::vector<float>& got, const std::vector<float>& want, float tol,
                const std::string& what) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) ASSERT_NEAR(got[i], want[i], tol) << what << " " << i;
}

TEST(Winograd, TakesLargeLayersOnly) {
  EXPECT_TRUE(WinogradPays(Shape(64, 56, 56, 64, 1, 1, 1, 1)));    // ResNet-18 layer1
  EXPECT_TRUE(WinogradPays(Shape(256, 14, 14, 256, 1, 1, 1, 1)));  // layer3
  EXPECT_FALSE(WinogradPays(Shape(512, 7, 7, 512, 1, 1, 1, 1)));   // layer4: 16 tiles
  EXPECT_FALSE(WinogradPays(Shape(16, 56, 56, 16, 1, 1, 1, 1)));   // few channels
  // The shapes blas_ops_test.cc runs through BlasConv take it.
  EXPECT_TRUE(WinogradPays(Shape(64, 12, 12, 64, 1, 1, 1, 1)));
  EXPECT_TRUE(WinogradPays(Shape(64, 13, 11, 72, 1, 0, 2, 1)));
  EXPECT_TRUE(WinogradPays(Shape(64, 14, 14, 64, 0, 0, 0, 0)));
}

TEST(Winograd, MatchesDirectSum) {
  // Small channel counts are fine here (WinogradPays only decides speed); sizes that leave
  // partial tiles, pads of 0-2 on every side, rows longer than one 16-tile chunk.
  const Winograd3x3Shape shapes[] = {
      Shape(3, 8, 8, 4, 1, 1, 1, 1), Shape(2, 7, 9, 3, 0, 2, 1, 0),
      Shape(5, 5, 5, 2, 2, 2, 2, 2), Shape(4, 6, 40, 5, 1, 1, 1, 1),
      Shape(1, 3, 3, 1, 0, 0, 0, 0), Shape(6, 11, 37, 7, 2, 0, 0, 2)};
  uint32_t seed = 5;
  for (const Winograd3x3Shape& s : shapes) {
    const std::string what = "c" + std::to_string(s.c) + " " + std::to_string(s.h) + "x" +
                             std::to_string(s.w) + " pads " + std::to_string(s.pt) + "," +
                             std::to_string(s.pl);
    const auto x = Random(static_cast<size_t>(s.c * s.h * s.w), seed++);
    const auto w = Random(static_cast<size_t>(s.m * s.c * 9), seed++);
    const auto b = Random(static_cast<size_t>(s.m), seed++);
    std::vector<float> y(static_cast<size_t>(s.m * s.oh * s.ow), 99.0f);
    Winograd3x3(s, x.data(), w.data(), b.data(), y.data(), false);
    ExpectNear(y, Direct(s, x, w, b), 1e-5f * static_cast<float>(9 * s.c + 1), what);
  }
}

TEST(Winograd, ReuseConstantWorkKeepsOnlyConstantWeights) {
  const Winograd3x3Shape s = Shape(4, 9, 9, 3, 1, 1, 1, 1);
  const auto x = Random(static_cast<size_t>(s.c * s.h * s.w), 1);
  auto w = Random(static_cast<size_t>(s.m * s.c * 9), 2);
  const std::vector<float> b(static_cast<size_t>(s.m), 0.0f);
  std::vector<float> y(static_cast<size_t>(s.m * s.oh * s.ow));
  const float tol = 1e-5f * static_cast<float>(9 * s.c + 1);
  {
    const ReuseConstantWork reuse;
    Winograd3x3(s, x.data(), w.data(), b.data(), y.data(), true);
    ExpectNear(y, Direct(s, x, w, b), tol, "first call");
    const auto kept = w;
    for (float& v : w) v = -v;  // a non-constant w at the same address: transformed afresh
    Winograd3x3(s, x.data(), w.data(), b.data(), y.data(), false);
    ExpectNear(y, Direct(s, x, w, b), tol, "not constant");
    // A constant w is not transformed again while the scope lives (its contract: constants do not
    // change), so the kept transform of the first weights answers.
    Winograd3x3(s, x.data(), w.data(), b.data(), y.data(), true);
    ExpectNear(y, Direct(s, x, kept, b), tol, "kept");
  }
  // The scope is gone: nothing is kept.
  Winograd3x3(s, x.data(), w.data(), b.data(), y.data(), true);
  ExpectNear(y, Direct(s, x, w, b), tol, "after the scope");
}

}  // namespace
}  // namespace loom::interp
