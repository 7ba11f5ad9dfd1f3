// The reference interpreter: every IR op has an executor, fused activations run, inputs are
// checked, and results match hand-computed values.
#include "compiler/interp/interpreter.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "compiler/ir/op_registry.h"
#include "compiler/ir/verifier.h"
#include "tests/compiler/test_util.h"

namespace loom::interp {
namespace {

using ::testing::HasSubstr;

TEST(Interpreter, EveryRegisteredOpCanRun) {
  for (const ir::OpDef& def : ir::AllOps()) EXPECT_TRUE(HasExecutor(def.name)) << def.name;
  EXPECT_FALSE(HasExecutor("RandomUniformLike"));
}

TEST(Interpreter, RunsAGraphWithFusedActivations) {
  ir::Graph g = testing::Parse(R"(
    graph @t(%x: f32[1,1,2,2]) {
      %w: f32[2,1,1,1] = const [1.0, -1.0]
      %b: f32[2] = const [0.5, 0.5]
      %c: f32[1,2,2,2] = Conv(%x, %w, %b) {activation = "relu", dilations = [1, 1], group = 1,
                                           pads = [0, 0, 0, 0], strides = [1, 1]}
      %k: f32[] = const [2.0]
      %y: f32[1,2,2,2] = Add(%c, %k) {activation = "clip", clip_max = 3.0, clip_min = 0.0}
      return %c, %y
    })");
  ASSERT_TRUE(ir::Verify(g).ok()) << ir::Verify(g).ToString();
  const ir::Tensor x =
      ir::Tensor::FromVector<float>(DType::kF32, {1, 1, 2, 2}, {-2.0f, 0.0f, 1.0f, 2.0f});
  std::vector<ir::Tensor> out;
  ASSERT_TRUE(interp::Run(g, {x}, &out).ok());
  ASSERT_EQ(out.size(), 2u);
  // Channel 0: relu(x + 0.5); channel 1: relu(-x + 0.5).
  const std::vector<float> c = {0.0f, 0.5f, 1.5f, 2.5f, 2.5f, 0.5f, 0.0f, 0.0f};
  for (size_t i = 0; i < c.size(); ++i) {
    EXPECT_FLOAT_EQ(out[0].data<float>()[i], c[i]) << i;
    EXPECT_FLOAT_EQ(out[1].data<float>()[i], std::min(3.0f, c[i] + 2.0f)) << i;
  }
}

TEST(Interpreter, ChecksInputs) {
  ir::Graph g = testing::Parse(R"(
    graph @t(%x: f32[2]) {
      %y: f32[2] = Relu(%x)
      return %y
    })");
  std::vector<ir::Tensor> out;
  const ir::Tensor wrong = ir::Tensor::FromVector<float>(DType::kF32, {3}, {1, 2, 3});
  Status s = interp::Run(g, {wrong}, &out);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("input %x must be f32[2], got f32[3]"));
  EXPECT_FALSE(interp::Run(g, std::vector<ir::Tensor>{}, &out).ok());
  const ir::Tensor ok = ir::Tensor::FromVector<float>(DType::kF32, {2}, {-1, 1});
  EXPECT_TRUE(interp::Run(g, std::map<std::string, ir::Tensor>{{"x", ok}}, &out).ok());
  EXPECT_EQ(out[0].data<float>()[0], 0.0f);
  s = interp::Run(g, std::map<std::string, ir::Tensor>{{"x", ok}, {"z", ok}}, &out);
  EXPECT_EQ(s.code(), StatusCode::kNotFound);
  EXPECT_THAT(s.message(), HasSubstr("'z' is not an input"));
}

TEST(Interpreter, IntegerPipelineIsBitExact) {
  // Quantize -> integer matmul -> dequantize, against the arithmetic done by hand.
  ir::Graph g = testing::Parse(R"(
    graph @q(%x: f32[1,2]) {
      %s: f32[] = const [0.5]
      %z: i8[] = const [1]
      %w: i8[2,1] = const [3, -2]
      %q: i8[1,2] = QuantizeLinear(%x, %s, %z)
      %acc: i32[1,1] = MatMulInteger(%q, %w, %z)
      return %q, %acc
    })");
  const ir::Tensor x = ir::Tensor::FromVector<float>(DType::kF32, {1, 2}, {1.25f, -100.0f});
  std::vector<ir::Tensor> out;
  ASSERT_TRUE(interp::Run(g, {x}, &out).ok());
  // 1.25 / 0.5 = 2.5 -> 2 (ties to even) + 1 = 3; -200 + 1 saturates to -128.
  EXPECT_EQ(out[0].data<int8_t>()[0], 3);
  EXPECT_EQ(out[0].data<int8_t>()[1], -128);
  // (3 - 1) * 3 + (-128 - 1) * (-2) = 6 + 258.
  EXPECT_EQ(out[1].data<int32_t>()[0], 264);
}

TEST(Interpreter, KernelErrorsNameTheNode) {
  // A graph the verifier accepts but whose runtime data a kernel rejects: Clip with min > max.
  ir::Graph g = testing::Parse(R"(
    graph @t(%x: f32[2], %lo: f32[]) {
      %hi: f32[] = const [0.0]
      %y: f32[2] = Clip(%x, %lo, %hi) @clip
      return %y
    })");
  const ir::Tensor x = ir::Tensor::FromVector<float>(DType::kF32, {2}, {1, 2});
  const ir::Tensor lo = ir::Tensor::FromVector<float>(DType::kF32, {}, {1.0f});
  std::vector<ir::Tensor> out;
  Status s = interp::Run(g, std::vector<ir::Tensor>{x, lo}, &out);
  EXPECT_THAT(s.message(), HasSubstr("node 'clip' (Clip): clip: min must not exceed max"));
}

// IR text is untrusted: an attribute code the importer never writes is an error naming the node,
// checked where the package's CPU segments check it (kernels::GridSampleParamsFrom).
TEST(Interpreter, UnknownAttributeCodesAreRefused) {
  ir::Graph g = testing::Parse(R"(
    graph @t(%x: f32[1,1,2,2], %grid: f32[1,1,1,2]) {
      %y: f32[1,1,1,1] = GridSample(%x, %grid) {align_corners = 0, mode = 7, padding_mode = 0} @gs
      return %y
    })");
  const ir::Tensor x = ir::Tensor::FromVector<float>(DType::kF32, {1, 1, 2, 2}, {1, 2, 3, 4});
  const ir::Tensor grid = ir::Tensor::FromVector<float>(DType::kF32, {1, 1, 1, 2}, {0, 0});
  std::vector<ir::Tensor> out;
  Status s = interp::Run(g, std::vector<ir::Tensor>{x, grid}, &out);
  EXPECT_THAT(s.message(), HasSubstr("node 'gs' (GridSample): GridSample: mode 7, padding_mode 0 "
                                     "or align_corners 0 is not a known code"));
}

}  // namespace
}  // namespace loom::interp
