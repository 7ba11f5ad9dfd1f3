// Einsum: matmul, transpose, diagonal, a full sum, broadcasting, and spec checks.
#include <gtest/gtest.h>

#include "runtime/kernels/kernel_test_util.h"
#include "runtime/kernels/kernels_reduce.h"

namespace loom::kernels {
namespace {

using testing::Buf;

Status RunEinsum(std::vector<int64_t> labels, std::vector<int64_t> out, std::vector<TensorView> in,
                 const TensorView& y) {
  std::vector<const TensorView*> ptrs;
  for (const TensorView& v : in) ptrs.push_back(&v);
  EinsumSpec s;
  LOOM_RETURN_IF_ERROR(EinsumSpecFrom(labels.data(), labels.size(), out.data(), out.size(),
                                      ptrs.data(), static_cast<int>(ptrs.size()), &s));
  return Einsum(s, ptrs.data(), static_cast<int>(ptrs.size()), y);
}

TEST(Einsum, MatMulTransposeDiagonalSum) {
  Buf<double> a({2, 3}, {1, 2, 3, 4, 5, 6});
  Buf<double> b({3, 2}, {1, 0, 0, 1, 1, 1});
  Buf<double> mm({2, 2});
  ASSERT_TRUE(RunEinsum({0, 1, 1, 2}, {0, 2}, {a.view(), b.view()}, mm.view()).ok());  // ij,jk->ik
  EXPECT_EQ(mm.data, (std::vector<double>{4, 5, 10, 11}));
  Buf<double> t({3, 2});
  ASSERT_TRUE(RunEinsum({0, 1}, {1, 0}, {a.view()}, t.view()).ok());  // ij->ji
  EXPECT_EQ(t.data, (std::vector<double>{1, 4, 2, 5, 3, 6}));
  Buf<double> sq({2, 2}, {1, 2, 3, 4});
  Buf<double> diag({2});
  ASSERT_TRUE(RunEinsum({0, 0}, {0}, {sq.view()}, diag.view()).ok());  // ii->i
  EXPECT_EQ(diag.data, (std::vector<double>{1, 4}));
  Buf<double> all({});
  ASSERT_TRUE(RunEinsum({0, 1}, {}, {a.view()}, all.view()).ok());  // ij->
  EXPECT_EQ(all.data[0], 21);
}

TEST(Einsum, BroadcastAndChecks) {
  Buf<float> a({1, 3}, {1, 2, 3});
  Buf<float> b({2, 3}, {1, 1, 1, 2, 2, 2});
  Buf<float> y({2});
  ASSERT_TRUE(RunEinsum({0, 1, 0, 1}, {0}, {a.view(), b.view()}, y.view()).ok());  // ij,ij->i
  EXPECT_EQ(y.data, (std::vector<float>{6, 12}));
  Buf<float> c({2, 4});
  EXPECT_FALSE(RunEinsum({0, 1, 0, 1}, {0}, {b.view(), c.view()}, y.view()).ok());  // 3 vs 4
  EXPECT_FALSE(RunEinsum({0, 1}, {0, 0}, {b.view()}, c.view()).ok());  // y names i twice
  EXPECT_FALSE(RunEinsum({0}, {0}, {b.view()}, y.view()).ok());        // too few labels
  EXPECT_FALSE(RunEinsum({0, 99}, {0}, {b.view()}, y.view()).ok());    // label out of range
}

}  // namespace
}  // namespace loom::kernels
