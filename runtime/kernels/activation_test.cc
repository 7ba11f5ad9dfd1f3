// Activations: Relu/Clip on float and integer types, LeakyRelu, Sigmoid at extreme inputs, and
// in-place operation (how the fused epilogues run).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "runtime/kernels/kernel_test_util.h"
#include "runtime/kernels/kernels.h"

namespace loom::kernels {
namespace {

using testing::Buf;

TEST(Activation, ReluFloatAndInt8) {
  Buf<float> x({4}, {-1.5f, 0.0f, 2.0f, -0.0f});
  Buf<float> y({4});
  ActivationParams p{ActivationKind::kRelu};
  ASSERT_TRUE(Activation(p, x.view(), y.view()).ok());
  EXPECT_EQ(y.data, (std::vector<float>{0, 0, 2, 0}));
  Buf<int8_t> xi({3}, {-128, 5, 127});
  Buf<int8_t> yi({3});
  ASSERT_TRUE(Activation(p, xi.view(), yi.view()).ok());
  EXPECT_EQ(yi.data, (std::vector<int8_t>{0, 5, 127}));
}

TEST(Activation, ClipInPlaceAndInteger) {
  Buf<float> x({5}, {-3, -1, 0, 1, 3});
  ActivationParams p{ActivationKind::kClip};
  p.min = -1.5;
  p.max = 0.5;
  ASSERT_TRUE(Activation(p, x.view(), x.view()).ok());  // in place
  EXPECT_EQ(x.data, (std::vector<float>{-1.5f, -1, 0, 0.5f, 0.5f}));
  Buf<uint8_t> xu({3}, {0, 100, 255});
  p.min = 10;
  p.max = 200;
  ASSERT_TRUE(Activation(p, xu.view(), xu.view()).ok());
  EXPECT_EQ(xu.data, (std::vector<uint8_t>{10, 100, 200}));
  p.min = 3;
  p.max = 2;
  EXPECT_FALSE(Activation(p, xu.view(), xu.view()).ok());
}

TEST(Activation, LeakyReluAndSigmoid) {
  Buf<float> x({4}, {-2.0f, 0.0f, 3.0f, -100.0f});
  Buf<float> y({4});
  ActivationParams lp{ActivationKind::kLeakyRelu, 0.1f};
  ASSERT_TRUE(Activation(lp, x.view(), y.view()).ok());
  EXPECT_FLOAT_EQ(y.data[0], -0.2f);
  EXPECT_FLOAT_EQ(y.data[2], 3.0f);
  EXPECT_FLOAT_EQ(y.data[3], -10.0f);
  Buf<float> big({4}, {0.0f, 100.0f, -100.0f, 1.0f});
  ASSERT_TRUE(Activation(ActivationParams{ActivationKind::kSigmoid}, big.view(), y.view()).ok());
  EXPECT_FLOAT_EQ(y.data[0], 0.5f);
  EXPECT_FLOAT_EQ(y.data[1], 1.0f);
  EXPECT_GE(y.data[2], 0.0f);  // no NaN from exp overflow
  EXPECT_LT(y.data[2], 1e-40f);
  EXPECT_FLOAT_EQ(y.data[3], 1.0f / (1.0f + std::exp(-1.0f)));
  Buf<int8_t> xi({1}, {1});
  Buf<int8_t> yi({1});
  EXPECT_FALSE(Activation(ActivationParams{ActivationKind::kSigmoid}, xi.view(), yi.view()).ok());
}

}  // namespace
}  // namespace loom::kernels
