// q.concat on the accelerator: the emitted copies, run on fsim, must equal the int8 CPU kernel
// (runtime/kernels/int8/concat.cc) byte for byte, padding lanes included — equal scales (pure
// copies), rescaled inputs, a partial last channel block, batch blocks and small tiles.
#include "compiler/tensorize/concat.h"

#include <gtest/gtest.h>

#include <random>

#include "compiler/tensorize/eltwise.h"
#include "runtime/kernels/int8/qops.h"
#include "tests/tensorize/fsim_run.h"

namespace loom::tensorize {
namespace {

namespace q = kernels::q;

struct ConcatCase {
  const char* name;
  uint32_t batch, block, n, h, w;
  std::vector<uint32_t> channels;
  std::vector<int32_t> mults, shifts;
  uint32_t max_tile;
};

void PrintTo(const ConcatCase& c, std::ostream* os) { *os << c.name; }

class ConcatTest : public ::testing::TestWithParam<ConcatCase> {};

TEST_P(ConcatTest, MatchesInt8KernelOnFsim) {
  const ConcatCase& k = GetParam();
  HwConfig c;
  c.name = "test";
  c.batch = k.batch;
  c.block_in = c.block_out = k.block;
  c.inp_buffer_bytes = 4096;  // small buffers: several tiles per input
  c.acc_buffer_bytes = 8192 * k.batch;
  c.wgt_buffer_bytes = 16384;
  ASSERT_TRUE(c.Validate().ok());
  const q::Blocking blk{c.batch, c.block_in};
  const uint32_t eb = c.inp_elem_bytes();
  std::mt19937 rng(5);
  std::uniform_int_distribution<int> d(-128, 127);

  // Arena: [input 0 | input 1 | ... | output].
  std::vector<int8_t> arena;
  std::vector<q::ConcatInput> ins;
  ConcatLayer l;
  l.name = k.name;
  l.n_blocks = (k.n + k.batch - 1) / k.batch;
  l.plane_elems = k.h * k.w;
  uint32_t total_c = 0;
  for (size_t i = 0; i < k.channels.size(); ++i) {
    const q::ActShape s{k.n, k.channels[i], k.h, k.w};
    std::vector<int8_t> plain(size_t{s.n} * s.c * s.h * s.w), packed(q::BlockedBytes(blk, s));
    for (auto& x : plain) x = static_cast<int8_t>(d(rng));
    ASSERT_TRUE(q::PackActivation(blk, s, plain.data(), packed.data()).ok());
    l.inputs.push_back(
        {k.channels[i], k.mults[i], k.shifts[i], static_cast<uint32_t>(arena.size() / eb)});
    ins.push_back({s, nullptr, k.mults[i], k.shifts[i]});
    arena.insert(arena.end(), packed.begin(), packed.end());
    total_c += k.channels[i];
  }
  const q::ActShape os{k.n, total_c, k.h, k.w};
  const size_t out_at = arena.size();
  arena.resize(out_at + q::BlockedBytes(blk, os), 0x55);
  l.output = static_cast<uint32_t>(out_at / eb);
  AccelCode code;
  ASSERT_TRUE(EmitConcat(c, l, &code, k.max_tile).ok());
  // The CPU kernel reads the inputs from the arena as it was before the run.
  const std::vector<int8_t> before = arena;
  for (size_t i = 0; i < ins.size(); ++i)
    ins[i].data = before.data() + size_t{l.inputs[i].data} * eb;

  const Status st = RunOnFsim(c, code, IdentityWeights(c), &arena);
  ASSERT_TRUE(st.ok()) << st.ToString();

  std::vector<int8_t> want(q::BlockedBytes(blk, os));
  ASSERT_TRUE(q::Concat(blk, ins.data(), ins.size(), want.data()).ok());
  const std::vector<int8_t> got(arena.begin() + static_cast<std::ptrdiff_t>(out_at), arena.end());
  EXPECT_EQ(got, want);
}

TEST(ConcatLayer, RefusesUnalignedInnerInputsAndWideMultipliers) {
  HwConfig c;
  c.block_in = c.block_out = 8;
  ConcatLayer l;
  l.name = "cat";
  l.plane_elems = 4;
  l.inputs = {{12, 1, 0, 0}, {8, 1, 0, 100}};
  Status st = l.Check(c);
  EXPECT_NE(st.message().find("input 0 has 12 channels"), std::string::npos) << st.message();
  l.inputs = {{8, 1, 0, 0}, {12, 40000, 3, 100}};
  st = l.Check(c);
  EXPECT_NE(st.message().find("40000"), std::string::npos) << st.message();
  l.inputs = {{8, 1, 0, 0}, {12, 3, 2, 100}};  // a partial last block is fine
  EXPECT_TRUE(l.Check(c).ok());
}

INSTANTIATE_TEST_SUITE_P(
    tensorize, ConcatTest,
    ::testing::Values(
        ConcatCase{"copies", 1, 8, 1, 6, 5, {16, 8, 24}, {1, 1, 1}, {0, 0, 0}, 0},
        ConcatCase{"rescaled_partial_last", 1, 16, 1, 9, 7, {32, 20}, {23000, 1}, {15, 0}, 0},
        ConcatCase{"small_tiles", 1, 8, 1, 4, 4, {8, 16, 5}, {-300, 1, 7}, {9, 0, -2}, 7},
        ConcatCase{"batch_blocks", 2, 8, 3, 3, 3, {8, 8}, {1, 12000}, {0, 14}, 0},
        ConcatCase{"large_planes", 1, 8, 1, 40, 30, {8, 8}, {1, 1}, {0, 0}, 0}),
    [](const ::testing::TestParamInfo<ConcatCase>& i) { return std::string(i.param.name); });

}  // namespace
}  // namespace loom::tensorize
