// BatchNormalization in training mode: y and the updated running statistics against ONNX's
// reference implementation (momentum 0.8, epsilon 1e-3), optional outputs, shape checks.
#include <gtest/gtest.h>

#include "runtime/kernels/kernel_test_util.h"
#include "runtime/kernels/kernels_vision2.h"

namespace loom::kernels {
namespace {

using testing::Buf;

TEST(BatchNormTraining, MatchesOnnxReference) {
  Buf<float> x({2, 2, 3});
  for (size_t i = 0; i < x.data.size(); ++i) x.data[i] = (static_cast<float>(i) - 4) / 3;
  Buf<float> s({2}, {1.5f, 0.5f}), b({2}, {0.1f, -0.2f}), m({2}, {0.3f, -1}), v({2}, {2, 0.5f});
  Buf<float> y({2, 2, 3}), rm({2}), rv({2});
  const TensorView rmv = rm.view(), rvv = rv.view();
  ASSERT_TRUE(BatchNormTraining(x.view(), s.view(), b.view(), m.view(), v.view(), 1e-3f, 0.8f,
                                y.view(), &rmv, &rvv)
                  .ok());
  const std::vector<float> want = {-1.828905f, -1.346678f, -0.864452f, -0.842968f,
                                   -0.682226f, -0.521484f, 1.064453f,  1.546679f,
                                   2.028905f,  0.121484f,  0.282226f,  0.442968f};
  for (size_t i = 0; i < want.size(); ++i) EXPECT_NEAR(y.data[i], want[i], 1e-5) << i;
  EXPECT_NEAR(rm.data[0], 0.24f, 1e-6);
  EXPECT_NEAR(rm.data[1], -0.6f, 1e-6);
  EXPECT_NEAR(rv.data[0], 1.814815f, 1e-5);
  EXPECT_NEAR(rv.data[1], 0.614815f, 1e-5);
  // The running statistics are optional outputs.
  Buf<float> y2({2, 2, 3});
  ASSERT_TRUE(BatchNormTraining(x.view(), s.view(), b.view(), m.view(), v.view(), 1e-3f, 0.8f,
                                y2.view(), nullptr, nullptr)
                  .ok());
  EXPECT_EQ(y2.data, y.data);
}

TEST(BatchNormTraining, RefusesMismatchedChannels) {
  Buf<float> x({2, 2, 3}), y({2, 2, 3}), s({3}), b({2}), m({2}), v({2});
  Status st = BatchNormTraining(x.view(), s.view(), b.view(), m.view(), v.view(), 1e-5f, 0.9f,
                                y.view(), nullptr, nullptr);
  EXPECT_FALSE(st.ok());
  EXPECT_NE(st.message().find("f32 [2]"), std::string::npos) << st.message();
}

}  // namespace
}  // namespace loom::kernels
