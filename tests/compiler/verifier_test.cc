// The verifier on graphs the parser cannot express (out-of-order nodes, dangling ids, shared
// producers, broken constants), and a check that every registered op is fully described.
#include "compiler/ir/verifier.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "compiler/ir/op_registry.h"
#include "tests/compiler/test_util.h"

namespace loom::ir {
namespace {

using ::testing::HasSubstr;

// %x -> Relu -> %a -> Relu -> %b (output), built by hand so tests can break it.
struct Chain {
  Graph g;
  ValueId x, a, b;
  Node* first;
  Node* second;
  Chain() {
    x = g.AddInput("x", DType::kF32, {2});
    a = g.AddValue("a", DType::kF32, {2});
    b = g.AddValue("b", DType::kF32, {2});
    first = g.AddNode("Relu", {x}, {a}, {}, "first");
    second = g.AddNode("Relu", {a}, {b}, {}, "second");
    g.AddOutput(b);
  }
};

TEST(Verifier, AcceptsAWellFormedGraph) {
  Chain c;
  EXPECT_TRUE(Verify(c.g).ok()) << Verify(c.g).ToString();
}

TEST(Verifier, UseBeforeDefinition) {
  Chain c;
  c.g.nodes();  // order: first, second
  Graph& g = c.g;
  g.EraseNode(c.first);
  g.AddNode("Relu", {c.x}, {c.a}, {}, "late");  // appended after its user
  Status s = Verify(g);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(s.message(), "node 'second' (Relu): input 0 %a is used before it is defined");
}

TEST(Verifier, SingleProducer) {
  Chain c;
  c.second->outputs[0] = c.a;  // both nodes now produce %a
  EXPECT_THAT(Verify(c.g).message(),
              HasSubstr("node 'second' (Relu): output %a already has a producer"));
}

TEST(Verifier, DanglingIds) {
  Chain c;
  c.second->inputs[0] = 42;
  EXPECT_THAT(Verify(c.g).message(),
              HasSubstr("node 'second' (Relu): input 0 refers to an invalid or removed value"));
  Chain d;
  d.g.mutable_outputs()[0] = -7;
  EXPECT_THAT(Verify(d.g).message(), HasSubstr("graph output refers to an invalid value id"));
}

TEST(Verifier, OutputsMustBeDefined) {
  Chain c;
  const ValueId orphan = c.g.AddValue("orphan", DType::kF32, {2});
  c.g.AddOutput(orphan);
  EXPECT_EQ(Verify(c.g).message(), "graph output %orphan is never defined");
}

TEST(Verifier, TypesMustBePresentAndConsistent) {
  Chain c;
  c.g.value(c.a).dtype = DType::kUndefined;
  EXPECT_THAT(Verify(c.g).message(), HasSubstr("%a has no type"));
  Chain d;
  d.g.value(d.a).shape = {3};
  EXPECT_THAT(Verify(d.g).message(),
              HasSubstr("output %a is recorded as f32[3] but the op gives f32[2]"));
}

TEST(Verifier, ConstantsMatchTheirData) {
  Graph g = testing::Parse(R"(
    graph @t(%x: f32[2]) {
      %k: f32[2] = const [1.0, 2.0]
      %y: f32[2] = Add(%x, %k)
      return %y
    })");
  g.value(g.FindValue("k")).shape = {1, 2};
  EXPECT_THAT(Verify(g).message(), HasSubstr("constant %k is f32[1,2] but holds f32[2]"));
}

TEST(Verifier, ProducedValuesCannotBeInputsOrConstants) {
  Chain c;
  c.first->outputs[0] = c.x;
  EXPECT_THAT(Verify(c.g).message(),
              HasSubstr("output %x is a constant or graph input and cannot be produced"));
}

TEST(Verifier, QuantParamsMatchTheShape) {
  Chain c;
  c.g.value(c.a).quant = QuantParams{{0.1f, 0.2f, 0.3f}, {0, 0, 0}, 0};
  EXPECT_THAT(Verify(c.g).message(), HasSubstr("per-axis quantization needs 2 scales, has 3"));
  c.g.value(c.a).quant = QuantParams{{0.1f, 0.2f}, {0, 0}, 0};
  EXPECT_TRUE(Verify(c.g).ok());
}

TEST(OpRegistry, EveryOpHasAShapeFunctionAndSummary) {
  for (const OpDef& def : AllOps()) {
    EXPECT_NE(def.infer, nullptr) << def.name;
    EXPECT_NE(std::string(def.summary), "") << def.name;
    EXPECT_EQ(FindOp(def.name), &def);
    EXPECT_LE(def.min_inputs, def.max_inputs < 0 ? 1000 : def.max_inputs) << def.name;
  }
  EXPECT_EQ(FindOp("RandomUniformLike"), nullptr);
}

}  // namespace
}  // namespace loom::ir
