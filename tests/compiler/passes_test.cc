// Passes must not change what a graph computes: each pass and the default pipeline run on graphs
// with random weights, and the interpreter's results before and after must agree. Also the
// registry and the pass manager's verification, option parsing and IR dumps.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <sstream>

#include "compiler/interp/interpreter.h"
#include "compiler/ir/printer.h"
#include "compiler/passes/pass_manager.h"
#include "tests/compiler/test_util.h"

namespace loom::passes {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

// Every rewrite has something to match here: Identity/Dropout, a constant subgraph, Conv+BN,
// Conv+bias Add+Relu6, a BN after Gemm, MatMul+BN, MatMul+Add+BN, Add+Relu, ConvTranspose+BN+Relu
// (a decoder's upsampling), unused nodes.
constexpr char kNet[] = R"(
graph @net(%x: f32[2,3,6,6], %v: f32[2,4]) {
  %w1: f32[4,3,3,3] = const splat(1.0)
  %b1: f32[4] = const splat(1.0)
  %s: f32[4] = const splat(1.0)
  %bb: f32[4] = const splat(1.0)
  %m: f32[4] = const splat(1.0)
  %var: f32[4] = const splat(1.0)
  %w2: f32[4,4,1,1] = const splat(1.0)
  %bias2: f32[4,1,1] = const splat(1.0)
  %zero: f32[] = const [0.0]
  %six: f32[] = const [6.0]
  %k1: f32[4] = const splat(1.0)
  %k2: f32[4] = const splat(1.0)
  %wg: f32[4,4] = const splat(1.0)
  %cg: f32[4] = const splat(1.0)
  %wm: f32[4,4] = const splat(1.0)
  %cm: f32[1,4] = const splat(1.0)
  %wt: f32[4,4,2,2] = const splat(1.0)
  %id: f32[2,3,6,6] = Identity(%x)
  %c1: f32[2,4,6,6] = Conv(%id, %w1, %b1) {dilations = [1, 1], group = 1, pads = [1, 1, 1, 1],
                                           strides = [1, 1]}
  %n1: f32[2,4,6,6] = BatchNormalization(%c1, %s, %bb, %m, %var) {epsilon = 0.001}
  %r1: f32[2,4,6,6] = Relu(%n1)
  %ct: f32[2,4,12,12] = ConvTranspose(%r1, %wt) {dilations = [1, 1], group = 1,
                                                 output_padding = [0, 0], pads = [0, 0, 0, 0],
                                                 strides = [2, 2]}
  %nt: f32[2,4,12,12] = BatchNormalization(%ct, %s, %bb, %m, %var) {epsilon = 0.001}
  %rt: f32[2,4,12,12] = Relu(%nt)
  %c2: f32[2,4,6,6] = Conv(%r1, %w2) {dilations = [1, 1], group = 1, pads = [0, 0, 0, 0],
                                      strides = [1, 1]}
  %a2: f32[2,4,6,6] = Add(%c2, %bias2)
  %r2: f32[2,4,6,6] = Clip(%a2, %zero, %six)
  %d2: f32[2,4,6,6] = Dropout(%r2)
  %gp: f32[2,4,1,1] = GlobalAveragePool(%d2)
  %f: f32[2,4] = Reshape(%gp) {shape = [2, 4]}
  %ksum: f32[4] = Add(%k1, %k2)
  %g: f32[2,4] = Gemm(%f, %wg, %cg) {alpha = 0.5, beta = 2.0, transA = 0, transB = 1}
  %gn: f32[2,4] = BatchNormalization(%g, %s, %bb, %m, %var) {epsilon = 0.001}
  %mm: f32[2,4] = MatMul(%v, %wm)
  %mn: f32[2,4] = BatchNormalization(%mm, %s, %bb, %m, %var) {epsilon = 0.001}
  %mm2: f32[2,4] = MatMul(%v, %wm)
  %ma: f32[2,4] = Add(%mm2, %cm)
  %mb: f32[2,4] = BatchNormalization(%ma, %s, %bb, %m, %var) {epsilon = 0.001}
  %sum: f32[2,4] = Add(%gn, %ksum)
  %out: f32[2,4] = Relu(%sum)
  %unused: f32[2,4] = Sigmoid(%out)
  return %out, %mn, %mb, %rt
}
)";

class PassPreservesResults : public ::testing::TestWithParam<std::string> {};

