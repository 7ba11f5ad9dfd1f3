// Transpose: every permutation of a 3-D tensor against index arithmetic, every element size
// (1, 2, 4, 8 bytes) on the first layer's 6-D space-to-depth and on runs with and without a
// contiguous innermost axis, ranks 0 and 1, and bad permutations.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <vector>

#include "runtime/kernels/kernel_test_util.h"
#include "runtime/kernels/kernels.h"

namespace loom::kernels {
namespace {

using testing::Buf;

TEST(Transpose, AllPermutationsOf3D) {
  const int64_t dims[3] = {2, 3, 4};
  Buf<int8_t> x({2, 3, 4});
  for (int i = 0; i < 24; ++i) x.data[i] = static_cast<int8_t>(i);
  int64_t perm[3] = {0, 1, 2};
  do {
    Buf<int8_t> y({dims[perm[0]], dims[perm[1]], dims[perm[2]]});
    ASSERT_TRUE(Transpose(x.view(), perm, y.view()).ok());
    for (int64_t a = 0; a < y.shape[0]; ++a)
      for (int64_t b = 0; b < y.shape[1]; ++b)
        for (int64_t c = 0; c < y.shape[2]; ++c) {
          int64_t src[3];
          src[perm[0]] = a;
          src[perm[1]] = b;
          src[perm[2]] = c;
          EXPECT_EQ(y.data[(a * y.shape[1] + b) * y.shape[2] + c],
                    x.data[(src[0] * 3 + src[1]) * 4 + src[2]]);
        }
  } while (std::next_permutation(perm, perm + 3));
}

// y[i] = x[permuted index] by index arithmetic, for any rank.
template <typename T>
void ExpectTransposed(const std::vector<int64_t>& shape, const std::vector<int64_t>& perm) {
  Buf<T> x(shape);
  for (size_t i = 0; i < x.data.size(); ++i) x.data[i] = static_cast<T>(i * 7 + 3);
  std::vector<int64_t> ys(shape.size());
  for (size_t i = 0; i < shape.size(); ++i) ys[i] = shape[static_cast<size_t>(perm[i])];
  Buf<T> y(ys);
  ASSERT_TRUE(Transpose(x.view(), perm.data(), y.view()).ok());
  const int rank = static_cast<int>(shape.size());
  std::vector<int64_t> idx(shape.size(), 0);
  for (size_t i = 0; i < y.data.size(); ++i) {
    int64_t src = 0;  // x's offset of y's index idx: axis perm[d] of x is axis d of y
    std::vector<int64_t> xi(shape.size());
    for (int d = 0; d < rank; ++d) xi[static_cast<size_t>(perm[d])] = idx[d];
    for (int d = 0; d < rank; ++d) src = src * shape[d] + xi[d];
    ASSERT_EQ(y.data[i], x.data[static_cast<size_t>(src)]) << "element " << i;
    for (int d = rank - 1; d >= 0 && ++idx[d] == ys[d]; --d) idx[d] = 0;
  }
}

TEST(Transpose, EveryElementSizeAndRun) {
  const std::vector<int64_t> s2d = {1, 3, 6, 2, 5, 2}, s2d_perm = {0, 1, 3, 5, 2, 4};
  ExpectTransposed<int8_t>(s2d, s2d_perm);
  ExpectTransposed<int16_t>(s2d, s2d_perm);
  ExpectTransposed<float>(s2d, s2d_perm);
  ExpectTransposed<int64_t>(s2d, s2d_perm);
  // The innermost axis stays innermost (a contiguous run copied at once).
  ExpectTransposed<float>({3, 4, 5}, {1, 0, 2});
  ExpectTransposed<int64_t>({2, 3, 4, 5}, {2, 0, 1, 3});
  ExpectTransposed<int16_t>({7}, {0});
  ExpectTransposed<float>({1, 1, 9}, {2, 1, 0});
  Buf<float> x0({}), y0({});
  x0.data = {2.5f};
  const int64_t none[1] = {0};
  ASSERT_TRUE(Transpose(x0.view(), none, y0.view()).ok());
  EXPECT_EQ(y0.data[0], 2.5f);
}

TEST(Transpose, RejectsBadPerm) {
  Buf<float> x({2, 3});
  Buf<float> y({3, 2});
  const int64_t dup[2] = {0, 0};
  EXPECT_FALSE(Transpose(x.view(), dup, y.view()).ok());
  const int64_t same[2] = {0, 1};  // y's shape does not match
  EXPECT_FALSE(Transpose(x.view(), same, y.view()).ok());
}

}  // namespace
}  // namespace loom::kernels
