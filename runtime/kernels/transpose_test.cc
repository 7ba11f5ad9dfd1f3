// Transpose: every permutation of a 3-D tensor against index arithmetic, and bad permutations.
#include <gtest/gtest.h>

#include <algorithm>

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
