// MaxPool: padding never wins, dilations, ceil-mode shapes, uint8 input, and the Indices output in
// both storage orders (values from the ONNX with_argmax tests).
#include <gtest/gtest.h>

#include "runtime/kernels/kernel_test_util.h"
#include "runtime/kernels/kernels.h"

namespace loom::kernels {
namespace {

using testing::Buf;

PoolParams Pool2D(int64_t k, int64_t s, int64_t pad) {
  PoolParams p;
  p.kernel[0] = p.kernel[1] = k;
  p.strides[0] = p.strides[1] = s;
  p.pads_begin[0] = p.pads_begin[1] = p.pads_end[0] = p.pads_end[1] = pad;
  return p;
}

TEST(MaxPool, NegativeInputsWithPadding) {
  // All values negative: a pooled padding cell of 0 would wrongly win.
  Buf<float> x({1, 1, 2, 2}, {-4, -3, -2, -1});
  // Kernel 2, stride 1, pads 1 on a 2x2 input: a 3x3 output whose corner windows hold one real
  // cell and three padding cells.
  Buf<float> y3({1, 1, 3, 3});
  ASSERT_TRUE(MaxPool(Pool2D(2, 1, 1), x.view(), y3.view(), nullptr).ok());
  EXPECT_EQ(y3.data, (std::vector<float>{-4, -3, -3, -2, -1, -1, -2, -1, -1}));
}

TEST(MaxPool, DilationsAndUint8) {
  // 4x4 ramp, kernel 2 with dilation 2: each window sees (i, j), (i, j+2), (i+2, j), (i+2, j+2).
  Buf<uint8_t> x({1, 1, 4, 4});
  for (int i = 0; i < 16; ++i) x.data[i] = static_cast<uint8_t>(200 + i);
  PoolParams p = Pool2D(2, 1, 0);
  p.dilations[0] = p.dilations[1] = 2;
  Buf<uint8_t> y({1, 1, 2, 2});
  ASSERT_TRUE(MaxPool(p, x.view(), y.view(), nullptr).ok());
  EXPECT_EQ(y.data, (std::vector<uint8_t>{210, 211, 214, 215}));
}

TEST(MaxPool, CeilModeShapeClipsTheLastWindow) {
  // 4x4, kernel 3, stride 2, ceil mode -> 2x2; the second window is cut to 2 columns/rows.
  Buf<float> x({1, 1, 4, 4});
  for (int i = 0; i < 16; ++i) x.data[i] = static_cast<float>(i + 1);
  Buf<float> y({1, 1, 2, 2});
  ASSERT_TRUE(MaxPool(Pool2D(3, 2, 0), x.view(), y.view(), nullptr).ok());
  EXPECT_EQ(y.data, (std::vector<float>{11, 12, 15, 16}));
  Buf<float> too_big({1, 1, 3, 3});  // a third window would start outside the input
  EXPECT_FALSE(MaxPool(Pool2D(3, 2, 0), x.view(), too_big.view(), nullptr).ok());
}

TEST(MaxPool, IndicesBothStorageOrders) {
  // ONNX test_maxpool_with_argmax_2d_precomputed_pads: 5x5 ramp 1..25, kernel 5, pads 2.
  Buf<float> x({1, 1, 5, 5});
  for (int i = 0; i < 25; ++i) x.data[i] = static_cast<float>(i + 1);
  Buf<float> y({1, 1, 5, 5});
  Buf<int64_t> idx({1, 1, 5, 5});
  TensorView iv = idx.view();
  ASSERT_TRUE(MaxPool(Pool2D(5, 1, 2), x.view(), y.view(), &iv).ok());
  EXPECT_EQ(y.data[0], 13.0f);
  EXPECT_EQ(idx.data, (std::vector<int64_t>{12, 13, 14, 14, 14, 17, 18, 19, 19, 19, 22, 23, 24,
                                            24, 24, 22, 23, 24, 24, 24, 22, 23, 24, 24, 24}));
  // test_maxpool_with_argmax_2d_precomputed_strides: kernel 2, stride 2, column-major indices.
  Buf<float> y2({1, 1, 2, 2});
  Buf<int64_t> idx2({1, 1, 2, 2});
  TensorView iv2 = idx2.view();
  PoolParams p = Pool2D(2, 2, 0);
  p.storage_order = 1;
  ASSERT_TRUE(MaxPool(p, x.view(), y2.view(), &iv2).ok());
  EXPECT_EQ(y2.data, (std::vector<float>{7, 9, 17, 19}));
  EXPECT_EQ(idx2.data, (std::vector<int64_t>{6, 16, 8, 18}));
}

TEST(MaxPool, HugeKernelWalksOnlyTheInput) {
  // A 2^31 x 2^31 window over a 2x2 input: 2^62 taps, 4 of them inside. Walking them all would
  // never finish; the kernel visits only the inside ones.
  Buf<float> x({1, 1, 2, 2}, {1, 4, 2, 3});
  PoolParams p = Pool2D(int64_t{1} << 31, 4, 0);
  p.pads_begin[0] = p.pads_begin[1] = 1;
  p.pads_end[0] = p.pads_end[1] = int64_t{1} << 31;
  Buf<float> y({1, 1, 1, 1});
  Buf<int64_t> idx({1, 1, 1, 1});
  TensorView iv = idx.view();
  ASSERT_TRUE(MaxPool(p, x.view(), y.view(), &iv).ok());
  EXPECT_EQ(y.data[0], 4.0f);
  EXPECT_EQ(idx.data[0], 1);
}

TEST(MaxPool, RefusesGeometryPast64Bits) {
  Buf<float> x({1, 1, 2, 2}), y({1, 1, 1, 1});
  PoolParams p = Pool2D(2, 1, 0);
  p.pads_end[0] = INT64_MAX;
  EXPECT_FALSE(MaxPool(p, x.view(), y.view(), nullptr).ok());
  PoolParams q = Pool2D(2, 1, 0);
  q.pads_begin[0] = -1;
  EXPECT_FALSE(MaxPool(q, x.view(), y.view(), nullptr).ok());
  Buf<float> y3({1, 1, 3, 1});
  PoolParams r = Pool2D(1, 1, 0);  // (3 - 1) * stride is checked, not wrapped to -2
  r.strides[0] = INT64_MAX;
  EXPECT_FALSE(MaxPool(r, x.view(), y3.view(), nullptr).ok());
}

}  // namespace
}  // namespace loom::kernels