TEST_P(PassPreservesResults, OnRandomWeights) {
  for (uint32_t seed : {1u, 2u, 3u}) {
    ir::Graph g = testing::Parse(kNet);
    testing::RandomizeConstants(g, seed * 100);
    const std::vector<ir::Tensor> inputs = testing::RandomInputs(g, seed);
    std::vector<ir::Tensor> before, after;
    Status run = interp::Run(g, inputs, &before);
    ASSERT_TRUE(run.ok()) << run.ToString();
    const std::vector<std::string> pipeline =
        GetParam() == "default" ? DefaultPipeline() : std::vector<std::string>{GetParam()};
    Status s = RunPipeline(pipeline, &g);
    ASSERT_TRUE(s.ok()) << s.ToString();
    ASSERT_TRUE(interp::Run(g, inputs, &after).ok());
    EXPECT_TRUE(testing::AllClose(after, before, 1e-5, 1e-5)) << ir::PrintGraph(g);
  }
}

INSTANTIATE_TEST_SUITE_P(EveryPass, PassPreservesResults,
                         ::testing::Values("shape-inference", "identity-removal",
                                           "constant-folding", "batchnorm-folding", "fusion",
                                           "dead-code-elimination", "first-layer-packing",
                                           "default"),
                         [](const ::testing::TestParamInfo<std::string>& param) {
                           std::string n = param.param;
                           for (char& c : n) c = c == '-' ? '_' : c;
                           return n;
                         });

// One convolution `conv` (a graph's parameter list and body up to %y) through
// first-layer-packing{block, im2col}: the floats match the unpacked layer's, with `transposes`
// Transposes (the space-to-depth), one Concat and a KH' x 1 kernel exactly when im2col is on.
void ExpectPackingPreserves(const char* conv, int im2col, uint32_t constants_seed,
                            uint32_t inputs_seed, int transposes, int block = 16, int fold = 0) {
  SCOPED_TRACE(std::string(conv) + "\nim2col=" + std::to_string(im2col) +
               " block=" + std::to_string(block) + " fold=" + std::to_string(fold));
  ir::Graph g = testing::Parse(std::string("graph @g(") + conv + "\n  return %y\n}\n");
  testing::RandomizeConstants(g, constants_seed);
  const std::vector<ir::Tensor> inputs = testing::RandomInputs(g, inputs_seed);
  std::vector<ir::Tensor> before, after;
  ASSERT_TRUE(interp::Run(g, inputs, &before).ok());
  const std::string pass = "first-layer-packing{block=" + std::to_string(block) +
                           ", im2col=" + std::to_string(im2col) + ", fold=" + std::to_string(fold) +
                           "}";
  ASSERT_TRUE(RunPipeline({pass}, &g).ok());
  int found_transposes = 0, concats = 0, narrow = 0;
  for (const ir::Node* n : g.nodes()) {
    found_transposes += n->op == "Transpose";
    concats += n->op == "Concat";
    if (n->op == "Conv") narrow += g.value(n->input(1)).shape[3] == 1;
  }
  EXPECT_EQ(found_transposes, transposes) << ir::PrintGraph(g);
  EXPECT_EQ(concats, im2col) << ir::PrintGraph(g);
  EXPECT_EQ(narrow, im2col) << ir::PrintGraph(g);
  ASSERT_TRUE(interp::Run(g, inputs, &after).ok());
  EXPECT_TRUE(testing::AllClose(after, before, 1e-5, 1e-5)) << ir::PrintGraph(g);
}

