// Graph mutation helpers: unique names, rewiring with output-name takeover, erasing nodes while
// walking, topological sort, dead values, and cheap copies.
#include "compiler/ir/graph.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "compiler/ir/printer.h"
#include "compiler/ir/verifier.h"
#include "tests/compiler/test_util.h"

namespace loom::ir {
namespace {

using ::testing::HasSubstr;

TEST(Graph, NamesAreMadeUnique) {
  Graph g;
  const ValueId a = g.AddValue("x", DType::kF32, {1});
  const ValueId b = g.AddValue("x", DType::kF32, {1});
  const ValueId c = g.AddValue("", DType::kF32, {1});
  EXPECT_EQ(g.value(a).name(), "x");
  EXPECT_EQ(g.value(b).name(), "x.1");
  EXPECT_EQ(g.value(c).name(), "v");
  EXPECT_EQ(g.FindValue("x.1"), b);
  EXPECT_FALSE(g.RenameValue(a, "x.1").ok());
  EXPECT_TRUE(g.RenameValue(a, "y").ok());
  EXPECT_EQ(g.FindValue("y"), a);
  EXPECT_EQ(g.FindValue("x"), kNoValue);
}

TEST(Graph, ReplaceAllUsesWithTakesOverOutputNames) {
  Graph g = testing::Parse(R"(
    graph @t(%x: f32[2]) {
      %a: f32[2] = Relu(%x)
      %b: f32[2] = Identity(%a)
      %c: f32[2] = Sigmoid(%b)
      return %b, %c
    })");
  const ValueId a = g.FindValue("a"), b = g.FindValue("b");
  g.ReplaceAllUsesWith(b, a);
  g.EraseNode(g.Producer(b));
  // %a now carries the output name "b"; the old %b was renamed out of the way.
  EXPECT_EQ(g.value(a).name(), "b");
  EXPECT_EQ(g.outputs()[0], a);
  EXPECT_EQ(g.Uses(a).size(), 1u);
  EXPECT_TRUE(Verify(g).ok());
  EXPECT_THAT(PrintGraph(g), HasSubstr("%c: f32[2] = Sigmoid(%b)"));
}

TEST(Graph, GraphInputsKeepTheirNames) {
  Graph g = testing::Parse(R"(
    graph @t(%x: f32[2]) {
      %y: f32[2] = Identity(%x)
      return %y
    })");
  g.ReplaceAllUsesWith(g.FindValue("y"), g.FindValue("x"));
  EXPECT_EQ(g.value(g.outputs()[0]).name(), "x");
  EXPECT_NE(g.FindValue("y"), kNoValue);
}

TEST(Graph, ErasedNodesStayValidUntilReleased) {
  Graph g = testing::Parse(R"(
    graph @t(%x: f32[2]) {
      %a: f32[2] = Relu(%x)
      %b: f32[2] = Relu(%a)
      return %a
    })");
  std::vector<Node*> snapshot = g.nodes();
  g.EraseNode(snapshot[1]);
  EXPECT_TRUE(snapshot[1]->erased());  // still readable
  EXPECT_EQ(snapshot[1]->op, "Relu");
  EXPECT_EQ(g.nodes().size(), 1u);
  g.ReleaseErasedNodes();
  EXPECT_EQ(g.nodes().size(), 1u);
  EXPECT_EQ(g.nodes()[0], snapshot[0]);
}

TEST(Graph, TopologicalSortRepairsOrderAndFindsCycles) {
  Graph g;
  const ValueId x = g.AddInput("x", DType::kF32, {2});
  const ValueId a = g.AddValue("a", DType::kF32, {2});
  const ValueId b = g.AddValue("b", DType::kF32, {2});
  const ValueId c = g.AddValue("c", DType::kF32, {2});
  g.AddNode("Relu", {b}, {c}, {}, "third");
  g.AddNode("Relu", {x}, {a}, {}, "first");
  g.AddNode("Relu", {a}, {b}, {}, "second");
  g.AddOutput(c);
  EXPECT_THAT(Verify(g).message(), HasSubstr("used before it is defined"));
  ASSERT_TRUE(g.TopologicalSort().ok());
  EXPECT_EQ(g.nodes()[0]->name, "first");
  EXPECT_EQ(g.nodes()[1]->name, "second");
  EXPECT_EQ(g.nodes()[2]->name, "third");
  EXPECT_TRUE(Verify(g).ok());
  // A cycle: first now reads c.
  g.nodes()[0]->inputs[0] = c;
  Status s = g.TopologicalSort();
  EXPECT_FALSE(s.ok());
  EXPECT_THAT(s.message(), HasSubstr("cycle"));
}

TEST(Graph, RemoveDeadValuesFreesUnreferencedConstants) {
  Graph g = testing::Parse(R"(
    graph @t(%x: f32[2]) {
      %k: f32[2] = const [1.0, 2.0]
      %y: f32[2] = Add(%x, %k)
      return %y
    })");
  const ValueId k = g.FindValue("k");
  g.RemoveDeadValues();
  EXPECT_TRUE(g.IsValid(k));  // still read by the Add
  Node* add = g.nodes()[0];
  add->inputs[1] = g.FindValue("x");
  g.RemoveDeadValues();
  EXPECT_FALSE(g.IsValid(k));
  EXPECT_FALSE(g.value(k).is_constant());
  EXPECT_EQ(g.FindValue("k"), kNoValue);
  EXPECT_TRUE(Verify(g).ok());
}

TEST(Graph, CloneIsDeepButSharesConstantBytes) {
  Graph g = testing::Parse(R"(
    graph @t(%x: f32[2]) {
      %k: f32[2] = const [1.0, 2.0]
      %y: f32[2] = Add(%x, %k)
      return %y
    })");
  Graph c = g.Clone();
  const ValueId k = g.FindValue("k");
  EXPECT_EQ(g.value(k).constant->bytes(), c.value(k).constant->bytes());  // shared
  c.value(k).constant->mutable_data<float>()[0] = 9.0f;                   // copy on write
  EXPECT_EQ(g.value(k).constant->data<float>()[0], 1.0f);
  c.nodes()[0]->op = "Sub";
  EXPECT_EQ(g.nodes()[0]->op, "Add");
  EXPECT_NE(c.nodes()[0], g.nodes()[0]);
}

TEST(Graph, UsesAndProducer) {
  Graph g = testing::Parse(R"(
    graph @t(%x: f32[2]) {
      %a: f32[2] = Relu(%x)
      %b: f32[2] = Add(%a, %a) @add
      return %a, %b
    })");
  const ValueId a = g.FindValue("a");
  EXPECT_EQ(g.Producer(a)->op, "Relu");
  EXPECT_EQ(g.Uses(a).size(), 2u);
  EXPECT_EQ(g.NumUses(a), 3);  // two input slots and one graph output
  EXPECT_EQ(g.Producer(g.FindValue("x")), nullptr);
  EXPECT_EQ(NodeLabel(g, *g.nodes()[1]), "node 'add' (Add)");
  EXPECT_EQ(NodeLabel(g, *g.nodes()[0]), "node #0 (Relu) -> %a");
}

TEST(Tensor, SizesAreCheckedBeforeAllocating) {
  Tensor t;
  // 4 GiB is the limit; one element more is refused without allocating anything.
  uint64_t bytes = 0;
  ASSERT_TRUE(TensorBytes(DType::kI8, {int64_t{1} << 32}, &bytes).ok());
  EXPECT_EQ(bytes, uint64_t{1} << 32);
  Status s = Tensor::Create(DType::kF32, {(int64_t{1} << 30) + 1}, &t);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("tensor f32[1073741825] needs 4294967300 bytes, more than "
                                     "the compiler's limit of 4294967296 bytes (4 GiB)"));
  s = Tensor::FromBytes(DType::kI64, {int64_t{1} << 40}, {}, &t);
  EXPECT_THAT(s.message(), HasSubstr("more than the compiler's limit"));
  // Element counts: at most 2^40, and an empty shape's other dims multiply within it too.
  int64_t n = 0;
  EXPECT_TRUE(NumElements({int64_t{1} << 20, int64_t{1} << 20}, &n).ok());
  EXPECT_EQ(n, int64_t{1} << 40);
  EXPECT_FALSE(NumElements({int64_t{1} << 20, (int64_t{1} << 20) + 1}, &n).ok());
  EXPECT_FALSE(NumElements({0, int64_t{1} << 32, int64_t{1} << 32}, &n).ok());
  EXPECT_TRUE(NumElements({0, int64_t{1} << 40}, &n).ok());
  EXPECT_EQ(n, 0);
}

}  // namespace
}  // namespace loom::ir
