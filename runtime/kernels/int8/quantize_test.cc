// QuantizeF32 / DequantizeF32: round half to even, saturation, non-finite inputs, zero points,
// bad scales and zero points.
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
  ASSERT_TRUE(QuantizeF32(x.data(), x.size(), 1.0f, 0, q.data()).ok());
  EXPECT_EQ(q, want);
}

TEST(QuantizeF32, ScaleDividesAndRoundTrips) {
  std::vector<float> x{0.1f, -0.25f, 0.3f, 1.0f};
  std::vector<int8_t> q(4);
  ASSERT_TRUE(QuantizeF32(x.data(), 4, 0.05f, 0, q.data()).ok());
  EXPECT_EQ(q, (std::vector<int8_t>{2, -5, 6, 20}));
  std::vector<float> back(4);
  ASSERT_TRUE(DequantizeF32(q.data(), 4, 0.05f, 0, back.data()).ok());
  for (size_t i = 0; i < 4; ++i) EXPECT_NEAR(back[i], x[i], 0.025f + 1e-6f);
  EXPECT_FLOAT_EQ(back[1], -5 * 0.05f);
}

TEST(QuantizeF32, BadParameters) {
  float x = 1.0f;
  int8_t q = 0;
  Status st = QuantizeF32(&x, 1, 0.0f, 0, &q);
  EXPECT_FALSE(st.ok());
  EXPECT_NE(st.message().find("scale"), std::string::npos) << st.message();
  EXPECT_FALSE(QuantizeF32(&x, 1, -1.0f, 0, &q).ok());
  EXPECT_FALSE(QuantizeF32(&x, 1, std::nanf(""), 0, &q).ok());
  EXPECT_FALSE(DequantizeF32(&q, 1, std::numeric_limits<float>::infinity(), 0, &x).ok());
  EXPECT_FALSE(QuantizeF32(nullptr, 1, 1.0f, 0, &q).ok());
  EXPECT_TRUE(QuantizeF32(nullptr, 0, 1.0f, 0, nullptr).ok());  // nothing to do
}

// The zero point shifts the result before it saturates: [-128, 127] holds round(x / s) + z.
TEST(QuantizeF32, ZeroPointShiftsThenSaturates) {
  const float inf = std::numeric_limits<float>::infinity();
  const std::vector<float> x{0.0f,   0.5f,   1.5f,  -1.0f, 254.0f,
                             255.0f, 256.0f, -1.0f, inf,   std::nanf("")};
  std::vector<int8_t> q(x.size());
  ASSERT_TRUE(QuantizeF32(x.data(), x.size(), 1.0f, -128, q.data()).ok());
  EXPECT_EQ(q, (std::vector<int8_t>{-128, -128, -126, -128, 126, 127, 127, -128, 127, -128}));
  ASSERT_TRUE(QuantizeF32(x.data(), 3, 1.0f, 100, q.data()).ok());
  EXPECT_EQ(q[0], 100);
  EXPECT_EQ(q[2], 102);
  std::vector<float> back(2);
  const std::vector<int8_t> v{-128, 27};
  ASSERT_TRUE(DequantizeF32(v.data(), 2, 0.5f, -128, back.data()).ok());
  EXPECT_FLOAT_EQ(back[0], 0.0f);
  EXPECT_FLOAT_EQ(back[1], 77.5f);
}

TEST(QuantizeF32, ZeroPointOutsideInt8) {
  float x = 1.0f;
  int8_t q = 0;
  const Status st = QuantizeF32(&x, 1, 1.0f, 128, &q);
  EXPECT_FALSE(st.ok());
  EXPECT_NE(st.message().find("zero point 128"), std::string::npos) << st.message();
  EXPECT_FALSE(DequantizeF32(&q, 1, 1.0f, -129, &x).ok());
}

}  // namespace
}  // namespace loom::kernels::q
