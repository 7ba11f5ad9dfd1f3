// QuantizeF32 / DequantizeF32: round half to even, saturation, non-finite inputs, bad scales.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "runtime/kernels/int8/qops.h"

namespace loom::kernels::q {
namespace {

TEST(QuantizeF32, RoundHalfEvenAndSaturate) {
  const float inf = std::numeric_limits<float>::infinity();
  const std::vector<float> x{0.5f, 1.5f, 2.5f, -0.5f, -1.5f, -2.5f, 0.49f, 1.01f, 126.5f,
                             127.49f, 200.0f, -128.5f, -1000.0f, inf, -inf, std::nanf("")};
  const std::vector<int8_t> want{0, 2, 2, 0, -2, -2, 0, 1, 126, 127, 127, -128, -128, 127, -128, 0};
  std::vector<int8_t> q(x.size());
  ASSERT_TRUE(QuantizeF32(x.data(), x.size(), 1.0f, q.data()).ok());
  EXPECT_EQ(q, want);
}

TEST(QuantizeF32, ScaleDividesAndRoundTrips) {
  std::vector<float> x{0.1f, -0.25f, 0.3f, 1.0f};
  std::vector<int8_t> q(4);
  ASSERT_TRUE(QuantizeF32(x.data(), 4, 0.05f, q.data()).ok());
  EXPECT_EQ(q, (std::vector<int8_t>{2, -5, 6, 20}));
  std::vector<float> back(4);
  ASSERT_TRUE(DequantizeF32(q.data(), 4, 0.05f, back.data()).ok());
  for (size_t i = 0; i < 4; ++i) EXPECT_NEAR(back[i], x[i], 0.025f + 1e-6f);
  EXPECT_FLOAT_EQ(back[1], -5 * 0.05f);
}

TEST(QuantizeF32, BadParameters) {
  float x = 1.0f;
  int8_t q = 0;
  Status st = QuantizeF32(&x, 1, 0.0f, &q);
  EXPECT_FALSE(st.ok());
  EXPECT_NE(st.message().find("scale"), std::string::npos) << st.message();
  EXPECT_FALSE(QuantizeF32(&x, 1, -1.0f, &q).ok());
  EXPECT_FALSE(QuantizeF32(&x, 1, std::nanf(""), &q).ok());
  EXPECT_FALSE(DequantizeF32(&q, 1, std::numeric_limits<float>::infinity(), &x).ok());
  EXPECT_FALSE(QuantizeF32(nullptr, 1, 1.0f, &q).ok());
  EXPECT_TRUE(QuantizeF32(nullptr, 0, 1.0f, nullptr).ok());  // nothing to do
}

}  // namespace
}  // namespace loom::kernels::q
