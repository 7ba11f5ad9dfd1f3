// ScatterElements: the ONNX examples, reductions and bounds.
#include <gtest/gtest.h>

#include <vector>

#include "runtime/kernels/kernel_test_util.h"
#include "runtime/kernels/kernels_index.h"

namespace loom::kernels {
namespace {

using testing::Buf;

TEST(ScatterElements, AxisOneAndDuplicates) {
  Buf<float> data({1, 5}, {1, 2, 3, 4, 5});
  Buf<int64_t> idx({1, 2}, {1, -2});
  Buf<float> upd({1, 2}, {1.1f, 2.1f});
  Buf<float> y({1, 5});
  ASSERT_TRUE(
      ScatterElements(data.view(), idx.view(), upd.view(), 1, ScatterReduction::kNone, y.view())
          .ok());
  EXPECT_EQ(y.data, (std::vector<float>{1, 1.1f, 3, 2.1f, 5}));
  idx.data = {1, 1};
  ASSERT_TRUE(
      ScatterElements(data.view(), idx.view(), upd.view(), 1, ScatterReduction::kAdd, y.view())
          .ok());
  EXPECT_FLOAT_EQ(y.data[1], 2 + 1.1f + 2.1f);
  Buf<int32_t> idata({2, 2}, {1, 2, 3, 4});
  Buf<int32_t> iidx({1, 2}, {1, 0});
  Buf<int32_t> iupd({1, 2}, {5, 6});
  Buf<int32_t> iy({2, 2});
  ASSERT_TRUE(
      ScatterElements(idata.view(), iidx.view(), iupd.view(), 0, ScatterReduction::kMul, iy.view())
          .ok());
  EXPECT_EQ(iy.data, (std::vector<int32_t>{1, 12, 15, 4}));
  iidx.data[0] = -3;
  EXPECT_FALSE(
      ScatterElements(idata.view(), iidx.view(), iupd.view(), 0, ScatterReduction::kNone, iy.view())
          .ok());
}

}  // namespace
}  // namespace loom::kernels
