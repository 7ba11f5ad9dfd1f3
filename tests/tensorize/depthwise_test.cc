// Depthwise convolution as one pipelined program (EmitConv2d with Conv2dLayer::depthwise): run on
// fsim, its bytes must equal the int8 CPU kernel's (runtime/kernels/int8), for strides 1 and 2,
// 3x3, 4x4, 5x5 and 9x9 kernels, asymmetric pads and a nonzero pad value, partial channel blocks,
// batch, several channel blocks per tile and several spatial tiles, with the search's tiling and
// with forced ones, on block 8, 16 and 32 configs. Each case states its form: the GEMM's
// depthwise mode (window, kw <= block/2) or diagonal weight blocks, and the program must use it.
#include <gtest/gtest.h>

#include <cstring>
#include <random>

#include "compiler/tensorize/conv2d.h"
#include "runtime/config/config_file.h"
#include "runtime/core/blocked_layout.h"
#include "runtime/kernels/int8/qops.h"
#include "tests/tensorize/fsim_run.h"

namespace loom::tensorize {
namespace {

namespace q = kernels::q;

// block 8 with small buffers (every layer needs several tiles), the default 1x16x16, or the
// shipped 1x32x32 (the zcu104's).
HwConfig Config(uint32_t block) {
  HwConfig c;
  if (block == 16) return c;
  if (block == 32) {
    EXPECT_TRUE(LoadHwConfig("1x32x32", &c).ok());
    return c;
  }
  c.name = "test";
  c.block_in = c.block_out = block;
  c.inp_buffer_bytes = 4096;
  c.acc_buffer_bytes = 8192;
  c.wgt_buffer_bytes = 16384;
  EXPECT_TRUE(c.Validate().ok());
  return c;
}

const Conv2dTiling kSearch{0, 0, 0, 0, 0};

enum class Form { kWindow, kDiagonal };

struct Pads {
  uint32_t top, left, bottom, right;
};

struct DwCase {
  const char* name;
  Form form;  // what the program must use
  uint32_t block, n, c, h, w, k, stride;
  Pads pad;
  Conv2dTiling tiling;  // kSearch: the search's
  bool has_bias = true;
  int32_t clip_lo = 0;
  int8_t pad_value = 0;
};

void PrintTo(const DwCase& c, std::ostream* os) { *os << c.name; }

Conv2dLayer Layer(const HwConfig& c, const DwCase& k) {
  Window2d win;
  win.kh = win.kw = k.k;
  win.stride_h = win.stride_w = k.stride;
  win.pad_top = k.pad.top;
  win.pad_left = k.pad.left;
  win.pad_bottom = k.pad.bottom;
  win.pad_right = k.pad.right;
  Conv2dLayer l = Conv2dGeometry(c, k.name, k.n, k.c, k.h, k.w, k.c, win);
  l.depthwise = true;
  l.pad_value = k.pad_value;
  l.has_bias = k.has_bias;
  l.pre_shift = 4;
  l.post_shift = 12;
  l.clip_lo = k.clip_lo;
  return l;
}

class DepthwiseProgramTest : public ::testing::TestWithParam<DwCase> {};

TEST_P(DepthwiseProgramTest, MatchesInt8KernelOnFsim) {
  const DwCase& k = GetParam();
  const HwConfig c = Config(k.block);
  const q::Blocking blk{c.batch, c.block_in};
  Conv2dLayer l = Layer(c, k);
  q::Conv2dParams p;
  p.in = {k.n, k.c, k.h, k.w};
  p.out_c = k.c;
  p.kh = p.kw = k.k;
  p.stride_h = p.stride_w = k.stride;
  p.pad_top = k.pad.top;
  p.pad_left = k.pad.left;
  p.pad_bottom = k.pad.bottom;
  p.pad_right = k.pad.right;
  p.pad_value = k.pad_value;
  p.depthwise = true;
  p.rq = {l.pre_shift, l.post_shift, l.clip_lo, l.clip_hi};

  std::mt19937 rng(k.c * 131 + k.h);
  std::uniform_int_distribution<int> i8(-128, 127);
  std::vector<int8_t> x_plain(size_t{k.n} * k.c * k.h * k.w), w(size_t{k.c} * k.k * k.k);
  for (auto& v : x_plain) v = static_cast<int8_t>(i8(rng));
  for (auto& v : w) v = static_cast<int8_t>(i8(rng));
  std::vector<int32_t> bias(k.c), mult(k.c);
  for (uint32_t i = 0; i < k.c; ++i) {
    bias[i] = static_cast<int32_t>(rng() % 4001) - 2000;
    mult[i] = static_cast<int32_t>(rng() % 2000) + 500;
  }
  const size_t in_bytes = q::BlockedBytes(blk, p.in), out_bytes = q::BlockedBytes(blk, p.out());
  std::vector<int8_t> x(in_bytes);
  ASSERT_TRUE(q::PackActivation(blk, p.in, x_plain.data(), x.data()).ok());
  std::vector<int8_t> wq(q::DepthwiseWeightBytes(blk, k.c, k.k, k.k));
  ASSERT_TRUE(q::PackDepthwiseWeights(blk, k.c, k.k, k.k, w.data(), wq.data()).ok());
  const size_t vec = q::ChannelVectorElems(blk, k.c);
  std::vector<int32_t> bias_q(vec), mult_q(vec);
  ASSERT_TRUE(q::PackChannelVector(blk, k.c, bias.data(), bias_q.data()).ok());
  ASSERT_TRUE(q::PackChannelVector(blk, k.c, mult.data(), mult_q.data()).ok());
  std::vector<int8_t> want(out_bytes);
  ASSERT_TRUE(q::Conv2d(blk, p, x.data(), wq.data(), k.has_bias ? bias_q.data() : nullptr,
                        mult_q.data(), want.data())
                  .ok());

  // Arena [x | y]; constants [window or diagonal weights | bias | mult].
  ASSERT_EQ(UsesDepthwiseWindow(c, l), k.form == Form::kWindow);
  std::vector<int8_t> arena = x;
  arena.resize(in_bytes + out_bytes, 0x5a);
  std::vector<int8_t> consts = DepthwiseWeights(c, k.c, k.k, k.k, w.data());
  ASSERT_EQ(consts.size(), Conv2dWeightElems(c, l) * c.wgt_elem_bytes());
  const uint32_t ae = c.acc_elem_bytes();
  const size_t bias_at = (consts.size() + ae - 1) / ae * ae;
  consts.resize(bias_at + 2 * vec * 4);
  std::memcpy(consts.data() + bias_at, bias_q.data(), vec * 4);
  std::memcpy(consts.data() + bias_at + vec * 4, mult_q.data(), vec * 4);
  l.input = 0;
  l.output = static_cast<uint32_t>(in_bytes / c.out_elem_bytes());
  l.weights = 0;
  l.bias = static_cast<uint32_t>(bias_at / ae);
  l.mult = static_cast<uint32_t>((bias_at + vec * 4) / ae);

  Conv2dTiling t = k.tiling;
  if (t == kSearch) {
    TilingChoice choice;
    Status st = ChooseConv2dTiling(c, l, &choice);
    ASSERT_TRUE(st.ok()) << st.ToString();
    t = choice.tiling;
  }
  SCOPED_TRACE(t.ToString());
  RecordProperty("tiling", t.ToString());
  AccelCode code;
  Status st = EmitConv2d(c, l, t, &code);
  ASSERT_TRUE(st.ok()) << st.ToString();
  // Window form: one `gemm depthwise` per tile over all filter rows; or, where the tile runs its
  // REQUANT as the GEMM's epilogue (docs/isa.md §3.4.2), one over all rows but the last and then,
  // per block, an arming `alu.requant ... fuse` and that block's last-row walk, also a `gemm
  // depthwise`. Diagonal: none. A tile's first store pops the compute token. A fused REQUANT
  // leaves its accumulators zero, so after each region's first tile the resets are gone (unless a
  // larger tile follows a remainder tile).
  size_t tiles = 0, resets = 0, clearing = 0, diagonal_dw = 0, bad_window_tiles = 0;
  size_t plain = 0, armed = 0, arms = 0;  // per tile: dw GEMMs, those behind an arming, armings
  bool cleared = false, after_arm = false;
  for (const isa::Insn& i : code.insns) {
    const bool dw = i.opcode == isa::Opcode::kGemm && i.depthwise;
    const bool arm = i.opcode == isa::Opcode::kAlu && i.alu_op == isa::AluOp::kRequant && i.fuse;
    if (dw) (after_arm ? armed : plain) += 1;
    if (i.opcode == isa::Opcode::kGemm && !i.depthwise && !i.reset && k.form == Form::kWindow) {
      ++bad_window_tiles;  // a window-form layer multiplies only in depthwise mode
    }
    diagonal_dw += dw && k.form != Form::kWindow;
    arms += arm;
    after_arm = arm;
    resets += i.opcode == isa::Opcode::kGemm && i.reset && i.dst_factor_in == 1;
    cleared =
        cleared || (i.opcode == isa::Opcode::kAlu && i.alu_op == isa::AluOp::kRequant && i.clear);
    if (i.opcode == isa::Opcode::kStore && i.deps.pop_prev) {
      ++tiles;
      clearing += cleared;
      cleared = false;
      if (k.form == Form::kWindow) {
        const bool whole = plain == 1 && arms == 0;
        const bool split = plain == (k.k > 1 ? 1u : 0u) && arms > 0 && armed == arms;
        bad_window_tiles += !(whole || split);
      }
      plain = armed = arms = 0;
    }
  }
  EXPECT_EQ(diagonal_dw, 0u);
  EXPECT_EQ(bad_window_tiles, 0u);
  EXPECT_LE(resets, tiles);
  if (UsesFusedRequant(l, t)) {
    EXPECT_EQ(clearing, tiles);
    if (tiles > t.virtual_threads && k.tiling == kSearch) {
      EXPECT_LT(resets, tiles);
    }
  }
  st = RunOnFsim(c, code, consts, &arena);
  ASSERT_TRUE(st.ok()) << st.ToString();
  std::vector<int8_t> got(arena.begin() + static_cast<std::ptrdiff_t>(in_bytes), arena.end());
  EXPECT_EQ(got, want);
}

// One case a line or two, fields in DwCase's order.
// clang-format off
INSTANTIATE_TEST_SUITE_P(
    tensorize, DepthwiseProgramTest,
    ::testing::Values(
        // Block 8: T = 4, so 3x3 and 4x4 run in window form, 5x5 on diagonal blocks.
        DwCase{"b8_3x3_s1_partial_block", Form::kWindow, 8, 1, 20, 9, 9, 3, 1, {1, 1, 1, 1}, kSearch},
        DwCase{"b8_3x3_s2", Form::kWindow, 8, 1, 36, 10, 10, 3, 2, {1, 1, 1, 1}, kSearch},
        DwCase{"b8_5x5_s1_p2_no_bias", Form::kDiagonal, 8, 1, 24, 7, 6, 5, 1, {2, 2, 2, 2}, kSearch,
               false, -128},
        DwCase{"b8_5x5_s2_batch2", Form::kDiagonal, 8, 2, 12, 8, 8, 5, 2, {2, 2, 2, 2}, kSearch},
        // Two blocks per tile with a remainder tile of one, three row tiles.
        DwCase{"b8_3x3_s1_two_blocks_row_tiles", Form::kWindow, 8, 1, 40, 9, 9, 3, 1, {1, 1, 1, 1},
               {2, 1, 3, 9, 2}},
        // Three blocks per tile, row and column tiles (remainders too), one virtual thread,
        // padding on the bottom and right only (TF's SAME at stride 2) with a zero point.
        DwCase{"b8_3x3_s2_col_tiles_vt1", Form::kWindow, 8, 1, 44, 12, 12, 3, 2, {0, 0, 1, 1},
               {3, 1, 2, 3, 1}, true, 0, -7},
        DwCase{"b8_5x5_one_block_per_tile", Form::kDiagonal, 8, 1, 16, 6, 6, 5, 1, {2, 2, 2, 2},
               {1, 1, 6, 6, 2}},
        // kw == T, every pad different, batch 2, column tiles.
        DwCase{"b8_4x4_s1_asym_pads_batch2", Form::kWindow, 8, 2, 12, 7, 9, 4, 1, {1, 2, 2, 0},
               {2, 1, 4, 3, 2}, true, 0, 23},
        // Block 16: T = 8.
        DwCase{"b16_3x3_7x7_many_blocks", Form::kWindow, 16, 1, 200, 7, 7, 3, 1, {1, 1, 1, 1},
               kSearch},
        DwCase{"b16_3x3_14x14_s2", Form::kWindow, 16, 1, 72, 14, 14, 3, 2, {1, 1, 1, 1}, kSearch},
        DwCase{"b16_5x5_16x16", Form::kWindow, 16, 1, 40, 16, 16, 5, 1, {2, 2, 2, 2}, kSearch},
        DwCase{"b16_5x5_s2_asym_pads_no_bias", Form::kWindow, 16, 1, 40, 15, 13, 5, 2,
               {1, 2, 2, 1}, kSearch, false, -128, -128},
        DwCase{"b16_3x3_s1_column_tiles_vt1", Form::kWindow, 16, 1, 24, 10, 21, 3, 1,
               {0, 1, 1, 0}, {2, 1, 4, 5, 1}, true, 0, 100},
        DwCase{"b16_9x9_diagonal", Form::kDiagonal, 16, 1, 20, 11, 11, 9, 1, {4, 4, 4, 4},
               kSearch},
        // Block 32: T = 16.
        DwCase{"b32_3x3_s1_partial_block", Form::kWindow, 32, 1, 40, 14, 14, 3, 1, {1, 1, 1, 1},
               kSearch, true, 0, 5},
        DwCase{"b32_5x5_s2_asym_pads", Form::kWindow, 32, 1, 72, 13, 12, 5, 2, {2, 1, 1, 2},
               kSearch},
        DwCase{"b32_3x3_s2_batch2_tiles", Form::kWindow, 32, 2, 96, 9, 16, 3, 2, {1, 0, 0, 1},
               {2, 1, 2, 3, 2}, true, 0, -1}),
    [](const ::testing::TestParamInfo<DwCase>& i) { return std::string(i.param.name); });
// clang-format on

// On a small plane the search batches channel blocks into one tile, and the one program beats
// running the blocks one after another even before counting the barriers between them.
TEST(DepthwiseProgram, BatchesBlocksOnSmallPlanes) {
  const HwConfig c = Config(16);
  const Conv2dLayer l =
      Layer(c, DwCase{"dw_7x7x960", Form::kWindow, 16, 1, 960, 7, 7, 3, 1, {1, 1, 1, 1}, kSearch});
  TilingChoice whole;
  Status st = ChooseConv2dTiling(c, l, &whole);
  ASSERT_TRUE(st.ok()) << st.ToString();
  EXPECT_GT(whole.tiling.oc, 1u) << whole.tiling.ToString();
  EXPECT_EQ(whole.tiling.ic, 1u);
  Conv2dLayer block = l;
  block.c_blocks = block.o_blocks = 1;
  TilingChoice one;
  st = ChooseConv2dTiling(c, block, &one);
  ASSERT_TRUE(st.ok()) << st.ToString();
  EXPECT_LT(whole.cycles, one.cycles * l.o_blocks);
  // Real MACs (9 per output), not the GEMM's block_in times as many.
  EXPECT_EQ(whole.macs, uint64_t{960} * 7 * 7 * 9);
}

// The window form's compute: a 3x3 stride-1 output vector costs 3 GEMM cycles (and a little
// warm-up) plus the reset and REQUANT, where the diagonal form's floor was 9 + 2. MobileNetV2's
// 56x56x144 layer on 1x16x16 must come in under 6 cycles per output vector and channel block.
TEST(DepthwiseProgram, WindowFormBeatsTheDiagonalFloor) {
  const HwConfig c = Config(16);
  const Conv2dLayer l = Layer(
      c, DwCase{"dw_56x56x144", Form::kWindow, 16, 1, 144, 56, 56, 3, 1, {1, 1, 1, 1}, kSearch});
  TilingChoice choice;
  Status st = ChooseConv2dTiling(c, l, &choice);
  ASSERT_TRUE(st.ok()) << st.ToString();
  const uint64_t vectors = uint64_t{l.o_blocks} * l.out_h() * l.out_w();
  EXPECT_LT(choice.cycles, 6 * vectors) << choice.tiling.ToString();
  EXPECT_EQ(choice.macs, uint64_t{144} * 56 * 56 * 9);
}

// The search ranks window-form tilings by an estimate and times only the best few; timing every
// tiling that fits must not find one much faster (stride 1 and 2, 1x16x16 and 1x8x8).
TEST(DepthwiseProgram, SearchFindsNearlyTheBestWindowTiling) {
  for (const DwCase& k :
       {DwCase{"s1", Form::kWindow, 16, 1, 48, 28, 28, 3, 1, {1, 1, 1, 1}, kSearch},
        DwCase{"s2", Form::kWindow, 16, 1, 64, 28, 28, 3, 2, {0, 0, 1, 1}, kSearch},
        DwCase{"b8", Form::kWindow, 8, 1, 24, 20, 20, 3, 1, {1, 1, 1, 1}, kSearch}}) {
    const HwConfig c = Config(k.block);
    const Conv2dLayer l = Layer(c, k);
    TilingChoice choice;
    Status st = ChooseConv2dTiling(c, l, &choice);
    ASSERT_TRUE(st.ok()) << st.ToString();
    auto sizes = [](uint32_t n) {
      std::vector<uint32_t> v;
      for (uint32_t d = 1; d <= n; ++d) {
        if (v.empty() || v.back() != CeilDiv(n, d)) v.push_back(CeilDiv(n, d));
      }
      return v;
    };
    uint64_t best = UINT64_MAX;
    Conv2dTiling best_t;
    for (uint32_t v : {1u, 2u}) {
      for (uint32_t oc = 1; oc <= l.o_blocks; ++oc) {
        for (uint32_t oh : sizes(l.out_h())) {
          for (uint32_t ow : sizes(l.out_w())) {
            const Conv2dTiling t{oc, 1, oh, ow, v};
            uint64_t cycles = 0;
            if (!Conv2dTilingFits(c, l, t) || !TimeConv2d(c, l, t, &cycles).ok()) continue;
            if (cycles < best) best = cycles, best_t = t;
          }
        }
      }
    }
    EXPECT_LE(choice.cycles, best + best / 20)
        << k.name << ": search " << choice.tiling.ToString() << " " << choice.cycles << ", best "
        << best_t.ToString() << " " << best;
  }
}

TEST(DepthwiseProgram, RefusesBadTilingsAndShapes) {
  const HwConfig c = Config(16);
  Conv2dLayer l =
      Layer(c, DwCase{"dw", Form::kWindow, 16, 1, 64, 8, 8, 3, 1, {1, 1, 1, 1}, kSearch});
  AccelCode code;
  Status st = EmitConv2d(c, l, Conv2dTiling{2, 2, 8, 8, 2}, &code);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("ic=1"), std::string::npos) << st.message();
  EXPECT_FALSE(Conv2dTilingFits(c, l, Conv2dTiling{2, 2, 8, 8, 2}));
  EXPECT_TRUE(Conv2dTilingFits(c, l, Conv2dTiling{2, 1, 8, 8, 2}));
  l.o_blocks = 3;
  st = l.Check(c);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("depthwise needs as many output as input"), std::string::npos)
      << st.message();
}

}  // namespace
}  // namespace loom::tensorize
