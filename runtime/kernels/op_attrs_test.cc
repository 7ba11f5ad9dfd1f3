#include "runtime/kernels/op_attrs.h"

#include <gtest/gtest.h>

#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace loom::kernels {
namespace {

// The three lookups op_attrs.h reads, over a map.
struct MapAttrs {
  std::map<std::string, std::vector<int64_t>, std::less<>> ints;
  std::map<std::string, float, std::less<>> floats;
  std::vector<int64_t> GetInts(std::string_view name) const {
    auto it = ints.find(name);
    return it == ints.end() ? std::vector<int64_t>{} : it->second;
  }
  int64_t GetInt(std::string_view name, int64_t fallback) const {
    auto it = ints.find(name);
    return it == ints.end() || it->second.empty() ? fallback : it->second[0];
  }
  float GetFloat(std::string_view name, float fallback) const {
    auto it = floats.find(name);
    return it == floats.end() ? fallback : it->second;
  }
};

TEST(OpAttrs, ConvDefaultsWhenAbsent) {
  ConvParams p;
  ASSERT_TRUE(ConvParamsFrom(MapAttrs{}, 4, &p).ok());
  EXPECT_EQ(p.spatial, 2);
  EXPECT_EQ(p.strides[1], 1);
  EXPECT_EQ(p.dilations[0], 1);
  EXPECT_EQ(p.pads_end[1], 0);
  EXPECT_EQ(p.group, 1);
}

TEST(OpAttrs, ConvSplitsPadsIntoBeginsAndEnds) {
  MapAttrs a;
  a.ints = {{"pads", {1, 2, 3, 4}}, {"strides", {2, 1}}, {"group", {3}}};
  ConvParams p;
  ASSERT_TRUE(ConvParamsFrom(a, 4, &p).ok());
  EXPECT_EQ(p.pads_begin[0], 1);
  EXPECT_EQ(p.pads_begin[1], 2);
  EXPECT_EQ(p.pads_end[0], 3);
  EXPECT_EQ(p.pads_end[1], 4);
  EXPECT_EQ(p.strides[0], 2);
  EXPECT_EQ(p.group, 3);
}

TEST(OpAttrs, WrongLengthsAndRanksAreNamed) {
  MapAttrs a;
  a.ints = {{"strides", {1, 1, 1}}};
  ConvParams c;
  Status s = ConvParamsFrom(a, 4, &c);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(s.message(), "attribute strides has 3 values, the input needs 2");
  s = ConvParamsFrom(MapAttrs{}, 2, &c);
  EXPECT_EQ(s.message(), "a sliding window needs an input of rank 3 to 8, not 2");
  PoolParams p;
  s = PoolParamsFrom(MapAttrs{}, 4, &p);
  EXPECT_EQ(s.message(), "attribute kernel_shape is missing");
}

TEST(OpAttrs, PoolAndGemm) {
  MapAttrs a;
  a.ints = {{"kernel_shape", {3}}, {"pads", {1, 0}}, {"count_include_pad", {1}}, {"transB", {1}}};
  a.floats = {{"alpha", 0.5f}};
  PoolParams p;
  ASSERT_TRUE(PoolParamsFrom(a, 3, &p).ok());
  EXPECT_EQ(p.spatial, 1);
  EXPECT_EQ(p.kernel[0], 3);
  EXPECT_EQ(p.pads_begin[0], 1);
  EXPECT_TRUE(p.count_include_pad);
  const GemmParams g = GemmParamsFrom(a);
  EXPECT_FLOAT_EQ(g.alpha, 0.5f);
  EXPECT_FLOAT_EQ(g.beta, 1.0f);
  EXPECT_FALSE(g.trans_a);
  EXPECT_TRUE(g.trans_b);
}

TEST(OpAttrs, StorageOrderIsNotNarrowed) {
  MapAttrs a;
  a.ints = {{"kernel_shape", {3}}, {"storage_order", {int64_t{1} << 32}}};
  PoolParams p;
  ASSERT_TRUE(PoolParamsFrom(a, 3, &p).ok());
  EXPECT_EQ(p.storage_order, -1);  // MaxPool refuses it; a wrapped 0 would have been accepted
}

}  // namespace
}  // namespace loom::kernels
