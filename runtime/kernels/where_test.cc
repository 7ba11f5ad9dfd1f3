// Where: three-way broadcasting, any value type, and the checks on the condition and types.
#include <gtest/gtest.h>

#include "runtime/kernels/kernel_test_util.h"
#include "runtime/kernels/kernels_math.h"

namespace loom::kernels {
namespace {

using testing::Buf;

TEST(Where, BroadcastsAllThree) {
  std::vector<uint8_t> c = {1, 0};  // [2, 1]
  TensorView cv;
  const int64_t cdims[] = {2, 1};
  ASSERT_TRUE(MakeView(DType::kBool, c.data(), cdims, 2, &cv).ok());
  Buf<int64_t> a({3}, {1, 2, 3});
  Buf<int64_t> b({}, {-1});
  Buf<int64_t> y({2, 3});
  ASSERT_TRUE(Where(cv, a.view(), b.view(), y.view()).ok());
  EXPECT_EQ(y.data, (std::vector<int64_t>{1, 2, 3, -1, -1, -1}));
}

TEST(Where, Errors) {
  Buf<float> c({2}, {1, 0});
  Buf<float> a({2}, {1, 2});
  Buf<float> y({2});
  EXPECT_EQ(Where(c.view(), a.view(), a.view(), y.view()).message(),
            "Where: the condition is f32, must be bool");
  std::vector<uint8_t> cb = {1, 0};
  TensorView cv;
  const int64_t two[] = {2};
  ASSERT_TRUE(MakeView(DType::kBool, cb.data(), two, 1, &cv).ok());
  Buf<int32_t> other({2}, {1, 2});
  EXPECT_FALSE(Where(cv, a.view(), other.view(), y.view()).ok());
  Buf<float> three({3});
  EXPECT_FALSE(Where(cv, a.view(), a.view(), three.view()).ok());
}

}  // namespace
}  // namespace loom::kernels
