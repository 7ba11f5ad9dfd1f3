// Every fast path this CPU runs against the reference Conv2d, bit for bit: random shapes and
// blockings (blocks that do and do not suit a table, so the fallbacks run too), pads, strides,
// batch blocks, depthwise, dense (1x1 on a 1x1 image), and worst-case values: -128 inputs and
// weights everywhere, accumulators driven to wrap by the bias, extreme multipliers and shifts.
#include <gtest/gtest.h>

#include <algorithm>
#include <iostream>
#include <random>
#include <string>
#include <vector>

#include "runtime/kernels/int8/fast/fast.h"
#include "runtime/kernels/int8/fast/rows.h"
#include "runtime/kernels/int8/qops.h"
#include "runtime/kernels/int8/test_util.h"

namespace loom::kernels::q::fast {
namespace {

std::vector<KernelPath> Paths() {
  std::vector<KernelPath> v;
  for (KernelPath p : {KernelPath::kPortable, KernelPath::kAvx2, KernelPath::kAvx512Vnni,
                       KernelPath::kNeon, KernelPath::kNeonDot}) {
    if (PathSupported(p)) v.push_back(p);
  }
  return v;
}

struct Case {
  Blocking b;
  Conv2dParams p;
  std::vector<int8_t> in, weights;  // stored layouts
  std::vector<int32_t> bias, mult;  // logical [out_c]
  bool with_bias = true;
};

std::string Describe(const Case& c) {
  const Conv2dParams& p = c.p;
  return "blocking " + std::to_string(c.b.batch) + "x" + std::to_string(c.b.block) + ", in " +
         std::to_string(p.in.n) + "x" + std::to_string(p.in.c) + "x" + std::to_string(p.in.h) +
         "x" + std::to_string(p.in.w) + ", out_c " + std::to_string(p.out_c) + ", k " +
         std::to_string(p.kh) + "x" + std::to_string(p.kw) + ", s " + std::to_string(p.stride_h) +
         "x" + std::to_string(p.stride_w) + ", pads " + std::to_string(p.pad_top) + "," +
         std::to_string(p.pad_left) + "," + std::to_string(p.pad_bottom) + "," +
         std::to_string(p.pad_right) + (p.depthwise ? ", depthwise" : "") + ", groups " +
         std::to_string(p.groups) + ", rq " + std::to_string(p.rq.pre_shift) + "/" +
         std::to_string(p.rq.post_shift) + " clip [" + std::to_string(p.rq.clip_lo) + ", " +
         std::to_string(p.rq.clip_hi) + "], pad value " + std::to_string(p.pad_value);
}

// Fills the tensors from `seed`; `fill` (when in [-128, 127]) replaces every input and weight.
void Fill(Case* c, uint32_t seed, int fill = 1000) {
  const Conv2dParams& p = c->p;
  const uint32_t wc = p.depthwise ? 1 : p.GroupChannels();
  auto x = testing::RandomI8(testing::Elems(p.in), seed);
  auto w = testing::RandomI8(size_t{p.out_c} * wc * p.kh * p.kw, seed + 1);
  if (fill >= -128 && fill <= 127) {
    for (auto& v : x) v = static_cast<int8_t>(fill);
    for (auto& v : w) v = static_cast<int8_t>(fill);
  }
  c->in = testing::Pack(c->b, p.in, x);
  c->weights.assign(p.depthwise ? DepthwiseWeightBytes(c->b, p.in.c, p.kh, p.kw)
                                : ConvWeightBytes(c->b, p.out_c, wc, p.kh, p.kw),
                    0);
  const Status s =
      p.depthwise ? PackDepthwiseWeights(c->b, p.in.c, p.kh, p.kw, w.data(), c->weights.data())
                  : PackConvWeights(c->b, p.out_c, wc, p.kh, p.kw, w.data(), c->weights.data());
  ASSERT_TRUE(s.ok()) << s.ToString();
  if (c->bias.empty()) c->bias = testing::RandomI32(p.out_c, seed + 2, -100000, 100000);
  if (c->mult.empty()) c->mult = testing::RandomI32(p.out_c, seed + 3, -(1 << 15), 1 << 15);
}

// Runs the reference and every supported path on `c`; all outputs must be the same bytes.
void ExpectAllPathsMatch(const Case& c) {
  SCOPED_TRACE(Describe(c));
  const size_t out_bytes = BlockedBytes(c.b, c.p.out());
  const int32_t* bias = c.with_bias ? c.bias.data() : nullptr;
  std::vector<int8_t> want(out_bytes, 0x11);
  const Status rs =
      q::Conv2d(c.b, c.p, c.in.data(), c.weights.data(), bias, c.mult.data(), want.data());
  ASSERT_TRUE(rs.ok()) << rs.ToString();
  for (KernelPath path : Paths()) {
    SCOPED_TRACE(PathName(path));
    std::vector<uint8_t> ws(Conv2dWorkspaceBytes(path, c.b, c.p));
    std::vector<int8_t> got(out_bytes, 0x22);  // a different fill: every byte must be written
    const Status s = Conv2d(path, c.b, c.p, c.in.data(), c.weights.data(), nullptr, bias,
                            c.mult.data(), got.data(), ws.data(), ws.size());
    ASSERT_TRUE(s.ok()) << s.ToString();
    ASSERT_EQ(got, want);
    // The same with the weights packed once, ahead of the call (where they have a packed form:
    // not depthwise, not groups that straddle the blocks).
    if (PackedWeightsBytes(path, c.b, c.p) == 0) continue;
    std::vector<uint8_t> packed(PackedWeightsBytes(path, c.b, c.p));
    ASSERT_TRUE(PackWeights(path, c.b, c.p, c.weights.data(), packed.data(), packed.size()).ok());
    std::vector<int8_t> again(out_bytes, 0x33);
    const Status sp = Conv2d(path, c.b, c.p, c.in.data(), c.weights.data(), packed.data(), bias,
                             c.mult.data(), again.data(), ws.data(), ws.size());
    ASSERT_TRUE(sp.ok()) << sp.ToString();
    ASSERT_EQ(again, want);
  }
}

Conv2dParams Params(ActShape in, uint32_t out_c, uint32_t k, uint32_t stride, uint32_t pad) {
  Conv2dParams p;
  p.in = in;
  p.out_c = out_c;
  p.kh = p.kw = k;
  p.stride_h = p.stride_w = stride;
  p.pad_top = p.pad_left = p.pad_bottom = p.pad_right = pad;
  p.rq = {6, 10, -128, 127};
  return p;
}

TEST(FastConv2d, PathsAreNamedAndTheBestIsSupported) {
  std::string tested;
  for (KernelPath p : Paths()) tested += std::string(tested.empty() ? "" : ", ") + PathName(p);
  std::cout << "fast paths this CPU runs (each tested below): " << tested << "; best "
            << PathName(BestPath()) << "\n";
  EXPECT_TRUE(PathSupported(KernelPath::kReference));
  EXPECT_TRUE(PathSupported(KernelPath::kPortable));
  EXPECT_TRUE(PathSupported(BestPath()));
  KernelPath p = KernelPath::kReference;
  ASSERT_TRUE(ParsePath("reference", &p).ok());
  EXPECT_EQ(p, KernelPath::kReference);
  ASSERT_TRUE(ParsePath("auto", &p).ok());
  EXPECT_EQ(p, BestPath());
  const Status bad = ParsePath("sse9", &p);
  EXPECT_EQ(bad.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(bad.message().find("unknown cpu kernels 'sse9'"), std::string::npos) << bad.message();
  EXPECT_NE(bad.message().find("avx512vnni"), std::string::npos) << bad.message();
  for (KernelPath q :
       {KernelPath::kAvx2, KernelPath::kAvx512Vnni, KernelPath::kNeon, KernelPath::kNeonDot}) {
    if (!PathSupported(q)) {
      EXPECT_EQ(ParsePath(PathName(q), &p).code(), StatusCode::kUnimplemented) << PathName(q);
    }
  }
}

// The row kernels are what the tests below check (batch block 1; the tile loops run batch
// blocks > 1): make sure they are the ones that run.
TEST(FastConv2d, RowKernelsTakeTheirBlocks) {
  if (PathSupported(KernelPath::kAvx2)) {
    for (uint32_t block : {8u, 16u, 32u}) {
      const RowKernels* rk = RowKernelsFor(KernelPath::kAvx2, block);
      ASSERT_NE(rk, nullptr) << block;
      EXPECT_EQ(rk->in_bytes, 2);
      EXPECT_NE(rk->depthwise, nullptr);
    }
    EXPECT_EQ(RowKernelsFor(KernelPath::kAvx2, 12), nullptr);  // the portable tiles take it
  }
  if (PathSupported(KernelPath::kAvx512Vnni)) {
    EXPECT_EQ(RowKernelsFor(KernelPath::kAvx512Vnni, 16)->in_bytes, 1);
    EXPECT_EQ(RowKernelsFor(KernelPath::kAvx512Vnni, 32)->in_bytes, 1);
    // Block 8 runs the AVX2 tiles, so it gets the AVX2 rows that read them.
    EXPECT_EQ(RowKernelsFor(KernelPath::kAvx512Vnni, 8), RowKernelsFor(KernelPath::kAvx2, 8));
  }
  if (PathSupported(KernelPath::kNeon)) {
    // Every block the NEON tiles take (% 4), on the int16 copy; sdot rows read the int8 copy.
    for (uint32_t block : {4u, 8u, 12u, 16u, 32u, 64u}) {
      const RowKernels* rk = RowKernelsFor(KernelPath::kNeon, block);
      ASSERT_NE(rk, nullptr) << block;
      EXPECT_EQ(rk->in_bytes, 2);
      EXPECT_EQ(rk->in_xor, 0);
      EXPECT_NE(rk->depthwise, nullptr);
    }
    EXPECT_EQ(RowKernelsFor(KernelPath::kNeon, 6), nullptr);  // the portable tiles take it
  }
  if (PathSupported(KernelPath::kNeonDot)) {
    for (uint32_t block : {4u, 8u, 12u, 16u, 32u, 64u}) {
      const RowKernels* rk = RowKernelsFor(KernelPath::kNeonDot, block);
      ASSERT_NE(rk, nullptr) << block;
      EXPECT_EQ(rk->in_bytes, 1);
      EXPECT_NE(rk, RowKernelsFor(KernelPath::kNeon, block));
      EXPECT_NE(rk->depthwise, nullptr);
    }
  }
  EXPECT_EQ(RowKernelsFor(KernelPath::kPortable, 16), nullptr);
  EXPECT_EQ(RowKernelsFor(KernelPath::kReference, 16), nullptr);
}

TEST(FastConv2d, CommonLayersMatchReference) {
  uint32_t seed = 100;
  for (uint32_t block : {16u, 8u, 32u}) {
    const Blocking b{1, block};
    for (const Conv2dParams& p : {
             Params({1, 3, 17, 17}, 24, 7, 2, 3),   // the 3-channel first layer
             Params({1, 32, 9, 9}, 48, 3, 1, 1),    // 3x3, same padding
             Params({1, 64, 8, 8}, 32, 1, 1, 0),    // 1x1 as GEMM
             Params({1, 48, 10, 11}, 64, 3, 2, 1),  // strided
             Params({2, 200, 1, 1}, 10, 1, 1, 0),   // dense on a 1x1 image
         }) {
      Case c{b, p, {}, {}, {}, {}};
      Fill(&c, seed++);
      ExpectAllPathsMatch(c);
    }
    Conv2dParams dw = Params({1, 40, 12, 12}, 40, 3, 1, 1);
    dw.depthwise = true;
    for (uint32_t stride : {1u, 2u}) {
      dw.stride_h = dw.stride_w = stride;
      Case c{b, dw, {}, {}, {}, {}};
      Fill(&c, seed++);
      ExpectAllPathsMatch(c);
    }
  }
}

// Padding that reads a pad value (the input's zero point with asymmetric activations): every
// path adds pad_value * w for a tap outside the input, as the reference does. Row kernels (batch
// block 1 on their blocks) read it from the padded copy, stored as they store any x (VNNI's
// x ^ 0x80, the AVX2 and NEON rows' int16); the tile loops (batch blocks > 1, block 12 on the
// portable tiles) add pad sums (groups == 1) or run the depthwise tap on a pad vector for the
// positions they would skip at pad value 0. Partial channel blocks in and out; each padded shape
// must differ from its pad-value-0 result, or it would prove nothing.
TEST(FastConv2d, PadValueMatchesReference) {
  uint32_t seed = 300;
  const Blocking blockings[] = {{1, 16}, {1, 8}, {1, 32}, {2, 8}, {1, 12}};
  for (const Blocking& b : blockings) {
    std::vector<Conv2dParams> shapes = {
        Params({1, 20, 6, 7}, 24, 3, 1, 1),  // plain 3x3, same padding
        Params({1, 20, 5, 5}, 20, 1, 1, 0),  // 1x1 (no padding: the pad value changes nothing)
        Params({1, 3, 9, 9}, 12, 5, 2, 2),   // first-layer-like: 3 channels, strided
        Params({1, 20, 7, 9}, 36, 3, 2, 1),  // strided
        Params({3, 9, 4, 5}, 10, 3, 1, 2),   // pads 2: corner taps mostly padding; 3 images
    };
    shapes[3].pad_bottom = 2;  // asymmetric pads
    shapes[3].pad_left = 0;
    Conv2dParams dw = Params({1, 20, 6, 7}, 20, 3, 1, 1);
    dw.depthwise = true;
    shapes.push_back(dw);
    dw.stride_h = dw.stride_w = 2;
    dw.pad_right = 2;
    shapes.push_back(dw);
    for (Conv2dParams shape : shapes) {
      shape.rq = {0, 8, -128, 127};  // a small shift: the pad value's share shows in the bytes
      Case zero{b, shape, {}, {}, {}, {}};
      Fill(&zero, seed++);
      const size_t out_bytes = BlockedBytes(b, shape.out());
      std::vector<int8_t> unpadded(out_bytes);
      const Status zs = q::Conv2d(b, shape, zero.in.data(), zero.weights.data(), zero.bias.data(),
                                  zero.mult.data(), unpadded.data());
      ASSERT_TRUE(zs.ok()) << Describe(zero) << ": " << zs.ToString();
      for (int32_t pad_value : {-128, -77, 127}) {
        Case c = zero;
        c.p.pad_value = pad_value;
        ExpectAllPathsMatch(c);
        std::vector<int8_t> want(out_bytes);
        const Status ws = q::Conv2d(b, c.p, c.in.data(), c.weights.data(), c.bias.data(),
                                    c.mult.data(), want.data());
        ASSERT_TRUE(ws.ok()) << ws.ToString();
        const bool pads = shape.pad_top + shape.pad_left + shape.pad_bottom + shape.pad_right != 0;
        EXPECT_EQ(want != unpadded, pads) << Describe(c) << ": whether the pad value shows";
      }
    }
  }
}

TEST(FastConv2d, RandomShapesAndBlockingsMatchReference) {
  std::mt19937 rng(7);
  auto pick = [&](uint32_t lo, uint32_t hi) {
    return std::uniform_int_distribution<uint32_t>(lo, hi)(rng);
  };
  const Blocking blockings[] = {{1, 16}, {1, 8},  {2, 8}, {1, 32}, {1, 4},
                                {3, 4},  {1, 12}, {1, 1}, {2, 16}, {1, 64}};
  for (int iter = 0; iter < 120; ++iter) {
    Case c;
    c.b = blockings[iter % (sizeof(blockings) / sizeof(blockings[0]))];
    Conv2dParams& p = c.p;
    p.in = {pick(1, 3), pick(1, 70), pick(1, 9), pick(1, 40)};
    p.depthwise = pick(0, 3) == 0;
    p.out_c = p.depthwise ? p.in.c : pick(1, 70);
    p.kh = pick(1, std::min(4u, p.in.h + 2));
    p.kw = pick(1, std::min(5u, p.in.w + 2));
    p.pad_top = pick(0, p.kh - 1);
    p.pad_bottom = pick(0, p.kh - 1);
    p.pad_left = pick(0, p.kw - 1);
    p.pad_right = pick(0, p.kw - 1);
    if (p.in.h + p.pad_top + p.pad_bottom < p.kh) p.pad_bottom = p.kh - 1, p.pad_top = p.kh - 1;
    if (p.in.w + p.pad_left + p.pad_right < p.kw) p.pad_left = p.kw - 1, p.pad_right = p.kw - 1;
    if (p.in.h + p.pad_top + p.pad_bottom < p.kh || p.in.w + p.pad_left + p.pad_right < p.kw)
      continue;
    p.stride_h = pick(1, 3);
    p.stride_w = pick(1, 3);
    p.rq.pre_shift = static_cast<int32_t>(pick(0, 62)) - 31;
    p.rq.post_shift = static_cast<int32_t>(pick(0, 62)) - 31;
    const int32_t lo = static_cast<int32_t>(pick(0, 255)) - 128;
    p.rq.clip_lo = lo;
    p.rq.clip_hi = lo + static_cast<int32_t>(pick(0, static_cast<uint32_t>(127 - lo)));
    c.with_bias = pick(0, 4) != 0;
    if (iter % 2 == 1) p.pad_value = static_cast<int32_t>(pick(0, 255)) - 128;
    Fill(&c, 1000 + static_cast<uint32_t>(iter));
    // Multipliers across the whole int32 range: MUL keeps the low 32 bits of the product.
    c.mult = testing::RandomI32(p.out_c, 2000 + iter, INT32_MIN, INT32_MAX);
    ExpectAllPathsMatch(c);
  }
}

TEST(FastConv2d, WorstCaseValuesMatchReference) {
  for (uint32_t block : {16u, 8u, 32u, 4u}) {
    const Blocking b{1, block};
    for (bool dw : {false, true}) {
      Conv2dParams p = Params({1, 64, 6, 7}, 64, 3, 1, 1);
      p.depthwise = dw;
      for (int fill : {-128, 127}) {
        // Every product is +2^14 (or -128 * 127), the largest a pair or quad of lanes sees.
        Case c{b, p, {}, {}, {}, {}};
        c.bias.assign(p.out_c, 0);
        c.mult.assign(p.out_c, 1);
        c.p.rq = {0, 0, -128, 127};
        Fill(&c, 5, fill);
        ExpectAllPathsMatch(c);
        // The bias pushes every accumulator past INT32_MAX: the sums wrap, as on the ACC.
        c.bias.assign(p.out_c, INT32_MAX - 1000);
        c.p.rq = {-3, 7, -128, 127};
        ExpectAllPathsMatch(c);
        c.bias.assign(p.out_c, INT32_MIN + 5);
        c.mult.assign(p.out_c, INT32_MIN);
        c.p.rq = {31, -31, -128, 127};
        ExpectAllPathsMatch(c);
        c.mult.assign(p.out_c, INT32_MAX);
        c.p.rq = {-31, 31, -100, 100};
        ExpectAllPathsMatch(c);
      }
    }
  }
}

// Grouped convolutions: groups of whole channel blocks run a group at a time on the row kernels
// (or the tile loop, batch blocks > 1), with packed weights per group; groups that straddle the
// blocks run the reference. Strides, pad values, ragged batch blocks, worst-case values.
TEST(FastConv2d, GroupedMatchesReference) {
  struct G {
    Blocking b;
    ActShape in;
    uint32_t out_c, groups, k, stride, pad;
    int32_t pad_value;
    uint32_t group_c = 0;  // a short last group where set
  };
  const G cases[] = {
      {{1, 16}, {1, 64, 9, 11}, 64, 4, 3, 1, 1, 0},       // ResNeXt-like: 16 -> 16 per group
      {{1, 16}, {1, 64, 10, 9}, 96, 2, 3, 2, 1, -77},     // 32 -> 48, strided, a pad value
      {{1, 8}, {1, 48, 7, 13}, 48, 6, 3, 1, 1, 5},        // 8 -> 8
      {{1, 32}, {1, 64, 6, 15}, 128, 2, 1, 1, 0, 0},      // 1x1, 32 -> 64
      {{2, 16}, {3, 32, 6, 7}, 32, 2, 3, 1, 1, -128},     // batch blocks, the last one ragged
      {{1, 16}, {1, 24, 8, 8}, 24, 3, 3, 1, 1, 0},        // 8 -> 8 in blocks of 16: reference
      {{1, 16}, {1, 48, 5, 6}, 96, 3, 3, 1, 1, 0},        // 16 -> 32
      {{1, 16}, {1, 104, 6, 9}, 104, 7, 3, 1, 1, 0, 16},  // RegNetY's 13 groups of 8, merged
      {{1, 16}, {1, 44, 5, 7}, 88, 3, 3, 2, 1, -3, 16},   // 11 groups of 4 -> 8, merged 4 at a time
      {{1, 32}, {1, 48, 7, 7}, 48, 2, 3, 1, 1, 7, 32},    // the last group 16 of 32
      {{2, 8}, {3, 20, 5, 5}, 20, 3, 3, 1, 1, 0, 8},      // batch blocks, the last group 4 of 8
      {{1, 16}, {1, 20, 5, 5}, 40, 3, 3, 1, 1, 0, 8},     // 8 -> 16 in blocks of 16: reference
  };
  uint32_t seed = 900;
  for (const G& g : cases) {
    Conv2dParams p = Params(g.in, g.out_c, g.k, g.stride, g.pad);
    p.groups = g.groups;
    p.group_c = g.group_c;
    p.pad_value = g.pad_value;
    // Groups of whole blocks have packed weights (a group at a time); the others do not.
    const uint32_t C = g.b.block, gc = p.GroupChannels(), go = p.GroupOutChannels();
    const bool whole = gc % C == 0 && go % C == 0 && g.groups * gc <= CeilDiv(g.in.c, C) * C &&
                       g.groups * go <= CeilDiv(g.out_c, C) * C;
    EXPECT_EQ(PackedWeightsBytes(KernelPath::kPortable, g.b, p) != 0, whole);
    Case c{g.b, p, {}, {}, {}, {}};
    Fill(&c, seed++);
    ExpectAllPathsMatch(c);
    c.with_bias = false;
    ExpectAllPathsMatch(c);
    Case w{g.b, p, {}, {}, {}, {}};
    w.bias.assign(p.out_c, INT32_MAX - 1000);  // sums that wrap
    w.mult.assign(p.out_c, 1);
    w.p.rq = {0, 0, -128, 127};
    Fill(&w, seed++, -128);
    ExpectAllPathsMatch(w);
  }
}

// Layers whose weights outgrow a row kernel's chunk (rows.h RowKernels::chunk_bytes): the
// reduction runs in chunks of input-channel blocks with int32 partial sums in between, a ragged
// last block (channels past in.c), one and two output-channel blocks per call, output rows of
// more positions than a call takes, and sums that wrap.
TEST(FastConv2d, ReductionInChunksMatchesReference) {
  struct Shape {
    uint32_t block;
    Conv2dParams p;
  };
  const Shape shapes[] = {
      {16, Params({1, 300, 5, 14}, 40, 3, 1, 1)},   // 19 input blocks, the last of 12 channels
      {16, Params({1, 1024, 3, 26}, 48, 1, 1, 0)},  // 1x1: 64 input blocks
      {32, Params({1, 200, 6, 25}, 64, 5, 2, 2)},   // one input block per chunk
      {16, Params({1, 256, 7, 7}, 512, 3, 1, 1)},   // ResNet-18's last stage, narrowed
  };
  for (const Shape& sh : shapes) {
    const Blocking b{1, sh.block};
    // The VNNI rows split these, at least with weights packed ahead (two output-channel blocks
    // per call where the block is 16), else the test would not reach the chunks.
    if (const RowKernels* rk = VnniRowKernels(sh.block); rk != nullptr) {
      const uint32_t icb = CeilDiv(sh.p.in.c, sh.block);
      EXPECT_LT(RowChunkBlocks(*rk, b, sh.p, sh.block <= rk->pair_max_block ? 2 : 1), icb);
      EXPECT_GT(RowPartialBytes(*rk, b, sh.p), 0u);
    }
    Case c{b, sh.p, {}, {}, {}, {}};
    Fill(&c, 77);
    ExpectAllPathsMatch(c);
    // -128 everywhere, the bias near INT32_MAX: the partial sums wrap between chunks.
    Case w{b, sh.p, {}, {}, {}, {}};
    w.bias.assign(sh.p.out_c, INT32_MAX - 1000);
    w.mult.assign(sh.p.out_c, 3);
    w.p.rq = {-3, 7, -128, 127};
    Fill(&w, 78, -128);
    ExpectAllPathsMatch(w);
  }
}

// Output rows of every width up to three calls' worth: the positions of a row split into calls as
// evenly as can be (rows_body.h ForEachRowGroup), each size a kernel of its own.
TEST(FastConv2d, EveryRowWidthMatchesReference) {
  for (uint32_t w = 1; w <= 37; ++w) {
    Case c{{1, 16}, Params({1, 40, 2, w}, 36, 3, 1, 1), {}, {}, {}, {}};
    Fill(&c, 100 + w);
    ExpectAllPathsMatch(c);
  }
}

// Depthwise windows the VNNI rows take by tap quads (rows_avx512_body.h DwQuadPlane): widths
// 1..4 taps (one quad), 5..8 (two), 9 (three), strides 1..3, asymmetric pads and pad values,
// channels short of the block, heights past the ring's limit (the padded-copy kernel then), and
// -128 everywhere with a bias at the edge of int32.
TEST(FastConv2d, DepthwiseByTapQuadsMatchesReference) {
  struct Window {
    uint32_t kh, kw, stride, pad;
  };
  const Window windows[] = {{3, 3, 1, 1}, {3, 3, 2, 1}, {5, 5, 1, 2}, {5, 5, 2, 2}, {1, 1, 1, 0},
                            {7, 7, 1, 3}, {3, 9, 3, 4}, {2, 4, 1, 0}, {17, 3, 1, 8}};
  uint32_t seed = 300;
  for (uint32_t block : {16u, 32u}) {
    for (const Window& win : windows) {
      for (uint32_t w : {1u, 7u, 13u, 26u}) {
        Conv2dParams p = Params({1, block + block / 2, 9, w}, block + block / 2, 1, win.stride, 0);
        p.depthwise = true;
        p.kh = win.kh;
        p.kw = win.kw;
        // Asymmetric pads, each short of its kernel side.
        p.pad_top = std::min(win.pad, win.kh - 1);
        p.pad_left = std::min(win.pad, win.kw - 1);
        p.pad_bottom = std::min(win.pad / 2, win.kh - 1);
        p.pad_right = std::min(win.pad + 1, win.kw - 1);
        p.pad_value = static_cast<int32_t>(seed % 7) - 3;
        if (p.in.w + p.pad_left + p.pad_right < p.kw || p.in.h + p.pad_top + p.pad_bottom < p.kh) {
          continue;  // no output position
        }
        if (const RowKernels* rk = VnniRowKernels(block); rk != nullptr) {
          EXPECT_EQ(UsesDepthwisePlane(*rk, p), win.kh <= 16);
        }
        Case c{{1, block}, p, {}, {}, {}, {}};
        Fill(&c, ++seed);
        ExpectAllPathsMatch(c);
      }
    }
    Conv2dParams p = Params({1, block, 6, 11}, block, 3, 2, 1);
    p.depthwise = true;
    Case c{{1, block}, p, {}, {}, {}, {}};
    c.bias.assign(p.out_c, INT32_MAX - 3000);
    c.mult.assign(p.out_c, 7);
    c.p.rq = {-2, 9, -128, 127};
    Fill(&c, 9, -128);
    ExpectAllPathsMatch(c);
  }
}

TEST(FastConv2d, RefusesWhatTheReferenceRefuses) {
  const Blocking b{1, 16};
  Conv2dParams p = Params({1, 16, 4, 4}, 16, 3, 1, 1);
  std::vector<int8_t> x(BlockedBytes(b, p.in)), w(ConvWeightBytes(b, 16, 16, 3, 3)),
      y(BlockedBytes(b, p.out()));
  std::vector<int32_t> m(16, 1);
  const KernelPath path = BestPath();
  std::vector<uint8_t> ws(Conv2dWorkspaceBytes(path, b, p));
  ASSERT_TRUE(Conv2d(path, b, p, x.data(), w.data(), nullptr, nullptr, m.data(), y.data(),
                     ws.data(), ws.size())
                  .ok());
  Conv2dParams bad = p;
  bad.rq.pre_shift = 32;
  const Status s = Conv2d(path, b, bad, x.data(), w.data(), nullptr, nullptr, m.data(), y.data(),
                          ws.data(), ws.size());
  EXPECT_NE(s.message().find("pre_shift 32"), std::string::npos) << s.ToString();
  const Status small = Conv2d(path, b, p, x.data(), w.data(), nullptr, nullptr, m.data(), y.data(),
                              ws.data(), ws.size() - 1);
  EXPECT_EQ(small.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(small.message().find("workspace"), std::string::npos) << small.ToString();
  std::vector<uint8_t> packed(PackedWeightsBytes(path, b, p));
  const Status short_pack = PackWeights(path, b, p, w.data(), packed.data(), packed.size() - 1);
  EXPECT_NE(short_pack.message().find("the packed weights need"), std::string::npos)
      << short_pack.ToString();
  EXPECT_NE(Conv2d(path, b, p, x.data(), w.data(), nullptr, nullptr, m.data(), x.data(), ws.data(),
                   ws.size())
                .message()
                .find("overlap"),
            std::string::npos);
}

}  // namespace
}  // namespace loom::kernels::q::fast
