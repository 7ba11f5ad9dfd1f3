// q.mul on the accelerator: the emitted code, run on fsim, must equal the int8 CPU kernel
// (runtime/kernels/int8/mul.cc) byte for byte, padding lanes included — same-shape products,
// per-channel gates over whole planes and over chunks of one plane, the hard-sigmoid clamp of b
// (hard-swish reads one tensor as both operands), pre-shifts, clips, batch blocks, and the zero
// points of asymmetric activations (a_offset, out_offset) on tensors without padding lanes.
#include "compiler/tensorize/mul.h"

#include <gtest/gtest.h>

#include <random>

#include "compiler/tensorize/eltwise.h"
#include "runtime/kernels/int8/qops.h"
#include "tests/tensorize/fsim_run.h"

namespace loom::tensorize {
namespace {

namespace q = kernels::q;

struct MulCase {
  const char* name;
  uint32_t batch, block, n, c, h, w;
  bool per_channel, same_tensor;
  int32_t b_mult, b_offset, b_lo, b_hi, mult, pre_shift, post_shift, clip_lo, clip_hi;
  uint32_t max_tile;
  int32_t a_offset = 0, out_offset = 0;
};

void PrintTo(const MulCase& c, std::ostream* os) { *os << c.name; }

class MulTest : public ::testing::TestWithParam<MulCase> {};

TEST_P(MulTest, MatchesInt8KernelOnFsim) {
  const MulCase& k = GetParam();
  HwConfig c;
  c.name = "test";
  c.batch = k.batch;
  c.block_in = c.block_out = k.block;
  c.inp_buffer_bytes = 4096;  // small buffers: every layer needs several tiles
  c.acc_buffer_bytes = 8192 * k.batch;
  c.wgt_buffer_bytes = 16384;
  ASSERT_TRUE(c.Validate().ok());
  const q::Blocking blk{c.batch, c.block_in};
  const q::ActShape s{k.n, k.c, k.h, k.w};
  const q::ActShape bs = k.per_channel ? q::ActShape{k.n, k.c, 1, 1} : s;
  std::mt19937 rng(11);
  std::uniform_int_distribution<int> d(-128, 127);
  auto random_packed = [&](const q::ActShape& shape) {
    std::vector<int8_t> plain(size_t{shape.n} * shape.c * shape.h * shape.w), packed;
    for (auto& x : plain) x = static_cast<int8_t>(d(rng));
    packed.resize(q::BlockedBytes(blk, shape));
    EXPECT_TRUE(q::PackActivation(blk, shape, plain.data(), packed.data()).ok());
    return packed;
  };
  const std::vector<int8_t> a = random_packed(s);
  const std::vector<int8_t> b = k.same_tensor ? a : random_packed(bs);
  const uint32_t eb = c.inp_elem_bytes();

  // Arena: [a | b | out] (b is a itself for hard-swish).
  std::vector<int8_t> arena = a;
  if (!k.same_tensor) arena.insert(arena.end(), b.begin(), b.end());
  const size_t out_at = arena.size();
  arena.resize(out_at + a.size(), 0x55);

  MulLayer l = MulGeometry(c, k.name, k.n, k.c, k.h, k.w, k.per_channel);
  l.same_operand = k.same_tensor;
  l.b_mult = k.b_mult;
  l.b_offset = k.b_offset;
  l.b_lo = k.b_lo;
  l.b_hi = k.b_hi;
  l.mult = k.mult;
  l.pre_shift = k.pre_shift;
  l.post_shift = k.post_shift;
  l.clip_lo = k.clip_lo;
  l.clip_hi = k.clip_hi;
  l.a_offset = k.a_offset;
  l.out_offset = k.out_offset;
  l.a = 0;
  l.b = k.same_tensor ? 0 : static_cast<uint32_t>(a.size() / eb);
  l.output = static_cast<uint32_t>(out_at / eb);
  l.identity = 0;
  AccelCode code;
  ASSERT_TRUE(EmitMul(c, l, &code, k.max_tile).ok());

  const Status st = RunOnFsim(c, code, IdentityWeights(c), &arena);
  ASSERT_TRUE(st.ok()) << st.ToString();

  q::MulParams mp;
  mp.shape = s;
  mp.b_per_channel = k.per_channel;
  mp.b_mult = k.b_mult;
  mp.b_offset = k.b_offset;
  mp.b_lo = k.b_lo;
  mp.b_hi = k.b_hi;
  mp.mult = k.mult;
  mp.a_offset = k.a_offset;
  mp.out_offset = k.out_offset;
  mp.rq = {k.pre_shift, k.post_shift, k.clip_lo, k.clip_hi};
  std::vector<int8_t> want(a.size());
  ASSERT_TRUE(q::Mul(blk, mp, a.data(), b.data(), want.data()).ok());
  const std::vector<int8_t> got(arena.begin() + static_cast<std::ptrdiff_t>(out_at), arena.end());
  EXPECT_EQ(got, want);
}

INSTANTIATE_TEST_SUITE_P(
    tensorize, MulTest,
    // name, B, block, n, c, h, w, per_channel, same_tensor, b_mult, b_offset, b_lo, b_hi, mult,
    // pre_shift, post_shift, clip_lo, clip_hi, max_tile
    ::testing::Values(MulCase{"same_shape", 1, 8, 1, 20, 9, 7, false, false, 1, 0, -128, 127, 23000,
                              0, 21, -128, 127, 0},
                      MulCase{"same_small_tiles", 1, 16, 1, 40, 5, 5, false, false, 1, 0, -128, 127,
                              -17000, 0, 20, 0, 127, 7},
                      MulCase{"se_planes", 1, 8, 1, 44, 6, 6, true, false, 1, 0, -128, 127, 30000,
                              0, 22, -128, 127, 0},
                      MulCase{"se_planes_tiles", 1, 16, 1, 50, 4, 3, true, false, 1, 0, -128, 127,
                              12000, 0, 19, 0, 127, 30},
                      MulCase{"se_chunks", 1, 8, 1, 12, 40, 30, true, false, 1, 0, -128, 127, 25000,
                              0, 21, -128, 127, 0},
                      MulCase{"se_hard_sigmoid", 1, 16, 1, 24, 7, 7, true, false, 1, 21, 0, 42,
                              31000, 0, 18, -128, 127, 0},
                      MulCase{"se_fine_gate", 1, 8, 1, 24, 5, 5, true, false, 110, 8192, 0, 16384,
                              30000, 6, 27, -128, 127, 0},
                      MulCase{"hard_swish", 1, 8, 1, 16, 8, 8, false, true, 1, 64, 0, 127, 20000, 0,
                              22, -128, 127, 0},
                      MulCase{"hard_swish_fine", 1, 16, 1, 18, 5, 6, false, true, 117, 8192, 0,
                              16384, 32767, 6, 27, -128, 127, 11},
                      MulCase{"batch_blocks", 2, 8, 3, 10, 3, 4, true, false, 1, -5, -20, 100, 9000,
                              0, 17, -100, 100, 0}),
    [](const ::testing::TestParamInfo<MulCase>& i) { return std::string(i.param.name); });

// Zero points of asymmetric activations, on tensors without padding lanes (C a multiple of the
// block, N of the batch), with offsets of both signs: a from a ReLU (z = -128) into an output with
// z = -128 over several tiles; a clip that excludes 0 (fine without padding lanes); per-channel
// gates over whole planes and over chunks; hard-swish, where b is the raw x (its zero point folded
// into b_offset) and a's zero point comes off a's plane after b's copy; batch blocks at the range
// ends.
MulCase WithOffsets(MulCase c, int32_t a_offset, int32_t out_offset) {
  c.a_offset = a_offset;
  c.out_offset = out_offset;
  return c;
}

INSTANTIATE_TEST_SUITE_P(
    offsets, MulTest,
    ::testing::Values(WithOffsets({"uint8_like", 1, 8, 1, 16, 9, 7, false, false, 1, 0, -128, 127,
                                   23000, 0, 21, -128, 127, 0},
                                  128, -128),
                      WithOffsets({"clip_above_0", 1, 16, 1, 32, 5, 5, false, false, 1, 0, -128,
                                   127, -17000, 0, 20, 10, 120, 7},
                                  -100, 77),
                      WithOffsets({"se_planes", 1, 8, 1, 24, 6, 6, true, false, 1, 0, -128, 127,
                                   30000, 0, 22, -128, 127, 0},
                                  -3, 5),
                      WithOffsets({"se_chunks", 1, 8, 1, 8, 40, 30, true, false, 1, 0, -128, 127,
                                   25000, 0, 21, -128, 127, 0},
                                  90, -40),
                      WithOffsets({"hard_swish", 1, 8, 1, 16, 8, 8, false, true, 1, 27, 0, 127,
                                   20000, 0, 22, -128, 127, 0},
                                  37, -37),
                      WithOffsets({"hard_swish_fine", 1, 16, 1, 16, 5, 6, false, true, 117, 8192, 0,
                                   16384, 32767, 6, 27, -128, 127, 11},
                                  128, -128),
                      WithOffsets({"batch_blocks", 2, 8, 4, 16, 3, 4, true, false, 1, -5, -20, 100,
                                   9000, 0, 17, -100, 100, 0},
                                  -255, 255)),
    [](const ::testing::TestParamInfo<MulCase>& i) { return std::string(i.param.name); });

// Offsets add to every lane: with lanes past C (or batch rows past N) the layer is refused, naming
// it, and without them it is taken; the offsets' range is the kernel's.
TEST(MulLayer, RefusesOffsetsOnPaddingLanes) {
  HwConfig c;
  c.name = "test";
  c.batch = 2;
  c.block_in = c.block_out = 8;
  c.inp_buffer_bytes = 4096;
  c.acc_buffer_bytes = 16384;
  c.wgt_buffer_bytes = 16384;
  ASSERT_TRUE(c.Validate().ok()) << c.Validate().ToString();
  MulLayer l = MulGeometry(c, "se_scale", 2, 20, 4, 4, true);
  EXPECT_TRUE(l.padding_lanes);
  EXPECT_TRUE(l.Check(c).ok());
  l.out_offset = -128;
  EXPECT_FALSE(l.offsets_fit());
  Status st = l.Check(c);
  EXPECT_FALSE(st.ok());
  EXPECT_NE(st.message().find("layer se_scale: zero-point offsets (a_offset 0, out_offset -128) "
                              "need C a multiple of 8 and N of 2"),
            std::string::npos)
      << st.message();
  AccelCode code;
  EXPECT_FALSE(EmitMul(c, l, &code).ok());
  EXPECT_TRUE(code.insns.empty());
  l = MulGeometry(c, "odd_batch", 3, 16, 4, 4, false);  // a third image in a batch block of 2
  l.a_offset = 1;
  EXPECT_FALSE(l.Check(c).ok());
  l = MulGeometry(c, "full", 2, 16, 4, 4, false);
  EXPECT_FALSE(l.padding_lanes);
  l.a_offset = 255;
  l.out_offset = -255;
  l.clip_lo = 5;  // excludes 0: no padding lane needs it
  EXPECT_TRUE(l.Check(c).ok()) << l.Check(c).ToString();
  l.a_offset = 256;
  st = l.Check(c);
  EXPECT_NE(st.message().find("outside [-255, 255]"), std::string::npos) << st.message();
}

}  // namespace
}  // namespace loom::tensorize