// first-layer-packing on the strided convolutions it targets: odd and even pads, kernels that
// are and are not multiples of the stride, strides 2 and 3, asymmetric pads, batch 2, bias and
// a fused ReLU, in both forms (space-to-depth alone, and with the width im2col, whose host-side
// pads both pad and crop). The interpreter's float results match, and each convolution was
// rewritten in the form asked for. Block 32 folds rows into the channels too (the 7x7/2 over 3
// channels: 2x1 over 96 channels, the host padding the height with crops and pads per group).
TEST(FirstLayerPacking, PreservesResultsOfStridedConvolutions) {
  const char* kConvs[] = {
      // x shape, w shape, pads, stride, output shape
      "%x: f32[1,3,16,16]) {\n  %w: f32[5,3,7,7] = const splat(1.0)\n  %y: f32[1,5,8,8] = "
      "Conv(%x, %w) {dilations = [1, 1], group = 1, pads = [3, 3, 3, 3], strides = [2, 2]}",
      "%x: f32[2,1,12,12]) {\n  %w: f32[4,1,3,3] = const splat(1.0)\n  %y: f32[2,4,6,6] = "
      "Conv(%x, %w) {dilations = [1, 1], group = 1, pads = [1, 1, 1, 1], strides = [2, 2]}",
      "%x: f32[1,2,12,12]) {\n  %w: f32[3,2,4,4] = const splat(1.0)\n  %y: f32[1,3,5,5] = "
      "Conv(%x, %w) {dilations = [1, 1], group = 1, pads = [0, 0, 0, 0], strides = [2, 2]}",
      "%x: f32[1,1,12,9]) {\n  %w: f32[2,1,5,5] = const splat(1.0)\n  %b: f32[2] = const "
      "splat(1.0)\n  %y: f32[1,2,4,3] = Conv(%x, %w, %b) {activation = \"relu\", dilations = "
      "[1, 1], group = 1, pads = [2, 1, 1, 2], strides = [3, 3]}",
  };
  for (const char* conv : kConvs) {
    for (int im2col : {0, 1}) ExpectPackingPreserves(conv, im2col, 7, 3, /*transposes=*/1);
    ExpectPackingPreserves(conv, 1, 7, 3, /*transposes=*/1, /*block=*/32, /*fold=*/1);
  }
}

// At stride 1 (VGG's features.0) only the width im2col applies, on a graph input over fewer
// channels than a block, where it saves GEMM steps: 3x3 pad 1 over 3 channels, a 5x5 over 8
// channels with asymmetric pads, batch 2 with bias, ReLU and no padding, a wide 1x7 kernel on a
// non-square image (with fold=1 the first two fold their rows into the channels as well: 1x1
// over 27 and 200 channels). The floats match; with im2col=0 nothing changes, and a 1x1 kernel (1
// step either way), 16 channels and an input the graph computes stay.
TEST(FirstLayerPacking, PreservesResultsOfStride1Convolutions) {
  const char* kConvs[] = {
      "%x: f32[1,3,8,8]) {\n  %w: f32[4,3,3,3] = const splat(1.0)\n  %y: f32[1,4,8,8] = "
      "Conv(%x, %w) {dilations = [1, 1], group = 1, pads = [1, 1, 1, 1], strides = [1, 1]}",
      "%x: f32[1,8,9,9]) {\n  %w: f32[3,8,5,5] = const splat(1.0)\n  %y: f32[1,3,8,8] = "
      "Conv(%x, %w) {dilations = [1, 1], group = 1, pads = [2, 1, 1, 2], strides = [1, 1]}",
      "%x: f32[2,1,6,6]) {\n  %w: f32[2,1,3,3] = const splat(1.0)\n  %b: f32[2] = const "
      "splat(1.0)\n  %y: f32[2,2,4,4] = Conv(%x, %w, %b) {activation = \"relu\", dilations = "
      "[1, 1], group = 1, pads = [0, 0, 0, 0], strides = [1, 1]}",
      "%x: f32[1,2,5,12]) {\n  %w: f32[2,2,1,7] = const splat(1.0)\n  %y: f32[1,2,5,12] = "
      "Conv(%x, %w) {dilations = [1, 1], group = 1, pads = [0, 3, 0, 3], strides = [1, 1]}",
      // A 7x7 over a 2x2 image: folded by 7, some groups crop more rows than the image has.
      "%x: f32[1,3,2,2]) {\n  %w: f32[2,3,7,7] = const splat(1.0)\n  %y: f32[1,2,2,2] = "
      "Conv(%x, %w) {dilations = [1, 1], group = 1, pads = [3, 3, 3, 3], strides = [1, 1]}",
  };
  for (const char* conv : kConvs) {
    for (int im2col : {0, 1}) ExpectPackingPreserves(conv, im2col, 5, 4, /*transposes=*/0);
    ExpectPackingPreserves(conv, 1, 5, 4, /*transposes=*/0, /*block=*/16, /*fold=*/1);
  }
  ir::Graph stays = testing::Parse(R"(
    graph @stays(%x: f32[1,3,8,8], %x16: f32[1,16,8,8]) {
      %w1: f32[4,3,1,1] = const splat(1.0)
      %w: f32[4,3,3,3] = const splat(1.0)
      %w16: f32[4,16,3,3] = const splat(1.0)
      %a: f32[1,4,8,8] = Conv(%x, %w1) {dilations = [1, 1], group = 1, pads = [0, 0, 0, 0],
                                        strides = [1, 1]}
      %b: f32[1,4,8,8] = Conv(%x16, %w16) {dilations = [1, 1], group = 1, pads = [1, 1, 1, 1],
                                           strides = [1, 1]}
      %r: f32[1,3,8,8] = Relu(%x)
      %c: f32[1,4,8,8] = Conv(%r, %w) {dilations = [1, 1], group = 1, pads = [1, 1, 1, 1],
                                       strides = [1, 1]}
      return %a, %b, %c
    })");
  const size_t nodes = stays.nodes().size();
  ASSERT_TRUE(RunPipeline({"first-layer-packing{block=16}"}, &stays).ok());
  EXPECT_EQ(stays.nodes().size(), nodes) << ir::PrintGraph(stays);
}

