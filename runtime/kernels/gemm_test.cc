// Gemm: every transpose combination against a direct triple loop, alpha/beta, and each way C can
// broadcast.
#include <gtest/gtest.h>

#include "runtime/kernels/kernel_test_util.h"
#include "runtime/kernels/kernels.h"

namespace loom::kernels {
namespace {

using testing::Buf;
using testing::RandomFloats;

class GemmTranspose : public ::testing::TestWithParam<std::tuple<bool, bool>> {};

TEST_P(GemmTranspose, MatchesTripleLoop) {
  const auto [ta, tb] = GetParam();
  const int64_t m = 3, k = 5, n = 4;
  Buf<float> a(ta ? std::vector<int64_t>{k, m} : std::vector<int64_t>{m, k}, RandomFloats(15, 1));
  Buf<float> b(tb ? std::vector<int64_t>{n, k} : std::vector<int64_t>{k, n}, RandomFloats(20, 2));
  Buf<float> c({m, n}, RandomFloats(12, 3));
  Buf<float> y({m, n});
  GemmParams p{0.5f, 2.0f, ta, tb};
  TensorView cv = c.view();
  ASSERT_TRUE(Gemm(p, a.view(), b.view(), &cv, y.view()).ok());
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      float acc = 0;
      for (int64_t kk = 0; kk < k; ++kk) {
        const float av = ta ? a.data[kk * m + i] : a.data[i * k + kk];
        const float bv = tb ? b.data[j * k + kk] : b.data[kk * n + j];
        acc += av * bv;
      }
      EXPECT_NEAR(y.data[i * n + j], 0.5f * acc + 2.0f * c.data[i * n + j], 1e-5f);
    }
}

INSTANTIATE_TEST_SUITE_P(All, GemmTranspose,
                         ::testing::Combine(::testing::Bool(), ::testing::Bool()));

TEST(Gemm, BiasBroadcasts) {
  // A = I (2x2), B = [[1,2],[3,4]], so A*B = B and Y = B + C broadcast.
  Buf<float> a({2, 2}, {1, 0, 0, 1});
  Buf<float> b({2, 2}, {1, 2, 3, 4});
  Buf<float> y({2, 2});
  struct BiasCase {
    std::vector<int64_t> shape;
    std::vector<float> data;
    std::vector<float> want;
  };
  const BiasCase cases[] = {
      {{}, {10}, {11, 12, 13, 14}},          // scalar
      {{2}, {10, 20}, {11, 22, 13, 24}},     // [N]
      {{2, 1}, {10, 20}, {11, 12, 23, 24}},  // [M, 1]
      {{1, 2}, {10, 20}, {11, 22, 13, 24}},  // [1, N]
  };
  for (const BiasCase& bc : cases) {
    Buf<float> c(bc.shape, bc.data);
    TensorView cv = c.view();
    ASSERT_TRUE(Gemm(GemmParams(), a.view(), b.view(), &cv, y.view()).ok());
    EXPECT_EQ(y.data, bc.want);
  }
  ASSERT_TRUE(Gemm(GemmParams(), a.view(), b.view(), nullptr, y.view()).ok());
  EXPECT_EQ(y.data, b.data);
  Buf<float> bad({3}, {1, 2, 3});
  TensorView badv = bad.view();
  EXPECT_FALSE(Gemm(GemmParams(), a.view(), b.view(), &badv, y.view()).ok());
}

}  // namespace
}  // namespace loom::kernels
