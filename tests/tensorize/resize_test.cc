// q.resize and q.zero_insert on the accelerator: the emitted copy pattern, run on fsim, must equal
// the int8 CPU kernels (runtime/kernels/int8/resize.cc, zero_insert.cc) byte for byte, padding
// lanes included — x2, other integer factors, partial channel and batch blocks, tiles of a few rows
// and tiles that cut through planes. A zero insertion runs after a resize in the same program, so
// the ACC it resets holds the resize's values, not fsim's initial zeros.
#include "compiler/tensorize/resize.h"

#include <gtest/gtest.h>

#include <random>

#include "compiler/tensorize/eltwise.h"
#include "runtime/kernels/int8/qops.h"
#include "tests/tensorize/fsim_run.h"

namespace loom::tensorize {
namespace {

namespace q = kernels::q;

struct ResizeCase {
  const char* name;
  uint32_t batch, block, n, c, h, w, fh, fw;
  uint32_t max_rows;
  bool zeros = false;  // q.zero_insert with strides fh x fw
};

void PrintTo(const ResizeCase& c, std::ostream* os) { *os << c.name; }

class ResizeTest : public ::testing::TestWithParam<ResizeCase> {};

TEST_P(ResizeTest, MatchesInt8KernelOnFsim) {
  const ResizeCase& k = GetParam();
  HwConfig c;
  c.name = "test";
  c.batch = k.batch;
  c.block_in = c.block_out = k.block;
  c.inp_buffer_bytes = 4096;  // small buffers: several tiles per layer
  c.acc_buffer_bytes = 8192 * k.batch;
  c.wgt_buffer_bytes = 16384;
  ASSERT_TRUE(c.Validate().ok());
  const q::Blocking blk{c.batch, c.block_in};
  const uint32_t eb = c.inp_elem_bytes();
  std::mt19937 rng(9);
  std::uniform_int_distribution<int> d(-128, 127);

  // Arena: [input | output], the output pre-filled with garbage.
  const q::ActShape s{k.n, k.c, k.h, k.w}, os{k.n, k.c, k.h * k.fh, k.w * k.fw};
  std::vector<int8_t> plain(size_t{s.n} * s.c * s.h * s.w);
  for (auto& x : plain) x = static_cast<int8_t>(d(rng));
  std::vector<int8_t> arena(q::BlockedBytes(blk, s));
  ASSERT_TRUE(q::PackActivation(blk, s, plain.data(), arena.data()).ok());
  const size_t out_at = arena.size();
  arena.resize(out_at + q::BlockedBytes(blk, os), 0x55);
  ResizeLayer l = ResizeGeometry(c, k.name, k.n, k.c, k.h, k.w, k.fh, k.fw);
  l.data = 0;
  l.output = static_cast<uint32_t>(out_at / eb);
  AccelCode code;
  if (k.zeros) {  // the same layer as a resize first, into a scratch copy of the output
    const size_t scratch_at = arena.size();
    arena.resize(scratch_at + q::BlockedBytes(blk, os), 0x55);
    ResizeLayer r = l;
    r.output = static_cast<uint32_t>(scratch_at / eb);
    ASSERT_TRUE(EmitResize(c, r, &code, k.max_rows).ok());
    EmitLayerBarrier(&code);
    l.zeros = true;
  }
  const Status emitted = EmitResize(c, l, &code, k.max_rows);
  ASSERT_TRUE(emitted.ok()) << emitted.ToString();
  std::vector<int8_t> want(q::BlockedBytes(blk, os));
  ASSERT_TRUE((k.zeros ? q::ZeroInsert(blk, {s, k.fh, k.fw}, arena.data(), want.data())
                       : q::ResizeNearest(blk, {s, k.fh, k.fw}, arena.data(), want.data()))
                  .ok());

  const Status st = RunOnFsim(c, code, IdentityWeights(c), &arena);
  ASSERT_TRUE(st.ok()) << st.ToString();
  const std::vector<int8_t> got(arena.begin() + static_cast<std::ptrdiff_t>(out_at),
                                arena.begin() + static_cast<std::ptrdiff_t>(out_at + want.size()));
  EXPECT_EQ(got, want);
}

TEST(ResizeLayer, RefusesRowsBeyondTheBuffersAndZeroFactors) {
  HwConfig c;
  c.block_in = c.block_out = 16;
  c.inp_buffer_bytes = 4096;  // 256 elements: 128 per thread
  c.acc_buffer_bytes = 16384;
  ASSERT_TRUE(c.Validate().ok());
  ResizeLayer l = ResizeGeometry(c, "up", 1, 16, 4, 200, 2, 2);
  Status st = l.Check(c);
  EXPECT_NE(st.message().find("a row of 200 elements"), std::string::npos) << st.message();
  l = ResizeGeometry(c, "up", 1, 16, 4, 8, 0, 2);
  EXPECT_NE(l.Check(c).message().find("at least 1"), std::string::npos);
  l = ResizeGeometry(c, "up", 1, 16, 4, 8, 2, 2);
  EXPECT_TRUE(l.Check(c).ok());
}

INSTANTIATE_TEST_SUITE_P(
    tensorize, ResizeTest,
    ::testing::Values(ResizeCase{"x2", 1, 16, 1, 16, 8, 8, 2, 2, 0},
                      ResizeCase{"x2_partial_channel_block", 1, 8, 1, 12, 5, 7, 2, 2, 0},
                      ResizeCase{"x2_rows_across_planes", 1, 8, 1, 24, 3, 4, 2, 2, 5},
                      ResizeCase{"one_row_tiles", 1, 8, 1, 8, 4, 6, 2, 2, 1},
                      ResizeCase{"x3_by_1", 1, 8, 1, 8, 5, 4, 3, 1, 0},
                      ResizeCase{"x1_by_4", 1, 8, 1, 16, 3, 5, 1, 4, 0},
                      ResizeCase{"batch_blocks", 2, 8, 3, 10, 4, 4, 2, 2, 0},
                      ResizeCase{"large_planes", 1, 8, 1, 8, 30, 20, 2, 2, 0},
                      ResizeCase{"zeros_x2", 1, 16, 1, 16, 6, 6, 2, 2, 0, true},
                      ResizeCase{"zeros_3x2_partial_block_rows", 1, 8, 1, 12, 5, 7, 3, 2, 4, true},
                      ResizeCase{"zeros_batch_blocks", 2, 8, 3, 10, 4, 4, 2, 2, 0, true}),
    [](const ::testing::TestParamInfo<ResizeCase>& i) { return std::string(i.param.name); });

}  // namespace
}  // namespace loom::tensorize
