#include "compiler/tools/input_shape_flag.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace loom::tools {
namespace {

using ::testing::HasSubstr;
using Shapes = std::map<std::string, std::vector<int64_t>>;

TEST(InputShapeFlag, BothSeparatorsGiveTheSameShape) {
  Shapes s;
  ASSERT_TRUE(ParseInputShape("x=1x3x224x224", 1, &s).ok());
  ASSERT_TRUE(ParseInputShape("y=1,3,224,224", 1, &s).ok());
  ASSERT_TRUE(ParseInputShape("z=2x3,4", 1, &s).ok());
  EXPECT_EQ(s["x"], (std::vector<int64_t>{1, 3, 224, 224}));
  EXPECT_EQ(s["y"], s["x"]);
  EXPECT_EQ(s["z"], (std::vector<int64_t>{2, 3, 4}));
  // The same name again replaces the earlier shape.
  ASSERT_TRUE(ParseInputShape("x=5", 1, &s).ok());
  EXPECT_EQ(s["x"], (std::vector<int64_t>{5}));
}

TEST(InputShapeFlag, MinimumDimIsTheCallers) {
  Shapes s;
  EXPECT_TRUE(ParseInputShape("x=0,4", 0, &s).ok());  // loom-opt
  const Status st = ParseInputShape("x=0x4", 1, &s);  // loom compile
  EXPECT_EQ(st.code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(st.message(),
              HasSubstr("--input-shape x=0x4: bad dimension '0' (want an integer >= 1)"));
}

TEST(InputShapeFlag, MalformedSpecsNameTheProblem) {
  struct Case {
    const char* spec;
    const char* message;
  };
  const Case cases[] = {
      {"x", "--input-shape wants NAME=D0xD1x... (or NAME=D0,D1,...), got 'x'"},
      {"=1x2", "got '=1x2'"},
      {"x=", "got 'x='"},
      {"x=1xx2", "bad dimension ''"},
      {"x=1x2,", "bad dimension ''"},
      {"x=1x-2", "bad dimension '-2'"},
      {"x=1x2a", "bad dimension '2a'"},
      {"x=99999999999999999999", "bad dimension '99999999999999999999'"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.spec);
    Shapes s;
    const Status st = ParseInputShape(c.spec, 0, &s);
    EXPECT_EQ(st.code(), StatusCode::kInvalidArgument);
    EXPECT_THAT(st.message(), HasSubstr(c.message));
    EXPECT_TRUE(s.empty());
  }
}

}  // namespace
}  // namespace loom::tools