// The row fold (fold=1; off by default) is taken only where it saves GEMM steps, by the block:
// conv1's 7x7/2 over 3 channels is 4x1 over 48 channels on block 16 (12 steps; folding ties) and
// 2x1 over 96 on block 32 (6 steps against 8); a 3x3/1 over 3 channels is 1x1 over 27 on block 16
// (2 against 3), with the height padding moved to the host (no pads left on the conv).
TEST(FirstLayerPacking, FoldsRowsOnlyWhereThatSavesSteps) {
  const char* kStem = R"(
    graph @g(%x: f32[1,3,32,32]) {
      %w: f32[8,3,7,7] = const splat(1.0)
      %y: f32[1,8,16,16] = Conv(%x, %w) {dilations = [1, 1], group = 1, pads = [3, 3, 3, 3],
                                         strides = [2, 2]}
      return %y
    })";
  const char* kVgg = R"(
    graph @g(%x: f32[1,3,8,8]) {
      %w: f32[4,3,3,3] = const splat(1.0)
      %y: f32[1,4,8,8] = Conv(%x, %w) {dilations = [1, 1], group = 1, pads = [1, 1, 1, 1],
                                       strides = [1, 1]}
      return %y
    })";
  struct Case {
    const char* graph;
    int block, fold;
    ir::Shape weights;
    std::vector<int64_t> pads;
  };
  const Case kCases[] = {{kStem, 16, 1, {8, 48, 4, 1}, {2, 0, 1, 0}},
                         {kStem, 32, 1, {8, 96, 2, 1}, {0, 0, 0, 0}},
                         {kStem, 32, 0, {8, 48, 4, 1}, {2, 0, 1, 0}},
                         {kVgg, 16, 1, {4, 27, 1, 1}, {0, 0, 0, 0}},
                         {kVgg, 8, 1, {4, 27, 1, 1}, {0, 0, 0, 0}}};
  for (const Case& c : kCases) {
    SCOPED_TRACE(std::string(c.graph) + "block " + std::to_string(c.block) +
                 " fold=" + std::to_string(c.fold));
    ir::Graph g = testing::Parse(c.graph);
    ASSERT_TRUE(RunPipeline({"first-layer-packing{block=" + std::to_string(c.block) +
                             ", fold=" + std::to_string(c.fold) + "}"},
                            &g)
                    .ok());
    const ir::Node* conv = nullptr;
    for (const ir::Node* n : g.nodes()) conv = n->op == "Conv" ? n : conv;
    ASSERT_NE(conv, nullptr);
    EXPECT_EQ(g.value(conv->input(1)).shape, c.weights) << ir::PrintGraph(g);
    EXPECT_EQ(conv->GetInts("pads"), c.pads) << ir::PrintGraph(g);
  }
}

TEST(DefaultPipeline, LeavesOnlyTheEssentialOps) {
  ir::Graph g = testing::Parse(kNet);
  ASSERT_TRUE(RunPipeline(DefaultPipeline(), &g).ok());
  std::map<std::string, int> ops;
  for (const ir::Node* n : g.nodes()) ++ops[n->op];
  // Conv+BN+Relu and Conv+Add+Clip fold to two Convs; Gemm+BN to one Gemm whose Add+Relu stays an
  // Add with a fused relu; MatMul+BN becomes MatMul+Add; MatMul+Add+BN stays MatMul+Add;
  // ConvTranspose+BN+Relu becomes one ConvTranspose.
  EXPECT_EQ(ops, (std::map<std::string, int>{{"Add", 3},
                                             {"Conv", 2},
                                             {"ConvTranspose", 1},
                                             {"Gemm", 1},
                                             {"GlobalAveragePool", 1},
                                             {"MatMul", 2},
                                             {"Reshape", 1}}));
}

