// Tile: repeats per dim; a non-multiple output refused.
#include <gtest/gtest.h>

#include <vector>

#include "runtime/kernels/kernel_test_util.h"
#include "runtime/kernels/kernels_index.h"

namespace loom::kernels {
namespace {

using testing::Buf;

TEST(Tile, Repeats) {
  Buf<float> x({2, 2}, {1, 2, 3, 4});
  Buf<float> y({4, 4});
  ASSERT_TRUE(Tile(x.view(), y.view()).ok());
  EXPECT_EQ(y.data, (std::vector<float>{1, 2, 1, 2, 3, 4, 3, 4, 1, 2, 1, 2, 3, 4, 3, 4}));
  Buf<float> bad({3, 2});
  EXPECT_FALSE(Tile(x.view(), bad.view()).ok());
}

}  // namespace
}  // namespace loom::kernels
