// Conv2d tensorization: the emitted code, run on fsim, must equal a plain int8 reference written
// here from the semantics in compiler/tensorize/conv2d.h, for many shapes and tilings.
#include "compiler/tensorize/conv2d.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <random>

#include "runtime/config/config_file.h"
#include "sim/fsim/fsim.h"
#include "sim/programs/program.h"

namespace loom::tensorize {
namespace {

struct ConvData {
  std::vector<int8_t> x, w;          // NCHW, OIHW
  std::vector<int32_t> bias, mult;   // per output channel
};

ConvData RandomData(const HwConfig& c, const Conv2dLayer& l, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> i8(-128, 127);
  std::uniform_int_distribution<int32_t> bias(-20000, 20000), mult(1 << 12, 1 << 14);
  const size_t N = size_t{l.n_blocks} * c.batch, C = size_t{l.c_blocks} * c.block_in;
  const size_t O = size_t{l.o_blocks} * c.block_out;
  ConvData d;
  d.x.resize(N * C * l.h * l.w);
  d.w.resize(O * C * l.kh * l.kw);
  for (auto& v : d.x) v = static_cast<int8_t>(i8(rng));
  for (auto& v : d.w) v = static_cast<int8_t>(i8(rng));
  for (size_t o = 0; o < O; ++o) {
    d.bias.push_back(l.has_bias ? bias(rng) : 0);
    d.mult.push_back(mult(rng));
  }
  return d;
}

int32_t ShrRnd(int32_t a, int32_t n) {
  if (n <= 0) return static_cast<int32_t>(static_cast<uint32_t>(a) << -n);
  return static_cast<int32_t>((int64_t{a} + (int64_t{1} << (n - 1))) >> n);
}

// NCHW int8 output.
std::vector<int8_t> Reference(const HwConfig& c, const Conv2dLayer& l, const ConvData& d) {
  const int N = l.n_blocks * c.batch, C = l.c_blocks * c.block_in, O = l.o_blocks * c.block_out;
  const int H = l.h, W = l.w, OH = l.out_h(), OW = l.out_w();
  std::vector<int8_t> y(size_t(N) * O * OH * OW);
  for (int n = 0; n < N; ++n)
    for (int o = 0; o < O; ++o)
      for (int oy = 0; oy < OH; ++oy)
        for (int ox = 0; ox < OW; ++ox) {
          uint32_t acc = static_cast<uint32_t>(d.bias[o]);
          for (int ci = 0; ci < C; ++ci)
            for (int ky = 0; ky < int(l.kh); ++ky)
              for (int kx = 0; kx < int(l.kw); ++kx) {
                const int iy = oy * l.stride_h + ky - l.pad_top, ix = ox * l.stride_w + kx - l.pad_left;
                if (iy < 0 || iy >= H || ix < 0 || ix >= W) continue;
                acc += static_cast<uint32_t>(d.x[((size_t(n) * C + ci) * H + iy) * W + ix] *
                                             d.w[((size_t(o) * C + ci) * l.kh + ky) * l.kw + kx]);
              }
          int32_t v = ShrRnd(static_cast<int32_t>(acc), l.pre_shift);
          v = static_cast<int32_t>(static_cast<uint32_t>(int64_t{v} * d.mult[o]));
          v = ShrRnd(v, l.post_shift);
          v = std::min(std::max(v, l.clip_lo), l.clip_hi);
          y[((size_t(n) * O + o) * OH + oy) * OW + ox] = static_cast<int8_t>(std::clamp(v, -128, 127));
        }
  return y;
}

// Builds a runnable program: arena (input, output), constants (weights, bias, mult), micro-ops.
struct Built {
  programs::Program program;
  uint64_t out_addr = 0, out_bytes = 0;
  explicit Built(const HwConfig& c) : program(c) {}
};

Status Build(const HwConfig& c, Conv2dLayer l, const Conv2dTiling& t, const ConvData& d, Built* b) {
  const uint32_t B = c.batch, BI = c.block_in, BO = c.block_out;
  const size_t C = size_t{l.c_blocks} * BI;
  std::vector<int8_t> inp, wgt;
  for (uint32_t nb = 0; nb < l.n_blocks; ++nb)
    for (uint32_t cb = 0; cb < l.c_blocks; ++cb)
      for (uint32_t y = 0; y < l.h; ++y)
        for (uint32_t x = 0; x < l.w; ++x)
          for (uint32_t bb = 0; bb < B; ++bb)
            for (uint32_t i = 0; i < BI; ++i)
              inp.push_back(d.x[(((nb * B + bb) * C + cb * BI + i) * l.h + y) * l.w + x]);
  for (uint32_t ob = 0; ob < l.o_blocks; ++ob)
    for (uint32_t cb = 0; cb < l.c_blocks; ++cb)
      for (uint32_t y = 0; y < l.kh; ++y)
        for (uint32_t x = 0; x < l.kw; ++x)
          for (uint32_t o = 0; o < BO; ++o)
            for (uint32_t i = 0; i < BI; ++i)
              wgt.push_back(d.w[(((ob * BO + o) * C + cb * BI + i) * l.kh + y) * l.kw + x]);
  std::vector<int32_t> bias, mult;
  for (uint32_t ob = 0; ob < l.o_blocks; ++ob)
    for (uint32_t bb = 0; bb < B; ++bb)
      for (uint32_t o = 0; o < BO; ++o) {
        bias.push_back(d.bias[ob * BO + o]);
        mult.push_back(d.mult[ob * BO + o]);
      }
  programs::Program& p = b->program;
  const uint64_t align = 4096;
  const uint64_t arena = p.AddData(programs::Bytes(inp), align);
  b->out_bytes = uint64_t{l.n_blocks} * l.o_blocks * l.out_h() * l.out_w() * c.out_elem_bytes();
  b->out_addr = p.Allocate(b->out_bytes, align);
  const uint64_t consts = p.AddData(programs::Bytes(wgt), align);
  const uint64_t bias_addr = p.AddData(programs::Bytes(bias), c.acc_elem_bytes());
  const uint64_t mult_addr = p.AddData(programs::Bytes(mult), c.acc_elem_bytes());
  l.input = 0;
  l.output = static_cast<uint32_t>((b->out_addr - arena) / c.out_elem_bytes());
  l.weights = 0;
  l.bias = static_cast<uint32_t>((bias_addr - consts) / c.acc_elem_bytes());
  l.mult = static_cast<uint32_t>((mult_addr - consts) / c.acc_elem_bytes());
  AccelCode code;
  LOOM_RETURN_IF_ERROR(EmitConv2d(c, l, t, &code));
  uint64_t uops = 0;
  LOOM_RETURN_IF_ERROR(p.AddUops(code.uops, &uops));
  std::vector<isa::Insn> linked;
  LOOM_RETURN_IF_ERROR(Link(c, code, RegionBases{arena, consts, uops}, &linked));
  for (const isa::Insn& i : linked) p.Emit(i);
  p.Emit(programs::Finish());
  return p.Finalize();
}

struct RunResult {
  Status status;
  std::vector<int8_t> out;  // NCHW
  fsim::Stats stats;
};

RunResult RunOnFsim(const HwConfig& c, const Conv2dLayer& l, const Conv2dTiling& t, const ConvData& d) {
  RunResult r;
  Built b(c);
  r.status = Build(c, l, t, d, &b);
  std::unique_ptr<fsim::Simulator> sim;
  if (r.status.ok()) r.status = fsim::Simulator::Create(c, b.program.dram_bytes(), &sim);
  if (r.status.ok()) {
    r.status = b.program.Install([&](uint64_t a, const uint8_t* p, size_t n) { return sim->dram().Write(a, p, n); });
  }
  if (r.status.ok()) {
    fsim::RunOptions o;
    o.insn_addr = b.program.insn_addr();
    o.insn_count = b.program.insn_count();
    r.status = sim->Run(o, &r.stats);
  }
  if (!r.status.ok()) return r;
  std::vector<uint8_t> blocked(b.out_bytes);
  r.status = sim->dram().Read(b.out_addr, blocked.data(), blocked.size());
  const uint32_t B = c.batch, BO = c.block_out, OH = l.out_h(), OW = l.out_w();
  const size_t O = size_t{l.o_blocks} * BO;
  r.out.resize(size_t{l.n_blocks} * B * O * OH * OW);
  size_t k = 0;
  for (uint32_t nb = 0; nb < l.n_blocks; ++nb)
    for (uint32_t ob = 0; ob < l.o_blocks; ++ob)
      for (uint32_t y = 0; y < OH; ++y)
        for (uint32_t x = 0; x < OW; ++x)
          for (uint32_t bb = 0; bb < B; ++bb)
            for (uint32_t o = 0; o < BO; ++o)
              r.out[(((nb * B + bb) * O + ob * BO + o) * OH + y) * OW + x] = static_cast<int8_t>(blocked[k++]);
  return r;
}

Conv2dLayer Layer(const char* name, uint32_t cb, uint32_t hw, uint32_t ob, uint32_t k, uint32_t stride,
                  uint32_t pad) {
  Conv2dLayer l;
  l.name = name;
  l.c_blocks = cb;
  l.h = l.w = hw;
  l.o_blocks = ob;
  l.kh = l.kw = k;
  l.stride_h = l.stride_w = stride;
  l.pad_top = l.pad_bottom = l.pad_left = l.pad_right = pad;
  l.pre_shift = 6;
  l.post_shift = 16;
  return l;
}


std::vector<Conv2dLayer> Layers() {
  std::vector<Conv2dLayer> v = {
      Layer("1x1_s1", 3, 7, 2, 1, 1, 0),     Layer("3x3_s1_p1", 2, 9, 3, 3, 1, 1),
      Layer("3x3_s2_p1", 2, 10, 2, 3, 2, 1), Layer("5x5_s1_p2", 1, 8, 2, 5, 1, 2),
      Layer("7x7_s2_p3", 1, 12, 2, 7, 2, 3), Layer("1x1_s2", 2, 8, 3, 1, 2, 0),
      Layer("3x3_s1_p0", 2, 6, 1, 3, 1, 0),  Layer("dense", 4, 1, 3, 1, 1, 0),
  };
  Conv2dLayer asym = Layer("3x3_asym_pad", 1, 7, 2, 3, 1, 0);
  asym.pad_top = 2;
  asym.pad_left = 1;
  asym.pad_right = 2;
  asym.pad_bottom = 1;
  asym.clip_lo = 0;  // ReLU
  asym.clip_hi = 6 * 16;
  v.push_back(asym);
  Conv2dLayer nobias = Layer("3x3_nobias_batch2", 2, 5, 2, 3, 1, 1);
  nobias.has_bias = false;
  nobias.n_blocks = 2;
  nobias.pre_shift = 0;
  v.push_back(nobias);
  Conv2dLayer rect = Layer("3x1_rect", 1, 6, 1, 3, 1, 1);
  rect.kw = 1;
  rect.pad_left = rect.pad_right = 0;
  rect.w = 5;
  v.push_back(rect);
  // One-row filters with a vertical stride load only the rows they read (SkipsRows): odd sizes,
  // and a 1x3 with horizontal padding.
  v.push_back(Layer("1x1_s2_odd", 2, 9, 2, 1, 2, 0));
  Conv2dLayer row = Layer("1x3_s2_row_skip", 1, 7, 2, 1, 2, 0);
  row.kw = 3;
  row.pad_left = row.pad_right = 1;
  v.push_back(row);
  return v;
}

class Conv2dTest : public ::testing::TestWithParam<std::tuple<std::string, int>> {};

// The tiling the search chooses, and a deliberately small one that cuts every dimension into
// several tiles with remainders (several passes over the buffers, both virtual threads busy).
TEST_P(Conv2dTest, MatchesReferenceOnFsim) {
  HwConfig c;
  ASSERT_TRUE(LoadHwConfig(std::get<0>(GetParam()), &c).ok());
  const Conv2dLayer l = Layers()[std::get<1>(GetParam())];
  const ConvData d = RandomData(c, l, 17 + std::get<1>(GetParam()));
  const std::vector<int8_t> expected = Reference(c, l, d);
  TilingChoice choice;
  ASSERT_TRUE(ChooseConv2dTiling(c, l, &choice).ok());
  Conv2dTiling small{std::min(2u, l.o_blocks), std::min(2u, l.c_blocks), std::min(2u, l.out_h()),
                     std::min(3u, l.out_w()), 2};
  for (const Conv2dTiling& t : {choice.tiling, small, Conv2dTiling{1, 1, 1, 1, 1}}) {
    SCOPED_TRACE(l.name + " tiling " + t.ToString());
    const RunResult r = RunOnFsim(c, l, t, d);
    ASSERT_TRUE(r.status.ok()) << r.status.ToString();
    EXPECT_EQ(r.out, expected);
    EXPECT_EQ(r.stats.macs, choice.macs);
  }
}

std::string Name(const ::testing::TestParamInfo<Conv2dTest::ParamType>& info) {
  return std::get<0>(info.param) + "_" + Layers()[std::get<1>(info.param)].name;
}

INSTANTIATE_TEST_SUITE_P(tensorize, Conv2dTest,
                         ::testing::Combine(::testing::Values("1x8x8", "1x16x16"),
                                            ::testing::Range(0, 13)),
                         Name);

// A 1x1/2 downsample loads every other input row only: each INP load of a tile of oh output rows
// has oh rows at twice the image's pitch, so the tile's input is half the bytes.
TEST(Conv2dTiling, StridedOneRowFilterLoadsOnlyItsRows) {
  HwConfig c;
  ASSERT_TRUE(LoadHwConfig("1x16x16", &c).ok());
  const Conv2dLayer l = Layer("downsample", 4, 28, 8, 1, 2, 0);
  ASSERT_TRUE(l.SkipsRows());
  const Conv2dTiling t{2, 2, 7, 14, 2};
  AccelCode code;
  ASSERT_TRUE(EmitConv2d(c, l, t, &code).ok());
  size_t loads = 0;
  for (const isa::Insn& i : code.insns) {
    if (i.opcode != isa::Opcode::kLoad || i.buffer != isa::Buffer::kInp) continue;
    ++loads;
    EXPECT_EQ(i.y_size, 7u);
    EXPECT_EQ(i.x_stride, 2 * l.w);
  }
  EXPECT_GT(loads, 0u);
  const ConvData d = RandomData(c, l, 5);
  const RunResult r = RunOnFsim(c, l, t, d);
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(r.out, Reference(c, l, d));
}

// The search's choice is timed on fsim and never loses to the naive one-block-at-a-time tiling.
TEST(Conv2dTiling, ChoiceBeatsNaiveTiling) {
  HwConfig c;
  ASSERT_TRUE(LoadHwConfig("1x16x16", &c).ok());
  const Conv2dLayer l = Layer("resnet_stage2_3x3", 8, 28, 8, 3, 1, 1);
  TilingChoice choice;
  ASSERT_TRUE(ChooseConv2dTiling(c, l, &choice).ok());
  EXPECT_GT(choice.candidates, choice.timed);
  EXPECT_GT(choice.utilization, 0.0);
  EXPECT_LE(choice.utilization, 1.0);
  const ConvData d = RandomData(c, l, 3);
  const RunResult naive = RunOnFsim(c, l, Conv2dTiling{1, 1, 1, 1, 1}, d);
  ASSERT_TRUE(naive.status.ok()) << naive.status.ToString();
  EXPECT_LT(choice.cycles, naive.stats.cycles);
  std::printf("%s: tiling %s, %llu cycles, utilization %.1f%% (naive: %llu cycles)\n",
              l.name.c_str(), choice.tiling.ToString().c_str(),
              static_cast<unsigned long long>(choice.cycles), 100 * choice.utilization,
              static_cast<unsigned long long>(naive.stats.cycles));
}

// Counts the emitted REQUANTs: the epilogue is fused exactly when UsesFusedRequant says so.
size_t CountRequants(const HwConfig& c, const Conv2dLayer& l, const Conv2dTiling& t) {
  AccelCode code;
  EXPECT_TRUE(EmitConv2d(c, l, t, &code).ok());
  size_t n = 0;
  for (const isa::Insn& i : code.insns)
    n += i.opcode == isa::Opcode::kAlu && i.alu_op == isa::AluOp::kRequant;
  return n;
}

// A tile with more output-channel blocks than the parameter buffer has entries, or clip bounds
// beyond int8, falls back to the ALU chain; either way the result is the reference's.
TEST(Conv2dFusedRequant, FallsBackPastTheParameterBufferAndInt8Clips) {
  HwConfig c;
  ASSERT_TRUE(LoadHwConfig("1x8x8", &c).ok());
  const uint32_t over = isa::kRqParamDepth + 1;
  Conv2dLayer l = Layer("dense_33_blocks", 1, 1, over, 1, 1, 0);
  Conv2dLayer high = l, low = l;
  high.name = "clip_above_int8";
  high.clip_lo = 200;
  high.clip_hi = 300;
  low.name = "clip_below_int8";
  low.clip_lo = -300;
  low.clip_hi = -200;
  struct Case {
    const Conv2dLayer& layer;
    Conv2dTiling tiling;
    bool fused;
  };
  const Conv2dTiling wide{over, 1, 1, 1, 1}, fits{isa::kRqParamDepth, 1, 1, 1, 1};
  for (const Case& k : {Case{l, wide, false}, Case{l, fits, true}, Case{high, fits, false},
                        Case{low, fits, false}}) {
    SCOPED_TRACE(k.layer.name + " tiling " + k.tiling.ToString());
    EXPECT_EQ(UsesFusedRequant(k.layer, k.tiling), k.fused);
    // Two tiles (32 + 1 blocks) when it fits, so two REQUANTs; none in the fallback.
    EXPECT_EQ(CountRequants(c, k.layer, k.tiling), k.fused ? 2u : 0u);
    const ConvData d = RandomData(c, k.layer, 29);
    const RunResult r = RunOnFsim(c, k.layer, k.tiling, d);
    ASSERT_TRUE(r.status.ok()) << r.status.ToString();
    EXPECT_EQ(r.out, Reference(c, k.layer, d));
  }
}

TEST(Conv2dTiling, RejectsPaddingAsWideAsTheKernel) {
  HwConfig c;
  ASSERT_TRUE(LoadHwConfig("1x8x8", &c).ok());
  Conv2dLayer l = Layer("edge_only_padding", 1, 7, 1, 3, 1, 1);
  l.pad_right = 3;
  TilingChoice choice;
  const Status s = ChooseConv2dTiling(c, l, &choice);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), ::testing::HasSubstr("edge_only_padding"));
  EXPECT_THAT(s.message(), ::testing::HasSubstr("smaller than the kernel"));
}

TEST(Conv2dTiling, RejectsTilingThatDoesNotFit) {
  HwConfig c;
  ASSERT_TRUE(LoadHwConfig("1x8x8", &c).ok());
  const Conv2dLayer l = Layer("big", 16, 32, 16, 3, 1, 1);
  AccelCode code;
  const Status s = EmitConv2d(c, l, Conv2dTiling{16, 16, 32, 32, 2}, &code);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), ::testing::HasSubstr("does not fit"));
  EXPECT_THAT(s.message(), ::testing::HasSubstr("big"));
}

}  // namespace
}  // namespace loom::tensorize
