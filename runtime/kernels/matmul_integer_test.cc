// MatMulInteger: the ONNX spec example (u8 with zero points), per-row/per-column zero points, and
// i32 wrap-around instead of undefined overflow.
#include <gtest/gtest.h>

#include "runtime/kernels/kernel_test_util.h"
#include "runtime/kernels/kernels.h"

namespace loom::kernels {
namespace {

using testing::Buf;

TEST(MatMulInteger, OnnxSpecExample) {
  Buf<uint8_t> a({4, 3}, {11, 7, 3, 10, 6, 2, 9, 5, 1, 8, 4, 0});
  Buf<uint8_t> az({}, {12});
  Buf<uint8_t> b({3, 2}, {1, 4, 2, 5, 3, 6});
  Buf<uint8_t> bz({}, {0});
  Buf<int32_t> y({4, 2});
  TensorView azv = az.view(), bzv = bz.view();
  ASSERT_TRUE(MatMulInteger(a.view(), b.view(), &azv, &bzv, y.view()).ok());
  EXPECT_EQ(y.data, (std::vector<int32_t>{-38, -83, -44, -98, -50, -113, -56, -128}));
}

TEST(MatMulInteger, PerRowAndPerColumnZeroPoints) {
  Buf<int8_t> a({2, 2}, {1, 2, 3, 4});
  Buf<int8_t> az({2}, {1, 3});  // row 0 becomes [0, 1], row 1 [0, 1]
  Buf<int8_t> b({2, 2}, {5, 6, 7, 8});
  Buf<int8_t> bz({2}, {5, 6});  // both columns become [0, 2]: b - bz = [[0, 0], [2, 2]]
  Buf<int32_t> y({2, 2});
  TensorView azv = az.view(), bzv = bz.view();
  ASSERT_TRUE(MatMulInteger(a.view(), b.view(), &azv, &bzv, y.view()).ok());
  EXPECT_EQ(y.data, (std::vector<int32_t>{2, 2, 2, 2}));
}

TEST(MatMulInteger, LongSumsStayExact) {
  // 255 * 255 * 4096 = 266,342,400 < 2^31: exact; the accumulator must not be 16-bit or float.
  const int64_t k = 4096;
  Buf<uint8_t> a({1, k}, std::vector<uint8_t>(k, 255));
  Buf<uint8_t> b({k, 1}, std::vector<uint8_t>(k, 255));
  Buf<int32_t> y({1, 1});
  ASSERT_TRUE(MatMulInteger(a.view(), b.view(), nullptr, nullptr, y.view()).ok());
  EXPECT_EQ(y.data[0], 266342400);
}

}  // namespace
}  // namespace loom::kernels
