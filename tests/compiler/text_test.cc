// The text form: every attribute kind, quantization and layout annotations, quoting and float
// spelling survive print -> parse -> print unchanged; parse errors carry line:column.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>

#include "compiler/ir/parser.h"
#include "compiler/ir/printer.h"
#include "compiler/ir/verifier.h"
#include "tests/compiler/test_util.h"

namespace loom::ir {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

std::string RoundTrip(const Graph& g) {
  PrintOptions all;
  all.inline_elements = -1;
  const std::string first = PrintGraph(g, all);
  Graph again;
  Status s = ParseGraph(first, &again);
  EXPECT_TRUE(s.ok()) << s.ToString() << "\n" << first;
  const std::string second = PrintGraph(again, all);
  EXPECT_EQ(first, second);
  return first;
}

TEST(Text, FloatsAlwaysReadBackAsFloats) {
  EXPECT_EQ(FormatFloat(1.0), "1.0");
  EXPECT_EQ(FormatFloat(-0.5), "-0.5");
  EXPECT_EQ(FormatFloat(1e-5f), "9.99999975e-06");
  EXPECT_EQ(FormatFloat(1e20f), "1.00000002e+20");
  EXPECT_EQ(FormatFloat(std::numeric_limits<float>::infinity()), "inf");
  EXPECT_EQ(FormatFloat(-std::numeric_limits<float>::infinity()), "-inf");
  EXPECT_EQ(FormatFloat(std::nanf("")), "nan");
  EXPECT_EQ(FormatFloat(-0.0f), "-0.0");
}

// Every float bit pattern that matters prints to text that parses back to the same bits:
// signed zeros, subnormals, extremes, and NaNs with payloads (found by the ONNX fuzzer).
TEST(Text, FloatConstantsRoundTripBitExactly) {
  const uint32_t patterns[] = {0x00000000u, 0x80000000u, 0x00000001u, 0x807fffffu, 0x7f7fffffu,
                               0xff7fffffu, 0x7f800000u, 0xff800000u, 0x7fc00000u, 0xffc00000u,
                               0x7fc00001u, 0x7f800001u, 0xffffffffu, 0x3dcccccdu, 0x33d6bf95u};
  std::vector<float> values;
  for (uint32_t p : patterns) {
    float f;
    std::memcpy(&f, &p, sizeof f);
    values.push_back(f);
  }
  Graph g;
  const ValueId c = g.AddConstant(
      "c", Tensor::FromVector<float>(DType::kF32, {static_cast<int64_t>(values.size())}, values));
  g.AddOutput(c);
  RoundTrip(g);
  Graph back;
  PrintOptions all;
  all.inline_elements = -1;
  ASSERT_TRUE(ParseGraph(PrintGraph(g, all), &back).ok());
  const Tensor& t = *back.value(back.FindValue("c")).constant;
  for (size_t i = 0; i < values.size(); ++i) {
    uint32_t bits;
    std::memcpy(&bits, &t.data<float>()[i], sizeof bits);
    EXPECT_EQ(bits, patterns[i]) << i;
  }
}

TEST(Text, NamesAreQuotedWhenNeeded) {
  EXPECT_EQ(FormatName("conv1/weight.0"), "conv1/weight.0");
  EXPECT_EQ(FormatName("a:0"), "\"a:0\"");
  EXPECT_EQ(FormatName("say \"hi\"\n"), "\"say \\\"hi\\\"\\x0a\"");
  EXPECT_EQ(FormatName(""), "\"\"");
}

TEST(Text, EveryAttributeKindRoundTrips) {
  Graph g;
  g.name = "kinds";
  const ValueId x = g.AddInput("x", DType::kF32, {2});
  const ValueId y = g.AddValue("weird \"name\"", DType::kF32, {2});
  AttributeMap attrs;
  attrs["i"] = Attribute::Int(-3);
  attrs["f"] = Attribute::Float(0.1f);
  attrs["s"] = Attribute::String("a \"quoted\" \\ string");
  attrs["is"] = Attribute::Ints({1, -2, 3});
  attrs["fs"] = Attribute::Floats({0.5f, -1e-7f});
  attrs["empty_ints"] = Attribute::Ints({});
  attrs["empty_floats"] = Attribute::Floats({});
  attrs["t"] = Attribute::TensorValue(Tensor::FromVector<int32_t>(DType::kI32, {2}, {7, -8}));
  g.AddNode("Identity", {x}, {y}, attrs, "node with spaces");
  g.AddOutput(y);
  const std::string text = RoundTrip(g);
  EXPECT_THAT(text, HasSubstr("empty_floats = floats[]"));
  EXPECT_THAT(text, HasSubstr("t = tensor<i32[2] #"));
  EXPECT_THAT(text, HasSubstr("@\"node with spaces\""));
  Graph back;
  ASSERT_TRUE(ParseGraph(text, &back).ok());
  const Node& n = *back.nodes()[0];
  EXPECT_EQ(*n.FindAttr("f"), Attribute::Float(0.1f));
  EXPECT_EQ(*n.FindAttr("fs"), Attribute::Floats({0.5f, -1e-7f}));
  EXPECT_EQ(*n.FindAttr("s"), Attribute::String("a \"quoted\" \\ string"));
  EXPECT_EQ(n.FindAttr("empty_floats")->kind(), Attribute::Kind::kFloats);
  EXPECT_EQ(n.FindAttr("t")->tensor().data<int32_t>()[1], -8);
}

TEST(Text, QuantizationAnnotationsRoundTrip) {
  Graph g = testing::Parse(R"(
    graph @q(%x: i8[2,3] quant(scale=0.5, zero_point=-3)) {
      %w: i8[4,3] quant(axis=0, scale=[0.1, 0.2, 0.3, 0.4], zero_point=[0, 0, 1, -1])
          = const splat(2)
      %y: i8[2,3] quant(scale=0.25, zero_point=0) = Identity(%x)
      return %y
    })");
  const std::string text = RoundTrip(g);
  EXPECT_THAT(text, HasSubstr("%x: i8[2,3] quant(scale=0.5, zero_point=-3)"));
  const ValueId w = g.FindValue("w");
  ASSERT_TRUE(g.value(w).quant.has_value());
  EXPECT_EQ(g.value(w).quant->axis, 0);
  EXPECT_EQ(g.value(w).quant->zero_points[3], -1);
}

TEST(Text, ParseErrorsHaveLineAndColumn) {
  Graph g;
  Status s = ParseGraph("graph @e(%x: f32[2]) {\n  %y: f32[2] = Relu(%x)\n  retrun %y\n}\n", &g);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("line 3:3: expected '%'"));
  s = ParseGraph("graph @e() {\n  %c: i8[2] = const [1, 200]\n  return %c\n}\n", &g);
  EXPECT_THAT(s.message(), HasSubstr("line 2:25: element 200 does not fit i8"));
  s = ParseGraph("graph @e() {\n  %c: f32[2] = const [1.0]\n  return %c\n}", &g);
  EXPECT_THAT(s.message(), HasSubstr("constant needs 2 elements, has 1"));
}

TEST(Text, LargeConstantsPrintOnlyAHash) {
  Graph g = testing::Parse(R"(
    graph @big() {
      %c: f32[16] = const splat(1.0)
      %y: f32[16] = Relu(%c)
      return %y
    })");
  const std::string text = PrintGraph(g);
  EXPECT_THAT(text, HasSubstr("%c: f32[16] = const #"));
  EXPECT_THAT(text, Not(HasSubstr("1.0, 1.0")));
  // Same data, same hash; other data, other hash.
  const Tensor& t = *g.value(g.FindValue("c")).constant;
  Tensor u = t;
  EXPECT_EQ(ShortHash(t), ShortHash(u));
  u.mutable_data<float>()[3] = 2.0f;
  EXPECT_NE(ShortHash(t), ShortHash(u));
}

}  // namespace
}  // namespace loom::ir
