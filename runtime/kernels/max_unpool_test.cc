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
  ASSERT_TRUE(MaxUnpool(x.view(), idx.view(), y.view()).ok());
  EXPECT_EQ(y.data, (std::vector<float>{0, 5, 0, 0, 0, 0, 6, 0}));
  idx.data[1] = 8;
  const Status s = MaxUnpool(x.view(), idx.view(), y.view());
  EXPECT_NE(s.message().find("index 8 at position 1"), std::string::npos) << s.message();
}

}  // namespace
}  // namespace loom::kernels