TEST(Registry, NamesSummariesAndLookup) {
  for (const PassInfo* p : AllPasses()) {
    EXPECT_EQ(FindPass(p->name), p);
    EXPECT_NE(std::string(p->summary), "");
    EXPECT_NE(p->run, nullptr);
  }
  for (const std::string& name : DefaultPipeline()) EXPECT_NE(FindPass(name), nullptr) << name;
}

TEST(PassManager, ParsesPipelinesAndRejectsUnknowns) {
  std::vector<PassInvocation> passes;
  ASSERT_TRUE(
      ParsePipeline({"fusion, constant-folding{max-bytes=64},dead-code-elimination"}, &passes)
          .ok());
  ASSERT_EQ(passes.size(), 3u);
  EXPECT_EQ(passes[1].options.at("max-bytes"), "64");
  EXPECT_THAT(ParsePipeline({"fusion,nope"}, &passes).message(), HasSubstr("unknown pass 'nope'"));
  EXPECT_THAT(ParsePipeline({"fusion{x=1}"}, &passes).message(),
              HasSubstr("pass 'fusion' has no option 'x'"));
  EXPECT_THAT(ParsePipeline({"constant-folding{max-bytes=1"}, &passes).message(),
              HasSubstr("unbalanced braces"));
  ir::Graph g = testing::Parse(kNet);
  EXPECT_THAT(RunPipeline({"constant-folding{max-bytes=lots}"}, &g).message(),
              HasSubstr("max-bytes=lots is not an integer"));
}

// A pass that breaks the IR: the manager must stop right after it, naming it.
Status BreakTypes(ir::Graph& g, const PassOptions&) {
  g.value(g.nodes()[0]->outputs[0]).shape.push_back(7);
  return Status::Ok();
}

TEST(PassManager, VerifiesAfterEveryPass) {
  const PassInfo broken{"break-types", "test only", "", BreakTypes};
  ir::Graph g = testing::Parse(kNet);
  Status s = RunPipeline({PassInvocation{&broken, {}}}, &g);
  EXPECT_EQ(s.code(), StatusCode::kInternal);
  EXPECT_THAT(s.message(), HasSubstr("verifier failed after pass break-types"));
  // Without verification the broken graph goes through unnoticed.
  ir::Graph h = testing::Parse(kNet);
  PipelineOptions off;
  off.verify_each = false;
  EXPECT_TRUE(RunPipeline({PassInvocation{&broken, {}}}, &h, off).ok());
}

TEST(PassManager, DumpsAfterNamedPasses) {
  ir::Graph g = testing::Parse(kNet);
  std::ostringstream dump;
  PipelineOptions options;
  options.dump_after = {"identity-removal"};
  options.dump_stream = &dump;
  ASSERT_TRUE(RunPipeline({"identity-removal,fusion"}, &g, options).ok());
  EXPECT_THAT(dump.str(), HasSubstr("// -----// IR dump after identity-removal //----- //"));
  EXPECT_THAT(dump.str(), Not(HasSubstr("after fusion")));
  EXPECT_THAT(dump.str(), Not(HasSubstr("Identity(")));
}

TEST(ConstantFolding, RespectsTheSizeLimit) {
  const char* text = R"(
    graph @t(%x: f32[4]) {
      %a: f32[4] = const [1.0, 2.0, 3.0, 4.0]
      %b: f32[4] = Relu(%a)
      %y: f32[4] = Add(%x, %b)
      return %y
    })";
  ir::Graph small = testing::Parse(text), large = testing::Parse(text);
  ASSERT_TRUE(RunPipeline({"constant-folding{max-bytes=15}"}, &small).ok());
  ASSERT_TRUE(RunPipeline({"constant-folding{max-bytes=16}"}, &large).ok());
  EXPECT_EQ(small.nodes().size(), 2u);
  EXPECT_EQ(large.nodes().size(), 1u);
}

}  // namespace
}  // namespace loom::passes
