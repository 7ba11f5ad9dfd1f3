// Residual add, depthwise convolution and layer chaining: the emitted code, run on fsim, must equal
// the int8 CPU kernels (runtime/kernels/int8), which define the integer program every device
// reproduces.
#include "compiler/tensorize/eltwise.h"

#include <gtest/gtest.h>

#include <cstring>
#include <random>

#include "compiler/tensorize/conv2d.h"
#include "runtime/core/blocked_layout.h"
#include "runtime/kernels/int8/qops.h"
#include "tests/tensorize/fsim_run.h"

namespace loom::tensorize {
namespace {

namespace q = kernels::q;

HwConfig Config(uint32_t block) {
  HwConfig c;
  c.name = "test";
  c.block_in = c.block_out = block;
  c.inp_buffer_bytes = 4096;  // small buffers: every layer needs several passes
  c.acc_buffer_bytes = 8192;
  c.wgt_buffer_bytes = 16384;
  EXPECT_TRUE(c.Validate().ok());
  return c;
}

std::vector<int8_t> Random8(size_t n, std::mt19937* rng) {
  std::uniform_int_distribution<int> d(-128, 127);
  std::vector<int8_t> v(n);
  for (auto& x : v) x = static_cast<int8_t>(d(*rng));
  return v;
}

// An fsim run of accelerator code: the arena and constants are byte images (element offsets in
// the code are relative to them); returns the arena after the run.
struct Machine {
  HwConfig config;
  std::vector<int8_t> arena, constants;
  fsim::Stats stats;

