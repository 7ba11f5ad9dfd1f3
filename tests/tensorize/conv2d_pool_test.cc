// Conv + max pool fusion: the fused program, run on fsim, must write the bytes the unfused pair
// defines, the int8 kernels q::Conv2d then q::MaxPool (runtime/kernels/int8), on stem-like shapes
// (3x3/2 pad 1 after a ReLU, 2x2/2, odd sizes, several tiles, signed outputs, both named configs).
#include "compiler/tensorize/conv2d_pool.h"

#include <gtest/gtest.h>

#include <random>

#include "runtime/config/config_file.h"
#include "runtime/core/blocked_layout.h"
#include "runtime/kernels/int8/qops.h"
#include "tests/tensorize/fsim_run.h"

namespace loom::tensorize {
namespace {

namespace q = kernels::q;

struct FuseCase {
  const char* name;
  const char* config;
  uint32_t n, c, h, w, o;
  Window2d conv, pool;
  int32_t clip_lo;
  Conv2dTiling tiling;  // oc == 0: the search's choice
  bool has_bias = true;
};

void PrintTo(const FuseCase& c, std::ostream* os) { *os << c.name; }

class ConvPoolTest : public ::testing::TestWithParam<FuseCase> {};

TEST_P(ConvPoolTest, MatchesConvThenMaxPoolOnFsim) {
  const FuseCase& k = GetParam();
  HwConfig c;
  ASSERT_TRUE(LoadHwConfig(k.config, &c).ok());
  const q::Blocking blk{c.batch, c.block_in};
  std::mt19937 rng(16);
  std::uniform_int_distribution<int> i8(-128, 127);
  std::uniform_int_distribution<int32_t> bias(-3000, 3000), mult(1 << 12, 1 << 14);

  q::Conv2dParams cp;
  cp.in = {k.n, k.c, k.h, k.w};
  cp.out_c = k.o;
  cp.kh = k.conv.kh;
  cp.kw = k.conv.kw;
  cp.stride_h = k.conv.stride_h;
  cp.stride_w = k.conv.stride_w;
  cp.pad_top = k.conv.pad_top;
  cp.pad_left = k.conv.pad_left;
  cp.pad_bottom = k.conv.pad_bottom;
  cp.pad_right = k.conv.pad_right;
  cp.rq = {4, 14, k.clip_lo, 127};
  q::PoolParams pp;
  pp.in = cp.out();
  pp.kh = k.pool.kh;
  pp.kw = k.pool.kw;
  pp.stride_h = k.pool.stride_h;
  pp.stride_w = k.pool.stride_w;
  pp.pad_top = k.pool.pad_top;
  pp.pad_left = k.pool.pad_left;
  pp.pad_bottom = k.pool.pad_bottom;
  pp.pad_right = k.pool.pad_right;

  std::vector<int8_t> x_plain(size_t{k.n} * k.c * k.h * k.w),
      w_plain(size_t{k.o} * k.c * cp.kh * cp.kw);
  for (auto& v : x_plain) v = static_cast<int8_t>(i8(rng));
  for (auto& v : w_plain) v = static_cast<int8_t>(i8(rng));
  std::vector<int32_t> b_plain(k.o), m_plain(k.o);
  for (uint32_t o = 0; o < k.o; ++o) {
    b_plain[o] = k.has_bias ? bias(rng) : 0;
    m_plain[o] = mult(rng);
  }
  const size_t in_bytes = q::BlockedBytes(blk, cp.in), mid_bytes = q::BlockedBytes(blk, pp.in);
  const size_t out_bytes = q::BlockedBytes(blk, pp.out());
  const size_t w_bytes = q::ConvWeightBytes(blk, k.o, k.c, cp.kh, cp.kw);
  const size_t vec = size_t{CeilDiv(k.o, c.block_out)} * c.acc_elem_bytes();
  std::vector<int8_t> x(in_bytes), mid(mid_bytes), want(out_bytes);
  ASSERT_TRUE(q::PackActivation(blk, cp.in, x_plain.data(), x.data()).ok());
  std::vector<int8_t> constants(w_bytes + 2 * vec);
  ASSERT_TRUE(
      q::PackConvWeights(blk, k.o, k.c, cp.kh, cp.kw, w_plain.data(), constants.data()).ok());
  auto* bias_v = reinterpret_cast<int32_t*>(constants.data() + w_bytes);
  auto* mult_v = reinterpret_cast<int32_t*>(constants.data() + w_bytes + vec);
  ASSERT_TRUE(q::PackChannelVector(blk, k.o, b_plain.data(), bias_v).ok());
  ASSERT_TRUE(q::PackChannelVector(blk, k.o, m_plain.data(), mult_v).ok());
  ASSERT_TRUE(q::Conv2d(blk, cp, x.data(), constants.data(), k.has_bias ? bias_v : nullptr, mult_v,
                        mid.data())
                  .ok());
  ASSERT_TRUE(q::MaxPool(blk, pp, mid.data(), want.data()).ok());

  ConvPoolLayer l;
  l.conv = Conv2dGeometry(c, k.name, k.n, k.c, k.h, k.w, k.o, k.conv);
  l.conv.has_bias = k.has_bias;
  l.conv.pre_shift = cp.rq.pre_shift;
  l.conv.post_shift = cp.rq.post_shift;
  l.conv.clip_lo = cp.rq.clip_lo;
  l.conv.clip_hi = cp.rq.clip_hi;
  l.conv.input = 0;
  l.conv.weights = 0;
  l.conv.bias = static_cast<uint32_t>(w_bytes / c.acc_elem_bytes());
  l.conv.mult = static_cast<uint32_t>((w_bytes + vec) / c.acc_elem_bytes());
  ASSERT_EQ(w_bytes % c.acc_elem_bytes(), 0u);
  l.pool = k.pool;
  l.output = static_cast<uint32_t>(in_bytes / c.out_elem_bytes());
  ASSERT_EQ(l.out_h(), pp.out_h());
  ASSERT_EQ(l.out_w(), pp.out_w());
  ASSERT_TRUE(CanFuseConvPool(c, l));
  Conv2dTiling t = k.tiling;
  if (t.oc == 0) {
    TilingChoice choice;
    const Status st = ChooseConvPoolTiling(c, l, &choice);
    ASSERT_TRUE(st.ok()) << st.ToString();
    t = choice.tiling;
  }
  AccelCode code;
  const Status st = EmitConvPool(c, l, t, &code);
  ASSERT_TRUE(st.ok()) << st.ToString();
  // Only the pooled output is written: one byte past it stays as it was.
  std::vector<int8_t> arena = x;
  arena.resize(in_bytes + out_bytes + c.out_elem_bytes(), 0x44);
  const Status run = RunOnFsim(c, code, constants, &arena);
  ASSERT_TRUE(run.ok()) << run.ToString();
  const std::vector<int8_t> got(arena.begin() + in_bytes, arena.begin() + in_bytes + out_bytes);
  EXPECT_EQ(got, want) << "tiling " << t.ToString();
  EXPECT_EQ(arena.back(), 0x44);
}

constexpr Window2d Win(uint32_t k, uint32_t s, uint32_t p) { return {k, k, s, s, p, p, p, p}; }

INSTANTIATE_TEST_SUITE_P(
    tensorize, ConvPoolTest,
    ::testing::Values(
        // ResNet's stem in small: 7x7/2 conv + ReLU, 3x3/2 pad 1 pool, tiles in both directions.
        FuseCase{"stem_relu_tiles",
                 "1x8x8",
                 1,
                 3,
                 22,
                 22,
                 16,
                 Win(7, 2, 3),
                 Win(3, 2, 1),
                 0,
                 {1, 1, 2, 2, 2}},
        FuseCase{"stem_relu_search", "1x8x8", 1, 3, 22, 22, 16, Win(7, 2, 3), Win(3, 2, 1), 0, {}},
        // Signed outputs: the pool's padding holds -128 (or the clip), not the reset's 0.
        FuseCase{"k3_s2_p1_signed_odd",
                 "1x8x8",
                 1,
                 8,
                 13,
                 11,
                 8,
                 Win(3, 1, 1),
                 Win(3, 2, 1),
                 -128,
                 {1, 1, 3, 2, 2}},
        FuseCase{"k3_s2_p1_clip_neg50",
                 "1x8x8",
                 1,
                 8,
                 9,
                 9,
                 8,
                 Win(3, 1, 1),
                 Win(3, 2, 1),
                 -50,
                 {1, 1, 1, 5, 1},
                 false},
        // VGG's 2x2/2 on an odd size (the last conv row is pooled by no window).
        FuseCase{"vgg_k2_s2_odd",
                 "1x8x8",
                 1,
                 16,
                 9,
                 9,
                 24,
                 Win(3, 1, 1),
                 Win(2, 2, 0),
                 0,
                 {2, 1, 2, 3, 2}},
        // Windows that tile the output (kernel == stride) take the phased layout: signed, 3x3/3
        // with the last row and column left out, and 2x2/2 on 1x16x16 with the search's tiling.
        FuseCase{"phased_k3_s3_signed",
                 "1x8x8",
                 1,
                 8,
                 11,
                 10,
                 16,
                 Win(3, 1, 1),
                 Win(3, 3, 0),
                 -128,
                 {1, 1, 2, 2, 2}},
        FuseCase{"phased_k2_s2_1x16x16",
                 "1x16x16",
                 1,
                 16,
                 12,
                 12,
                 48,
                 Win(3, 1, 1),
                 Win(2, 2, 0),
                 0,
                 {}},
        // A non-separable window (3x3/1) over several input-channel steps and a batch of 2.
        FuseCase{"k3_s1_batch2_ic_steps",
                 "1x8x8",
                 2,
                 24,
                 8,
                 8,
                 8,
                 Win(3, 1, 1),
                 Win(3, 1, 1),
                 -128,
                 {1, 1, 3, 4, 2}},
        FuseCase{
            "stem_relu_1x16x16", "1x16x16", 1, 3, 30, 30, 32, Win(7, 2, 3), Win(3, 2, 1), 0, {}}),
    [](const ::testing::TestParamInfo<FuseCase>& i) { return std::string(i.param.name); });

TEST(ConvPoolLayer, RefusesWhatItCannotFuse) {
  HwConfig c;
  ASSERT_TRUE(LoadHwConfig("1x8x8", &c).ok());
  ConvPoolLayer l;
  l.conv = Conv2dGeometry(c, "conv", 1, 8, 8, 8, 8, Win(3, 1, 1));
  l.pool = Win(3, 2, 1);
  EXPECT_TRUE(CanFuseConvPool(c, l));
  ConvPoolLayer neg = l;
  neg.conv.post_shift = -1;  // REQUANT shifts right only: the ALU chain would run, unfused
  EXPECT_FALSE(CanFuseConvPool(c, neg));
  EXPECT_NE(neg.Check(c).message().find("fused REQUANT"), std::string::npos);
  ConvPoolLayer pad = l;
  pad.pool.pad_top = 3;
  EXPECT_FALSE(CanFuseConvPool(c, pad));
  EXPECT_NE(pad.Check(c).message().find("pool padding"), std::string::npos);
  AccelCode code;
  EXPECT_FALSE(EmitConvPool(c, l, {1, 1, 9, 1, 2}, &code).ok());  // more rows than the output
}

}  // namespace
}  // namespace loom::tensorize
