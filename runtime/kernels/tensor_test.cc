// The view helpers every kernel relies on: row-major strides, broadcasting rules and the ONNX
// rounding mode.
#include "runtime/kernels/tensor.h"

#include <gtest/gtest.h>

#include <cmath>

namespace loom::kernels {
namespace {

TEST(TensorView, RowMajorStrides) {
  float data[24] = {};
  TensorView v = View(DType::kF32, data, {2, 3, 4});
  ASSERT_EQ(v.rank, 3);
  EXPECT_EQ(v.strides[0], 12);
  EXPECT_EQ(v.strides[1], 4);
  EXPECT_EQ(v.strides[2], 1);
  EXPECT_EQ(v.NumElements(), 24);
}

TEST(TensorView, RejectsTooManyDimsAndNegativeDims) {
  int64_t dims[kMaxRank + 1] = {1, 1, 1, 1, 1, 1, 1, 1, 1};
  TensorView v;
  EXPECT_FALSE(MakeView(DType::kF32, nullptr, dims, kMaxRank + 1, &v).ok());
  int64_t neg[2] = {2, -1};
  EXPECT_FALSE(MakeView(DType::kF32, nullptr, neg, 2, &v).ok());
}

TEST(TensorView, BroadcastShapes) {
  TensorView a = View(DType::kF32, nullptr, {2, 1, 4});
  TensorView b = View(DType::kF32, nullptr, {3, 1});
  int64_t dims[kMaxRank];
  int rank = 0;
  ASSERT_TRUE(BroadcastShapes(a, b, dims, &rank).ok());
  ASSERT_EQ(rank, 3);
  EXPECT_EQ(dims[0], 2);
  EXPECT_EQ(dims[1], 3);
  EXPECT_EQ(dims[2], 4);
  int64_t st[kMaxRank];
  BroadcastStrides(b, 3, st);
  EXPECT_EQ(st[0], 0);  // missing leading dim
  EXPECT_EQ(st[1], 1);
  EXPECT_EQ(st[2], 0);  // size-1 dim broadcast
  TensorView c = View(DType::kF32, nullptr, {3});
  Status s = BroadcastShapes(a, c, dims, &rank);
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("f32[2,1,4] and f32[3]"), std::string::npos) << s.message();
}

TEST(TensorView, IndexWalkerFollowsStrides) {
  IndexWalker<1> w;
  w.rank = 2;
  w.shape[0] = 2;
  w.shape[1] = 3;
  w.strides[0][0] = 1;  // read a [3, 2] buffer transposed
  w.strides[0][1] = 2;
  int64_t got[6];
  for (int i = 0; i < 6; ++i, w.Next()) got[i] = w.offset[0];
  const int64_t want[6] = {0, 2, 4, 1, 3, 5};
  for (int i = 0; i < 6; ++i) EXPECT_EQ(got[i], want[i]) << i;
}

TEST(RoundHalfToEven, TiesGoToEven) {
  EXPECT_EQ(RoundHalfToEven(0.5f), 0.0f);
  EXPECT_EQ(RoundHalfToEven(1.5f), 2.0f);
  EXPECT_EQ(RoundHalfToEven(2.5f), 2.0f);
  EXPECT_EQ(RoundHalfToEven(-0.5f), 0.0f);
  EXPECT_EQ(RoundHalfToEven(-1.5f), -2.0f);
  EXPECT_EQ(RoundHalfToEven(-2.5f), -2.0f);
  EXPECT_EQ(RoundHalfToEven(2.4999f), 2.0f);
  EXPECT_EQ(RoundHalfToEven(2.5001f), 3.0f);
  EXPECT_EQ(RoundHalfToEven(16777216.0f), 16777216.0f);
}

TEST(TensorView, RejectsDimsThatMultiplyPast64Bits) {
  // Even with no elements: an empty [0, 2^32, 2^32] has row strides past int64.
  TensorView v;
  const int64_t empty[3] = {0, int64_t{1} << 32, int64_t{1} << 32};
  EXPECT_FALSE(MakeView(DType::kF32, nullptr, empty, 3, &v).ok());
  const int64_t big[2] = {int64_t{1} << 31, int64_t{1} << 31};  // 2^62 elements: fits
  EXPECT_TRUE(MakeView(DType::kF32, nullptr, big, 2, &v).ok());
  EXPECT_EQ(v.NumElements(), int64_t{1} << 62);
}

}  // namespace
}  // namespace loom::kernels