  Status Run(const AccelCode& code) { return RunOnFsim(config, code, constants, &arena, &stats); }
};

struct AddCase {
  const char* name;
  uint32_t block, c, h, w;
  int32_t mult_a, mult_b, shift, clip_lo, clip_hi;
  uint32_t tile;
};

void PrintTo(const AddCase& c, std::ostream* os) { *os << c.name; }

class AddTest : public ::testing::TestWithParam<AddCase> {};

TEST_P(AddTest, MatchesInt8KernelOnFsim) {
  const AddCase& k = GetParam();
  const HwConfig c = Config(k.block);
  const q::Blocking blk{c.batch, c.block_in};
  const q::ActShape s{1, k.c, k.h, k.w};
  const size_t bytes = q::BlockedBytes(blk, s);
  std::mt19937 rng(7);
  Machine m{c, {}, {}, {}};
  // Arena: [a | b | out]; padding lanes of a and b are zero, as every producer writes them.
  std::vector<int8_t> a_plain = Random8(size_t{k.c} * k.h * k.w, &rng);
  std::vector<int8_t> b_plain = Random8(a_plain.size(), &rng);
  std::vector<int8_t> a(bytes), b(bytes);
  ASSERT_TRUE(q::PackActivation(blk, s, a_plain.data(), a.data()).ok());
  ASSERT_TRUE(q::PackActivation(blk, s, b_plain.data(), b.data()).ok());
  m.arena = a;
  m.arena.insert(m.arena.end(), b.begin(), b.end());
  m.arena.resize(3 * bytes, 0x55);

  AddLayer l;
  l.name = k.name;
  l.elems = static_cast<uint32_t>(bytes / c.inp_elem_bytes());
  l.mult_a = k.mult_a;
  l.mult_b = k.mult_b;
  m.constants = AddWeights(c, l);
  l.shift = k.shift;
  l.clip_lo = k.clip_lo;
  l.clip_hi = k.clip_hi;
  l.a = 0;
  l.b = l.elems;
  l.output = 2 * l.elems;
  AccelCode code;
  ASSERT_TRUE(EmitAdd(c, l, &code, k.tile).ok());
  const Status st = m.Run(code);
  ASSERT_TRUE(st.ok()) << st.ToString();

  q::AddParams p;
  p.shape = s;
  p.mult_a = k.mult_a;
  p.mult_b = k.mult_b;
  p.shift = k.shift;
  p.clip_lo = k.clip_lo;
  p.clip_hi = k.clip_hi;
  std::vector<int8_t> want(bytes);
  ASSERT_TRUE(q::Add(blk, p, a.data(), b.data(), want.data()).ok());
  const std::vector<int8_t> got(m.arena.begin() + 2 * bytes, m.arena.end());
  // Padding lanes: the accelerator computes them from zero inputs; only real lanes are compared.
  std::vector<int8_t> got_plain(a_plain.size()), want_plain(a_plain.size());
  ASSERT_TRUE(q::UnpackActivation(blk, s, got.data(), got_plain.data()).ok());
  ASSERT_TRUE(q::UnpackActivation(blk, s, want.data(), want_plain.data()).ok());
  EXPECT_EQ(got_plain, want_plain);
}

INSTANTIATE_TEST_SUITE_P(
    tensorize, AddTest,
    ::testing::Values(AddCase{"one_tile", 8, 16, 4, 4, 3, 5, 3, -128, 127, 0},
                      AddCase{"many_tiles", 8, 20, 9, 7, 1200, -900, 11, -128, 127, 0},
                      AddCase{"small_tiles_relu", 16, 40, 5, 5, 21000, 32767, 15, 0, 127, 7},
                      AddCase{"relu6_unit", 8, 8, 3, 3, 1, 1, 0, 0, 90, 5},
                      AddCase{"negative_mult", 16, 16, 2, 3, -32768, 17, 9, -100, 100, 0},
                      // Digit edges: hi = 128 (two micro-ops of 64), lo = -128, lo = 127 with
                      // hi = -1, and a whole multiple of 256 (lo = 0).
                      AddCase{"digit_edges", 8, 8, 3, 5, 32640, -129, 12, -128, 127, 0},
                      AddCase{"multiple_of_256", 16, 16, 3, 3, 512, -7680, 10, -128, 127, 4}),
    [](const ::testing::TestParamInfo<AddCase>& i) { return std::string(i.param.name); });

TEST(AddLayer, RejectsBadParameters) {
  const HwConfig c = Config(8);
  AddLayer l;
  l.name = "bad";
  l.elems = 4;
  l.mult_a = 40000;
  AccelCode code;
  const Status st = EmitAdd(c, l, &code);
  EXPECT_FALSE(st.ok());
  EXPECT_NE(st.message().find("layer bad"), std::string::npos) << st.message();
  l.mult_a = 1;
  l.shift = 32;
  EXPECT_FALSE(EmitAdd(c, l, &code).ok());
  l.shift = 0;
  l.elems = 0;
  EXPECT_FALSE(EmitAdd(c, l, &code).ok());
}

struct PoolCase {
  const char* name;
  uint32_t n, c, h, w, k, stride, pad, rows;
  bool average = false;
  int32_t mult = 1, pre = 0, post = 0, clip_lo = -128;
  bool fused = false;  // the requantization EmitPool is expected to pick
  int32_t x_offset = 0, out_offset = 0;
  bool negative = false;      // every input below 0 (a padded max pool's hard case)
  uint32_t acc_bytes = 8192;  // a larger ACC for windows of more than 128 elements
};

void PrintTo(const PoolCase& c, std::ostream* os) { *os << c.name; }

class PoolTest : public ::testing::TestWithParam<PoolCase> {};

TEST_P(PoolTest, MatchesInt8KernelOnFsim) {
  const PoolCase& k = GetParam();
  HwConfig c = Config(8);
  c.acc_buffer_bytes = k.acc_bytes;
  ASSERT_TRUE(c.Validate().ok());
  const q::Blocking blk{c.batch, c.block_in};
  q::PoolParams p;
  p.in = {k.n, k.c, k.h, k.w};
  p.kh = p.kw = k.k;
  p.stride_h = p.stride_w = k.stride;
  p.pad_top = p.pad_left = p.pad_bottom = p.pad_right = k.pad;
  std::mt19937 rng(5);
  std::vector<int8_t> x_plain = Random8(size_t{k.n} * k.c * k.h * k.w, &rng);
  // The max pool pads with -128, so no border value can win even over negative inputs.
  if (k.negative)
    for (auto& v : x_plain) v = static_cast<int8_t>(v < 0 ? v : -(v + 1));
  const size_t in_bytes = q::BlockedBytes(blk, p.in), out_bytes = q::BlockedBytes(blk, p.out());
  std::vector<int8_t> x(in_bytes), want(out_bytes);
  ASSERT_TRUE(q::PackActivation(blk, p.in, x_plain.data(), x.data()).ok());
  if (k.average) {
    // Padding counts (count_include_pad), so every window divides by k * k.
    q::AvgPoolParams ap;
    ap.pool = p;
    ap.count_include_pad = true;
    ap.x_offset = k.x_offset;
    ap.out_offset = k.out_offset;
    ap.rq = {k.pre, k.post, k.clip_lo, 127};
    std::vector<int32_t> mult_by_count(size_t{k.k} * k.k, 0);
    mult_by_count.back() = k.mult;
    ASSERT_TRUE(q::AvgPool(blk, ap, mult_by_count.data(), x.data(), want.data()).ok());
  } else {
    ASSERT_TRUE(q::MaxPool(blk, p, x.data(), want.data()).ok());
  }

  Machine m{c, {}, {}, {}};
  m.arena = x;
  m.arena.resize(in_bytes + out_bytes, 0x44);
  m.constants = IdentityWeights(c);
  PoolLayer l = PoolGeometry(c, k.name, k.n, k.c, k.h, k.w,
                             {k.k, k.k, k.stride, k.stride, k.pad, k.pad, k.pad, k.pad});
  if (k.average) SetAverageOffsets(k.x_offset, k.out_offset, &l);
  l.input = 0;
  l.output = static_cast<uint32_t>(in_bytes / c.inp_elem_bytes());
  l.average = k.average;
  l.mult = k.mult;
  l.pre_shift = k.pre;
  l.post_shift = k.post;
  l.clip_lo = k.clip_lo;
  AccelCode code;
  Status st = EmitPool(c, l, &code, k.rows);
  ASSERT_TRUE(st.ok()) << st.ToString();
  // Both requantizations are exercised: the fused REQUANT (after one RQPARAM) and the ALU chain.
  size_t requants = 0, rqparams = 0;
  for (const isa::Insn& i : code.insns) {
    if (i.opcode != isa::Opcode::kAlu) continue;
    requants += i.alu_op == isa::AluOp::kRequant;
    rqparams += i.alu_op == isa::AluOp::kRqParam;
  }
  EXPECT_EQ(l.fused_requant(c), k.fused);
  EXPECT_EQ(rqparams, k.fused ? 1u : 0u);
  EXPECT_EQ(requants > 0, k.fused);
  st = m.Run(code);
  ASSERT_TRUE(st.ok()) << st.ToString();
  std::vector<int8_t> got_plain(size_t{k.n} * k.c * p.out_h() * p.out_w()), want_plain(got_plain.size());
  ASSERT_TRUE(q::UnpackActivation(blk, p.out(), m.arena.data() + in_bytes, got_plain.data()).ok());
  ASSERT_TRUE(q::UnpackActivation(blk, p.out(), want.data(), want_plain.data()).ok());
  EXPECT_EQ(got_plain, want_plain);
}

INSTANTIATE_TEST_SUITE_P(
    tensorize, PoolTest,
    ::testing::Values(
        PoolCase{"max_k3_s2_p1", 1, 16, 9, 9, 3, 2, 1, 0},
        PoolCase{"max_k3_s2_p1_negative", 1, 12, 9, 8, 3, 2, 1, 0, false, 1, 0, 0, -128, false, 0,
                 0, true},
        PoolCase{"max_k2_s2_signed", 1, 12, 8, 6, 2, 2, 0, 0},
        PoolCase{"max_k3_s1_row_tiles", 1, 8, 7, 7, 3, 1, 0, 2},
        PoolCase{"max_k3_s2_p1_batch2_one_row", 2, 20, 11, 10, 3, 2, 1, 1},
        PoolCase{"avg_global_7x7", 1, 20, 7, 7, 7, 1, 0, 0, true, 21399, 0, 20, -128, true},
        PoolCase{"avg_k3_s2_p1_relu_pre", 1, 12, 9, 9, 3, 2, 1, 2, true, 29127, 2, 16, 0, true},
        PoolCase{"avg_k2_s2_batch2", 2, 8, 6, 6, 2, 2, 0, 0, true, 16384, 0, 16, -128, true},
        // A left shift (REQUANT shifts only right): the ALU chain.
        PoolCase{"avg_k2_s2_left_shift_chain", 1, 12, 6, 6, 2, 2, 0, 0, true, -3, -2, 4, -100},
        // One row fills ACC to its last element (2 x (64 + 64) of 256): no room for
        // RQP entry 0's two elements, so the ALU chain.
        PoolCase{"avg_k1_full_acc_chain", 1, 8, 3, 64, 1, 1, 0, 0, true, 300, 0, 8},
        // Zero points (C a multiple of the block: no padding lanes). An input from a ReLU
        // (x_offset 128) into an output with z = -128: out_offset keeps REQUANT out (it clips
        // before any ADD could follow), so the chain adds 49 * 128 and then -128.
        PoolCase{"avg_global_7x7_offsets", 1, 16, 7, 7, 7, 1, 0, 0, true, 21399, 0, 20, -128, false,
                 128, -128},
        // x_offset alone: REQUANT with RQP entry 0's bias 49 * -77.
        PoolCase{"avg_global_7x7_x_offset_fused", 1, 16, 7, 7, 7, 1, 0, 0, true, 21399, 0, 20, -128,
                 true, -77, 0},
        // Padding counted, padded with the input's zero point 37 (and -100 below).
        PoolCase{"avg_k3_s2_p1_offsets", 1, 16, 9, 9, 3, 2, 1, 2, true, 29127, 2, 16, -128, false,
                 -37, 20},
        PoolCase{"avg_k3_s2_p1_x_offset_fused", 1, 8, 9, 9, 3, 2, 1, 0, true, 29127, 2, 16, -20,
                 true, 100, 0},
        // 144 * 255 = 36720 needs two 16-bit immediates, in the chain and in RQP's bias (the
        // fused one scaled by 1/3 to stay inside int8).
        PoolCase{"avg_global_12x12_wide_offset", 1, 8, 12, 12, 12, 1, 0, 0, true, 7282, 0, 20, -128,
                 false, 255, -200, false, 16384},
        PoolCase{"avg_global_12x12_wide_offset_fused", 1, 8, 12, 12, 12, 1, 0, 0, true, 2427, 0, 20,
                 -128, true, 255, 0, false, 16384}),
    [](const ::testing::TestParamInfo<PoolCase>& i) { return std::string(i.param.name); });

// The pool's refusals name the layer: offsets with padding lanes, a padded average whose pad value
// is not its input's zero point (or whose zero point is no int8), a positive pad on a max pool.
TEST(PoolLayer, RefusesWhatItCannotComputeExactly) {
  const HwConfig c = Config(8);
  const Window2d padded{3, 3, 1, 1, 1, 1, 1, 1}, plain{2, 2, 2, 2, 0, 0, 0, 0};
  PoolLayer l = PoolGeometry(c, "gap", 1, 12, 6, 6, plain);
  l.average = true;
  EXPECT_TRUE(l.padding_lanes);
  EXPECT_TRUE(l.Check(c).ok());
  SetAverageOffsets(128, -128, &l);
  Status st = l.Check(c);
  EXPECT_NE(st.message().find("layer gap: zero-point offsets (x_offset 128, out_offset -128) need "
                              "C a multiple of 8"),
            std::string::npos)
      << st.message();
  AccelCode code;
  EXPECT_FALSE(EmitPool(c, l, &code).ok());

  l = PoolGeometry(c, "avg_pad", 1, 16, 6, 6, padded);
  EXPECT_FALSE(l.padding_lanes);
  l.average = true;
  st = l.Check(c);  // PoolGeometry's -128 is a max pool's pad: an average must set its own
  EXPECT_NE(st.message().find("must pad with the input's zero point 0, not -128"),
            std::string::npos)
      << st.message();
  SetAverageOffsets(-37, 5, &l);
  EXPECT_EQ(l.pad_value, 37);
  EXPECT_TRUE(l.Check(c).ok()) << l.Check(c).ToString();
  SetAverageOffsets(-128, 0, &l);  // zero point 128: no int8 pad value holds it
  st = l.Check(c);
  EXPECT_NE(st.message().find("must pad with the input's zero point 128, which is no int8"),
            std::string::npos)
      << st.message();
  l.pad_top = l.pad_left = l.pad_bottom = l.pad_right = 0;  // unpadded: the pad value is unused
  EXPECT_TRUE(l.Check(c).ok()) << l.Check(c).ToString();
  SetAverageOffsets(0, 256, &l);
  EXPECT_NE(l.Check(c).message().find("outside [-255, 255]"), std::string::npos);

  l = PoolGeometry(c, "max_pad", 1, 12, 6, 6, padded);
  EXPECT_EQ(l.pad_value, -128);
  EXPECT_TRUE(l.Check(c).ok());
  l.pad_value = 3;
  st = l.Check(c);
  EXPECT_NE(st.message().find("layer max_pad: max pooling padded with 3"), std::string::npos)
      << st.message();
}

struct DwCase {
  const char* name;
  uint32_t c, h, w, k, stride, pad;
};

void PrintTo(const DwCase& c, std::ostream* os) { *os << c.name; }

class DepthwiseTest : public ::testing::TestWithParam<DwCase> {};

// Depthwise convolution followed (through a barrier) by a residual add that reads its output:
// the chain is one program, as in an accelerator segment.
TEST_P(DepthwiseTest, ChainedWithAddMatchesInt8KernelsOnFsim) {
  const DwCase& k = GetParam();
  const HwConfig c = Config(8);
  const q::Blocking blk{c.batch, c.block_in};
  q::Conv2dParams p;
  p.in = {1, k.c, k.h, k.w};
  p.out_c = k.c;
  p.kh = p.kw = k.k;
  p.stride_h = p.stride_w = k.stride;
  p.pad_top = p.pad_left = p.pad_bottom = p.pad_right = k.pad;
  p.depthwise = true;
  p.rq = {4, 12, 0, 127};
  std::mt19937 rng(11);
  const std::vector<int8_t> x_plain = Random8(size_t{k.c} * k.h * k.w, &rng);
  const std::vector<int8_t> w = Random8(size_t{k.c} * k.k * k.k, &rng);
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

  // Reference: y = depthwise(x), z = add(y, y). The add reads what the depthwise layer stored,
  // so it is only right if the barrier orders the stores before the loads.
  std::vector<int8_t> y(out_bytes), z(out_bytes);
  ASSERT_TRUE(q::Conv2d(blk, p, x.data(), wq.data(), bias_q.data(), mult_q.data(), y.data()).ok());
  q::AddParams ap;
  ap.shape = p.out();
  ap.mult_a = 3;
  ap.mult_b = -1;
  ap.shift = 1;
  ASSERT_TRUE(q::Add(blk, ap, y.data(), y.data(), z.data()).ok());

  // Accelerator: arena [x | y | z]; constants [identity | depthwise weights | bias | mult | add].
  Machine m{c, {}, {}, {}};
  m.arena = x;
  m.arena.resize(in_bytes + 2 * out_bytes, 0x33);
  const uint32_t ie = c.inp_elem_bytes(), ae = c.acc_elem_bytes();
  m.constants = IdentityWeights(c);
  const std::vector<int8_t> diag = DepthwiseWeights(c, k.c, k.k, k.k, w.data());
  m.constants.insert(m.constants.end(), diag.begin(), diag.end());
  const size_t bias_at = m.constants.size();
  m.constants.resize(bias_at + 2 * vec * 4);
  std::memcpy(m.constants.data() + bias_at, bias_q.data(), vec * 4);
  std::memcpy(m.constants.data() + bias_at + vec * 4, mult_q.data(), vec * 4);

  Conv2dLayer l;
  l.name = k.name;
  l.c_blocks = l.o_blocks = CeilDiv(k.c, c.block_in);
  l.depthwise = true;
  l.h = k.h;
  l.w = k.w;
  l.kh = l.kw = k.k;
  l.stride_h = l.stride_w = k.stride;
  l.pad_top = l.pad_left = l.pad_bottom = l.pad_right = k.pad;
  l.pre_shift = p.rq.pre_shift;
  l.post_shift = p.rq.post_shift;
  l.clip_lo = p.rq.clip_lo;
  l.clip_hi = p.rq.clip_hi;
  l.input = 0;
  l.output = static_cast<uint32_t>(in_bytes / ie);
  l.weights = 1;
  l.bias = static_cast<uint32_t>(bias_at / ae);
  l.mult = static_cast<uint32_t>((bias_at + vec * 4) / ae);
  ASSERT_EQ(bias_at % ae, 0u);
  TilingChoice choice;
  ASSERT_TRUE(ChooseConv2dTiling(c, l, &choice).ok());
  AccelCode code;
  Status st = EmitConv2d(c, l, choice.tiling, &code);
  ASSERT_TRUE(st.ok()) << st.ToString();
  const size_t barrier = EmitBufferBarrier(&code);  // the add reads the depthwise output:
  AddLayer add;
  add.name = "add";
  add.elems = static_cast<uint32_t>(out_bytes / ie);
  add.mult_a = ap.mult_a;
  add.mult_b = ap.mult_b;
  add.shift = ap.shift;
  add.a = add.b = l.output;
  add.output = static_cast<uint32_t>((in_bytes + out_bytes) / ie);
  const size_t we = c.wgt_elem_bytes();  // the add's digit weights after the channel vectors
  const size_t add_at = (m.constants.size() + we - 1) / we * we;
  const std::vector<int8_t> add_w = AddWeights(c, add);
  m.constants.resize(add_at);
  m.constants.insert(m.constants.end(), add_w.begin(), add_w.end());
  add.weights = static_cast<uint32_t>(add_at / we);
  ASSERT_TRUE(EmitAdd(c, add, &code, 5).ok());
  SettleBarrier(c, 0, barrier, &code);  // SettleBarrier makes it a layer barrier
  EXPECT_TRUE(code.insns[barrier + 1].deps.pop_next);
  st = m.Run(code);
  ASSERT_TRUE(st.ok()) << st.ToString();

  auto real = [&](const int8_t* blocked) {
    std::vector<int8_t> plain(size_t{k.c} * p.out_h() * p.out_w());
    EXPECT_TRUE(q::UnpackActivation(blk, p.out(), blocked, plain.data()).ok());
    return plain;
  };
  EXPECT_EQ(real(m.arena.data() + in_bytes), real(y.data())) << "depthwise output";
  EXPECT_EQ(real(m.arena.data() + in_bytes + out_bytes), real(z.data())) << "add output";
}

// SettleBarrier keeps the buffer barrier only when the next layer loads no arena byte the
// previous one stores; the token pushes and pops balance either way.
TEST(Barrier, WeakOnlyWithoutADramDependency) {
  HwConfig c;
  for (const uint32_t load_at : {0u, 40u, 100u, 500u}) {
    SCOPED_TRACE(load_at);
    AccelCode code;
    isa::Insn st;
    st.opcode = isa::Opcode::kStore;
    st.buffer = isa::Buffer::kOut;
    st.dram_base = 20;
    st.y_size = 1;
    st.x_size = st.x_stride = 80;  // arena OUT elements [20, 100)
    code.Emit(st, Region::kArena);
    const size_t at = EmitBufferBarrier(&code);
    isa::Insn ld = st;
    ld.opcode = isa::Opcode::kLoad;
    ld.buffer = isa::Buffer::kInp;  // same element size as OUT on the default config
    ld.dram_base = load_at;
    ld.x_size = ld.x_stride = 20;
    code.Emit(ld, Region::kArena);
    SettleBarrier(c, 0, at, &code);
    const bool dependent = load_at + 20 > 20 && load_at < 100;
    const isa::Deps& computed = code.insns[at + 1].deps;
    EXPECT_EQ(computed.pop_next, dependent);  // the loads wait for the stores
    EXPECT_TRUE(code.insns[at].deps.push_prev && computed.push_prev);
    EXPECT_TRUE(code.insns[at + 2].deps.pop_next);
    // The buffer barrier's second GEMM (only the computation waits for the stores), or none.
    ASSERT_EQ(code.insns.size(), dependent ? 5u : 6u);
    ASSERT_EQ(code.regions.size(), code.insns.size());
    EXPECT_EQ(code.insns[at + 3].opcode, dependent ? isa::Opcode::kLoad : isa::Opcode::kGemm);
    EXPECT_EQ(code.insns[at + 3].deps.pop_next, !dependent);
  }
}

INSTANTIATE_TEST_SUITE_P(tensorize, DepthwiseTest,
                         ::testing::Values(DwCase{"dw3x3_s1_p1", 16, 9, 9, 3, 1, 1},
                                           DwCase{"dw3x3_s2_p1_partial_block", 20, 10, 10, 3, 2, 1},
                                           DwCase{"dw5x5_s1_p2", 8, 7, 6, 5, 1, 2}),
                         [](const ::testing::TestParamInfo<DwCase>& i) {
                           return std::string(i.param.name);
                         });

}  // namespace
}  // namespace loom::tensorize
