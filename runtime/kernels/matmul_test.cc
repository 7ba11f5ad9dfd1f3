// MatMul: 2-D, batched with broadcasting, and 1-D promotion on either side.
#include <gtest/gtest.h>

#include "runtime/kernels/kernel_test_util.h"
#include "runtime/kernels/kernels.h"

namespace loom::kernels {
namespace {

using testing::Buf;
using testing::RandomFloats;

TEST(MatMul, TwoD) {
  Buf<float> a({2, 3}, {1, 2, 3, 4, 5, 6});
  Buf<float> b({3, 2}, {7, 8, 9, 10, 11, 12});
  Buf<float> y({2, 2});
  ASSERT_TRUE(MatMul(a.view(), b.view(), y.view()).ok());
  EXPECT_EQ(y.data, (std::vector<float>{58, 64, 139, 154}));
}

TEST(MatMul, BatchBroadcast) {
  // a [2, 1, 2, 3] x b [3, 3, 2] -> [2, 3, 2, 2]; each output matrix uses a[i, 0] and b[j].
  Buf<float> a({2, 1, 2, 3}, RandomFloats(12, 1));
  Buf<float> b({3, 3, 2}, RandomFloats(18, 2));
  Buf<float> y({2, 3, 2, 2});
  ASSERT_TRUE(MatMul(a.view(), b.view(), y.view()).ok());
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 3; ++j)
      for (int r = 0; r < 2; ++r)
        for (int c = 0; c < 2; ++c) {
          float acc = 0;
          for (int k = 0; k < 3; ++k) acc += a.data[i * 6 + r * 3 + k] * b.data[j * 6 + k * 2 + c];
          EXPECT_NEAR(y.data[((i * 3 + j) * 2 + r) * 2 + c], acc, 1e-6f);
        }
}

TEST(MatMul, OneDimensionalOperands) {
  Buf<float> v({3}, {1, 2, 3});
  Buf<float> m({3, 2}, {1, 0, 0, 1, 1, 1});
  Buf<float> row({2});
  ASSERT_TRUE(MatMul(v.view(), m.view(), row.view()).ok());  // [3] x [3,2] -> [2]
  EXPECT_EQ(row.data, (std::vector<float>{4, 5}));
  Buf<float> mt({2, 3}, {1, 0, 1, 0, 1, 1});
  Buf<float> col({2});
  ASSERT_TRUE(MatMul(mt.view(), v.view(), col.view()).ok());  // [2,3] x [3] -> [2]
  EXPECT_EQ(col.data, (std::vector<float>{4, 5}));
  Buf<float> dot({});
  ASSERT_TRUE(MatMul(v.view(), v.view(), dot.view()).ok());  // [3] x [3] -> []
  EXPECT_EQ(dot.data[0], 14.0f);
  Buf<float> wrong({2, 1});
  EXPECT_FALSE(MatMul(v.view(), m.view(), wrong.view()).ok());
}

}  // namespace
}  // namespace loom::kernels
