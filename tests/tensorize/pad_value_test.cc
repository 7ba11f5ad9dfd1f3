// Conv2dLayer::pad_value: a padded convolution, depthwise convolution and conv + max pool whose
// input reads -77 outside its bounds (an activation zero point), run on fsim, must write the bytes
// of the same layer with no padding over the input copied into a buffer with -77 borders: exactly
// "positions outside the input read pad_value". Channels are a partial block (the padding lanes of
// channels past the last must not count), and the forced tilings have tiles padded on every side,
// on some sides and on none.
#include <gtest/gtest.h>

#include <cstring>
#include <random>

#include "compiler/tensorize/conv2d.h"
#include "compiler/tensorize/conv2d_pool.h"
#include "runtime/core/blocked_layout.h"
#include "runtime/kernels/int8/qops.h"
#include "tests/tensorize/fsim_run.h"

namespace loom::tensorize {
namespace {

namespace q = kernels::q;

constexpr int8_t kPad = -77;

// Block 8 with small buffers, so that every layer needs several tiles.
HwConfig Config() {
  HwConfig c;
  c.name = "test";
  c.block_in = c.block_out = 8;
  c.inp_buffer_bytes = 4096;
  c.acc_buffer_bytes = 8192;
  c.wgt_buffer_bytes = 16384;
  EXPECT_TRUE(c.Validate().ok());
  return c;
}

enum class Kind { kConv, kDepthwise, kConvPool };

struct PadCase {
  const char* name;
  Kind kind;
  uint32_t c, o, h, w, k, stride, pad;
  Conv2dTiling tiling;  // oc == 0: the search's
};

void PrintTo(const PadCase& c, std::ostream* os) { *os << c.name; }

// Logical [N][C][H][W] with a `pad`-wide border of kPad on every side.
std::vector<int8_t> Bordered(const std::vector<int8_t>& x, uint32_t n, uint32_t c, uint32_t h,
                             uint32_t w, uint32_t pad) {
  const uint32_t ph = h + 2 * pad, pw = w + 2 * pad;
  std::vector<int8_t> out(size_t{n} * c * ph * pw, kPad);
  for (size_t plane = 0; plane < size_t{n} * c; ++plane)
    for (uint32_t y = 0; y < h; ++y)
      std::memcpy(&out[(plane * ph + y + pad) * pw + pad], &x[(plane * h + y) * w], w);
  return out;
}

class PadValueTest : public ::testing::TestWithParam<PadCase> {};

TEST_P(PadValueTest, MatchesUnpaddedLayerOverABorderedInput) {
  const PadCase& k = GetParam();
  const HwConfig c = Config();
  const q::Blocking blk{c.batch, c.block_in};
  const bool dw = k.kind == Kind::kDepthwise;
  const uint32_t o = dw ? k.c : k.o;
  std::mt19937 rng(k.c * 7 + k.h);
  std::uniform_int_distribution<int> i8(-128, 127);
  std::vector<int8_t> x_plain(size_t{k.c} * k.h * k.w);
  std::vector<int8_t> w_plain(size_t{o} * (dw ? 1 : k.c) * k.k * k.k);
  for (auto& v : x_plain) v = static_cast<int8_t>(i8(rng));
  for (auto& v : w_plain) v = static_cast<int8_t>(i8(rng));
  std::vector<int32_t> bias(o), mult(o);
  for (uint32_t i = 0; i < o; ++i) {
    bias[i] = static_cast<int32_t>(rng() % 4001) - 2000;
    mult[i] = static_cast<int32_t>(rng() % 2000) + 500;
  }

  // The reference: the layer without padding, over the bordered input.
  q::Conv2dParams ref;
  ref.in = {1, k.c, k.h + 2 * k.pad, k.w + 2 * k.pad};
  ref.out_c = o;
  ref.kh = ref.kw = k.k;
  ref.stride_h = ref.stride_w = k.stride;
  ref.depthwise = dw;
  ref.rq = {4, 12, -128, 127};
  const std::vector<int8_t> xb_plain = Bordered(x_plain, 1, k.c, k.h, k.w, k.pad);
  std::vector<int8_t> xb(q::BlockedBytes(blk, ref.in));
  ASSERT_TRUE(q::PackActivation(blk, ref.in, xb_plain.data(), xb.data()).ok());
  std::vector<int8_t> wq(dw ? q::DepthwiseWeightBytes(blk, k.c, k.k, k.k)
                            : q::ConvWeightBytes(blk, o, k.c, k.k, k.k));
  ASSERT_TRUE((dw ? q::PackDepthwiseWeights(blk, k.c, k.k, k.k, w_plain.data(), wq.data())
                  : q::PackConvWeights(blk, o, k.c, k.k, k.k, w_plain.data(), wq.data()))
                  .ok());
  const size_t vec = q::ChannelVectorElems(blk, o);
  std::vector<int32_t> bias_q(vec), mult_q(vec);
  ASSERT_TRUE(q::PackChannelVector(blk, o, bias.data(), bias_q.data()).ok());
  ASSERT_TRUE(q::PackChannelVector(blk, o, mult.data(), mult_q.data()).ok());
  std::vector<int8_t> want(q::BlockedBytes(blk, ref.out()));
  ASSERT_TRUE(
      q::Conv2d(blk, ref, xb.data(), wq.data(), bias_q.data(), mult_q.data(), want.data()).ok());
  q::PoolParams pool;
  if (k.kind == Kind::kConvPool) {
    pool.in = ref.out();
    pool.kh = pool.kw = pool.stride_h = pool.stride_w = 2;
    std::vector<int8_t> pooled(q::BlockedBytes(blk, pool.out()));
    ASSERT_TRUE(q::MaxPool(blk, pool, want.data(), pooled.data()).ok());
    want = pooled;
  }

  // The accelerator: the padded layer over the input itself. Arena [x | y]; constants
  // [weights | bias | mult].
  const q::ActShape in{1, k.c, k.h, k.w};
  std::vector<int8_t> arena(q::BlockedBytes(blk, in));
  ASSERT_TRUE(q::PackActivation(blk, in, x_plain.data(), arena.data()).ok());
  const size_t in_bytes = arena.size();
  arena.resize(in_bytes + want.size(), 0x5a);
  std::vector<int8_t> consts = dw ? DepthwiseWeights(c, k.c, k.k, k.k, w_plain.data()) : wq;
  const uint32_t ae = c.acc_elem_bytes();
  const size_t bias_at = (consts.size() + ae - 1) / ae * ae;
  consts.resize(bias_at + 2 * vec * 4);
  std::memcpy(consts.data() + bias_at, bias_q.data(), vec * 4);
  std::memcpy(consts.data() + bias_at + vec * 4, mult_q.data(), vec * 4);
  Window2d win;
  win.kh = win.kw = k.k;
  win.stride_h = win.stride_w = k.stride;
  win.pad_top = win.pad_left = win.pad_bottom = win.pad_right = k.pad;
  Conv2dLayer l = Conv2dGeometry(c, k.name, 1, k.c, k.h, k.w, o, win);
  l.depthwise = dw;
  l.pad_value = kPad;
  l.pre_shift = ref.rq.pre_shift;
  l.post_shift = ref.rq.post_shift;
  l.input = 0;
  l.output = static_cast<uint32_t>(in_bytes / c.out_elem_bytes());
  l.weights = 0;
  l.bias = static_cast<uint32_t>(bias_at / ae);
  l.mult = static_cast<uint32_t>((bias_at + vec * 4) / ae);

  AccelCode code;
  Conv2dTiling t = k.tiling;
  if (k.kind == Kind::kConvPool) {
    ConvPoolLayer fl;
    fl.conv = l;
    fl.pool = {2, 2, 2, 2, 0, 0, 0, 0};
    fl.output = l.output;
    ASSERT_TRUE(CanFuseConvPool(c, fl));
    if (t.oc == 0) {
      TilingChoice choice;
      const Status st = ChooseConvPoolTiling(c, fl, &choice);
      ASSERT_TRUE(st.ok()) << st.ToString();
      t = choice.tiling;
    }
    const Status st = EmitConvPool(c, fl, t, &code);
    ASSERT_TRUE(st.ok()) << st.ToString();
  } else {
    if (t.oc == 0) {
      TilingChoice choice;
      const Status st = ChooseConv2dTiling(c, l, &choice);
      ASSERT_TRUE(st.ok()) << st.ToString();
      t = choice.tiling;
    }
    const Status st = EmitConv2d(c, l, t, &code);
    ASSERT_TRUE(st.ok()) << st.ToString();
  }
  SCOPED_TRACE(t.ToString());
  // Every INP load carries the pad value, padded or not.
  int inp_loads = 0;
  for (const isa::Insn& i : code.insns) {
    if (i.opcode != isa::Opcode::kLoad || i.buffer != isa::Buffer::kInp) continue;
    ++inp_loads;
    EXPECT_EQ(i.pad_value, kPad) << isa::Disassemble(i);
  }
  EXPECT_GT(inp_loads, 1);
  const Status st = RunOnFsim(c, code, consts, &arena);
  ASSERT_TRUE(st.ok()) << st.ToString();
  const std::vector<int8_t> got(arena.begin() + static_cast<std::ptrdiff_t>(in_bytes), arena.end());
  EXPECT_EQ(got, want);
}

INSTANTIATE_TEST_SUITE_P(
    tensorize, PadValueTest,
    ::testing::Values(
        // 3x3 tiles of a 9x9 output: corner, edge and interior (unpadded) tiles.
        PadCase{"conv_3x3_p1_tiles", Kind::kConv, 12, 10, 9, 9, 3, 1, 1, {1, 1, 3, 3, 2}},
        PadCase{"conv_5x5_s2_p2", Kind::kConv, 12, 10, 9, 9, 5, 2, 2, {0, 0, 0, 0, 0}},
        PadCase{"depthwise_3x3_p1_tiles", Kind::kDepthwise, 12, 12, 9, 9, 3, 1, 1, {1, 1, 3, 3, 2}},
        PadCase{"conv_3x3_p1_pool_2x2", Kind::kConvPool, 12, 10, 8, 8, 3, 1, 1, {0, 0, 0, 0, 0}}),
    [](const ::testing::TestParamInfo<PadCase>& p) { return std::string(p.param.name); });

}  // namespace
}  // namespace loom::tensorize
