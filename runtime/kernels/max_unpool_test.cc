// MaxUnpool: values land at their recorded flat offsets; out-of-range offsets are refused.
#include <gtest/gtest.h>

#include <vector>

#include "runtime/kernels/kernel_test_util.h"
#include "runtime/kernels/kernels_index.h"

namespace loom::kernels {
namespace {

using testing::Buf;

TEST(MaxUnpool, ScattersByFlatIndex) {
  Buf<float> x({1, 1, 1, 2}, {5, 6});
  Buf<int64_t> idx({1, 1, 1, 2}, {1, 6});
  Buf<float> y({1, 1, 2, 4});
  y.data.assign(8, 9.0f);  // every cell is overwritten
  const int64_t same[] = {1, 1, 2, 4};
  ASSERT_TRUE(MaxUnpool(x.view(), idx.view(), same, y.view()).ok());
  EXPECT_EQ(y.data, (std::vector<float>{0, 5, 0, 0, 0, 0, 6, 0}));
  // A larger output keeps the coordinates: (0, 1) and (1, 2) of the 2x4 unpool shape.
  Buf<float> big({1, 1, 3, 5});
  ASSERT_TRUE(MaxUnpool(x.view(), idx.view(), same, big.view()).ok());
  EXPECT_EQ(big.data[1], 5);
  EXPECT_EQ(big.data[7], 6);
  idx.data[1] = 8;
  const Status s = MaxUnpool(x.view(), idx.view(), same, y.view());
  EXPECT_NE(s.message().find("index 8 at position 1"), std::string::npos) << s.message();
}

}  // namespace
}  // namespace loom::kernels
