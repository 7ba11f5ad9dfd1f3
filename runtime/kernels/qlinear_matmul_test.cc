// QLinearMatMul: the ONNX spec's 2-D u8 example, and i8 operands against the explicit
// integer-then-requantize formula.
#include <gtest/gtest.h>

#include <cmath>

#include "runtime/kernels/kernel_test_util.h"
#include "runtime/kernels/kernels.h"

namespace loom::kernels {
namespace {

using testing::Buf;

TEST(QLinearMatMul, OnnxSpecExample) {
  Buf<uint8_t> a({2, 4}, {208, 236, 0, 238, 3, 214, 255, 29});
  Buf<float> as({}, {0.0066f});
  Buf<uint8_t> az({}, {113});
  Buf<uint8_t> b({4, 3}, {152, 51, 244, 60, 26, 255, 0, 127, 246, 127, 254, 247});
  Buf<float> bs({}, {0.00705f});
  Buf<uint8_t> bz({}, {114});
  Buf<float> ys({}, {0.0107f});
  Buf<uint8_t> yz({}, {118});
  Buf<uint8_t> y({2, 3});
  TensorView asv = as.view(), azv = az.view(), bsv = bs.view(), bzv = bz.view();
  TensorView ysv = ys.view(), yzv = yz.view();
  ASSERT_TRUE(
      QLinearMatMul(a.view(), {&asv, &azv}, b.view(), {&bsv, &bzv}, {&ysv, &yzv}, y.view()).ok());
  EXPECT_EQ(y.data, (std::vector<uint8_t>{168, 115, 255, 1, 66, 151}));
}

TEST(QLinearMatMul, SignedMatchesFormula) {
  Buf<int8_t> a({3, 4}, {-128, -50, 0, 7, 127, 3, -9, 100, 1, 2, 3, 4});
  Buf<int8_t> b({4, 2}, {5, -6, 7, -8, 9, 10, -11, 12});
  Buf<float> as({}, {0.1f}), bs({}, {0.2f}), ys({}, {0.3f});
  Buf<int8_t> az({}, {-1}), bz({}, {2}), yz({}, {-5});
  Buf<int8_t> y({3, 2});
  TensorView asv = as.view(), azv = az.view(), bsv = bs.view(), bzv = bz.view();
  TensorView ysv = ys.view(), yzv = yz.view();
  ASSERT_TRUE(
      QLinearMatMul(a.view(), {&asv, &azv}, b.view(), {&bsv, &bzv}, {&ysv, &yzv}, y.view()).ok());
  const float mult = 0.1f * 0.2f / 0.3f;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 2; ++j) {
      int32_t acc = 0;
      for (int k = 0; k < 4; ++k) acc += (a.data[i * 4 + k] + 1) * (b.data[k * 2 + j] - 2);
      float v = RoundHalfToEven(static_cast<float>(acc) * mult) - 5;
      v = std::fmin(127.0f, std::fmax(-128.0f, v));
      EXPECT_EQ(y.data[i * 2 + j], static_cast<int8_t>(v)) << i << "," << j;
    }
}

}  // namespace
}  // namespace loom::kernels
