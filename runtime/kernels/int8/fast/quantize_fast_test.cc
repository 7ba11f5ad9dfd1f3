// fast::QuantizeF32 on every path this CPU runs against the reference QuantizeF32, byte for byte:
// random values over several scales, every tail length, and the edges of the rounding and
// saturation (halves, the bounds +-127.5 / -128.5 and just inside them, infinities, NaN, zeros of
// both signs, denormals, huge values), plus the reference's refusals.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "runtime/kernels/int8/fast/fast.h"
#include "runtime/kernels/int8/fast/test_paths.h"
#include "runtime/kernels/int8/qops.h"

namespace loom::kernels::q::fast {
namespace {

// Every zero point's saturation bounds move, so each is checked at a few.
void ExpectSameBytes(const std::vector<float>& x, float scale) {
  for (int32_t z : {0, -128, 127, 37}) {
    std::vector<int8_t> want(x.size(), 0x55);
    ASSERT_TRUE(q::QuantizeF32(x.data(), x.size(), scale, z, want.data()).ok());
    for (KernelPath path : Paths()) {
      std::vector<int8_t> got(x.size(), 0x33);
      ASSERT_TRUE(QuantizeF32(path, x.data(), x.size(), scale, z, got.data()).ok())
          << PathName(path);
      for (size_t i = 0; i < x.size(); ++i) {
        ASSERT_EQ(got[i], want[i]) << PathName(path) << ": x[" << i << "] = " << x[i] << ", scale "
                                   << scale << ", zero point " << z;
      }
    }
  }
}

TEST(FastQuantize, RandomValuesEveryTailLength) {
  std::mt19937 rng(7);
  for (float scale : {1.0f, 0.0078125f, 0.0173f, 3.5f, 1e-6f}) {
    std::uniform_real_distribution<float> d(-200.0f * scale, 200.0f * scale);
    for (size_t n = 0; n < 40; ++n) {
      std::vector<float> x(n);
      for (float& v : x) v = d(rng);
      ExpectSameBytes(x, scale);
    }
    std::vector<float> big(10007);
    for (float& v : big) v = d(rng);
    ExpectSameBytes(big, scale);
  }
}

TEST(FastQuantize, RoundingAndSaturationEdges) {
  const float inf = std::numeric_limits<float>::infinity();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  std::vector<float> x = {0.5f,    1.5f,     2.5f,        -0.5f,        -1.5f,      -2.5f,
                          126.5f,  -127.5f,  127.5f,      -128.5f,      127.0f,     -128.0f,
                          126.49f, -127.51f, 128.0f,      -129.0f,      inf,        -inf,
                          nan,     -nan,     0.0f,        -0.0f,        1e-40f,     -1e-40f,
                          3e38f,   -3e38f,   0.49999997f, -0.49999997f, 126.50001f, -127.49999f};
  for (float v = -130.0f; v <= 130.0f; v += 0.25f) x.push_back(v);
  for (float scale : {1.0f, 0.5f, 2.0f, 1e-30f, 1e30f}) ExpectSameBytes(x, scale);
}

TEST(FastQuantize, RefusesWhatTheReferenceRefuses) {
  std::vector<float> x(16, 1.0f);
  std::vector<int8_t> q(16);
  for (KernelPath path : Paths()) {
    for (float bad : {0.0f, -1.0f, std::numeric_limits<float>::infinity(),
                      std::numeric_limits<float>::quiet_NaN()}) {
      const Status s = QuantizeF32(path, x.data(), x.size(), bad, 0, q.data());
      EXPECT_FALSE(s.ok()) << PathName(path) << " scale " << bad;
      EXPECT_NE(s.ToString().find("scale"), std::string::npos) << s.ToString();
    }
    EXPECT_FALSE(QuantizeF32(path, nullptr, 16, 1.0f, 0, q.data()).ok()) << PathName(path);
    EXPECT_FALSE(QuantizeF32(path, x.data(), 16, 1.0f, 0, nullptr).ok()) << PathName(path);
    // The output overlapping the input.
    EXPECT_FALSE(QuantizeF32(path, x.data(), 16, 1.0f, 0, reinterpret_cast<int8_t*>(x.data())).ok())
        << PathName(path);
  }
}

}  // namespace
}  // namespace loom::kernels::q::fast
