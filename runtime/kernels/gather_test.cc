// Gather: axis 1 with 2-D and negative indices, out-of-range indices refused.
#include <gtest/gtest.h>

#include <vector>

#include "runtime/kernels/kernel_test_util.h"
#include "runtime/kernels/kernels_index.h"

namespace loom::kernels {
namespace {

using testing::Buf;

TEST(Gather, AxisOneNegativeIndices) {
  Buf<float> data({2, 3}, {1, 2, 3, 4, 5, 6});
  Buf<int64_t> idx({2, 1}, {-1, 0});
  Buf<float> y({2, 2, 1});
  ASSERT_TRUE(Gather(data.view(), idx.view(), 1, y.view()).ok());
  EXPECT_EQ(y.data, (std::vector<float>{3, 1, 6, 4}));
}

TEST(Gather, Int32IndicesAndBounds) {
  Buf<uint8_t> data({3, 2}, {1, 2, 3, 4, 5, 6});
  Buf<int32_t> idx({2}, {2, 0});
  Buf<uint8_t> y({2, 2});
  ASSERT_TRUE(Gather(data.view(), idx.view(), 0, y.view()).ok());
  EXPECT_EQ(y.data, (std::vector<uint8_t>{5, 6, 1, 2}));
  idx.data[1] = 3;
  const Status s = Gather(data.view(), idx.view(), 0, y.view());
  EXPECT_NE(s.message().find("index 3 at position 1 is outside [-3, 3)"), std::string::npos)
      << s.message();
  Buf<float> fidx({2}, {0, 1});
  EXPECT_FALSE(Gather(data.view(), fidx.view(), 0, y.view()).ok());
}

}  // namespace
}  // namespace loom::kernels
