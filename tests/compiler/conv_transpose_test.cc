// ConvTranspose as zero insertion + a stride-1 convolution
// (compiler/passes/conv_transpose_as_conv.h): the derived pads and flipped weights, run through the
// float Conv on the zero-inserted input, give the float ConvTranspose's output on odd shapes,
// unequal strides, pads and output paddings; the layers it cannot take stay float, and the offload
// table says why.
#include <gtest/gtest.h>

#include <string>

#include "compiler/interp/interpreter.h"
#include "compiler/partition/partition.h"
#include "compiler/passes/conv_transpose_as_conv.h"
#include "tests/compiler/test_util.h"

namespace loom {
namespace {

struct Case {
  int64_t c, m, h, w, kh, kw, sh, sw;
  int64_t pads[4];  // top, left, bottom, right
  int64_t out_pad[2];
};

std::string Ints(std::initializer_list<int64_t> v) {
  std::string s = "[";
  for (int64_t x : v) s += (s.size() > 1 ? ", " : "") + std::to_string(x);
  return s + "]";
}

std::string Dims(std::initializer_list<int64_t> v) {
  std::string s = Ints(v);
  for (size_t i; (i = s.find(", ")) != std::string::npos;) s.replace(i, 2, ",");
  return s;
}

ir::Value* Named(ir::Graph& g, const std::string& name) {
  for (ir::ValueId id = 0; id < g.num_values(); ++id) {
    if (g.IsValid(id) && g.value(id).name() == name) return &g.value(id);
  }
  return nullptr;
}

TEST(ConvTransposeAsConv, MatchesTheFloatConvTranspose) {
  const Case cases[] = {
      {3, 5, 5, 7, 3, 3, 2, 2, {1, 1, 1, 1}, {1, 1}},  // the decoder's x2, odd plane
      {2, 3, 4, 3, 2, 2, 2, 2, {0, 0, 0, 0}, {0, 0}},  // 2x2 stride 2
      {3, 2, 5, 4, 4, 3, 3, 2, {1, 0, 2, 1}, {2, 1}},  // unequal everything
      {1, 2, 3, 5, 5, 1, 1, 3, {2, 0, 1, 0}, {0, 2}},  // stride 1 on one axis
      {2, 2, 3, 3, 4, 4, 2, 2, {1, 1, 1, 1}, {0, 0}},  // 4x4 stride 2 pad 1 (GAN-style)
  };
  for (const Case& k : cases) {
    const int64_t oh = k.sh * (k.h - 1) + k.out_pad[0] + k.kh - k.pads[0] - k.pads[2];
    const int64_t ow = k.sw * (k.w - 1) + k.out_pad[1] + k.kw - k.pads[1] - k.pads[3];
    const std::string where = "case c" + std::to_string(k.c) + " k" + std::to_string(k.kh) + "x" +
                              std::to_string(k.kw) + " s" + std::to_string(k.sh) + "x" +
                              std::to_string(k.sw);
    SCOPED_TRACE(where);
    ir::Graph ct = testing::Parse(
        "graph @ct(%x: f32" + Dims({1, k.c, k.h, k.w}) + ") {\n  %w: f32" +
        Dims({k.c, k.m, k.kh, k.kw}) + " = const splat(0.0)\n  %b: f32" + Dims({k.m}) +
        " = const splat(0.0)\n  %y: f32" + Dims({1, k.m, oh, ow}) +
        " = ConvTranspose(%x, %w, %b) {dilations = [1, 1], group = 1, output_padding = " +
        Ints({k.out_pad[0], k.out_pad[1]}) +
        ", pads = " + Ints({k.pads[0], k.pads[1], k.pads[2], k.pads[3]}) +
        ", strides = " + Ints({k.sh, k.sw}) + "}\n  return %y\n}\n");
    ASSERT_EQ(ct.nodes().size(), 1u);
    Named(ct, "w")->constant = testing::RandomF32({k.c, k.m, k.kh, k.kw}, 3);
    Named(ct, "b")->constant = testing::RandomF32({k.m}, 4);
    passes::ZeroInsertConv z;
    ASSERT_EQ(passes::ConvTransposeAsConv(ct, *ct.nodes()[0], &z), "");
    EXPECT_EQ(z.stride_h, k.sh);
    EXPECT_EQ(z.stride_w, k.sw);

    const ir::Tensor x = testing::RandomF32({1, k.c, k.h, k.w}, 5);
    std::vector<ir::Tensor> want;
    ASSERT_TRUE(interp::Run(ct, std::vector<ir::Tensor>{x}, &want).ok());

    // The zero-inserted input and the convolution the rewrite emits, in float.
    const int64_t zh = k.h * k.sh, zw = k.w * k.sw;
    ir::Tensor zx;
    ASSERT_TRUE(ir::Tensor::Create(DType::kF32, {1, k.c, zh, zw}, &zx).ok());
    for (int64_t i = 0; i < zx.num_elements(); ++i) zx.mutable_data<float>()[i] = 0.0f;
    for (int64_t c = 0; c < k.c; ++c)
      for (int64_t y = 0; y < k.h; ++y)
        for (int64_t xx = 0; xx < k.w; ++xx) {
          zx.mutable_data<float>()[(c * zh + y * k.sh) * zw + xx * k.sw] =
              x.data<float>()[(c * k.h + y) * k.w + xx];
        }
    ir::Graph conv =
        testing::Parse("graph @conv(%z: f32" + Dims({1, k.c, zh, zw}) + ") {\n  %w: f32" +
                       Dims({z.o, z.c, z.kh, z.kw}) + " = const splat(0.0)\n  %b: f32" +
                       Dims({k.m}) + " = const splat(0.0)\n  %y: f32" + Dims({1, k.m, oh, ow}) +
                       " = Conv(%z, %w, %b) {dilations = [1, 1], group = 1, pads = " +
                       Ints({z.pads[0], z.pads[1], z.pads[2], z.pads[3]}) +
                       ", strides = [1, 1]}\n  return %y\n}\n");
    ASSERT_EQ(conv.nodes().size(), 1u);
    Named(conv, "w")->constant =
        ir::Tensor::FromVector<float>(DType::kF32, {z.o, z.c, z.kh, z.kw}, z.weights);
    Named(conv, "b")->constant = *Named(ct, "b")->constant;
    std::vector<ir::Tensor> got;
    ASSERT_TRUE(interp::Run(conv, std::vector<ir::Tensor>{zx}, &got).ok());
    EXPECT_TRUE(testing::AllClose(got, want, 1e-5, 1e-5));
  }
}

// What keeps a ConvTranspose float reaches the offload table.
TEST(ConvTransposeAsConv, RefusalsNameTheReason) {
  ir::Graph g = testing::Parse(R"(graph @g(%x: f32[1,4,3,3], %v: f32[1,4,3]) {
  %w: f32[4,2,2,2] = const splat(0.1)
  %w1: f32[4,2,2] = const splat(0.1)
  %a: f32[1,4,6,6] = ConvTranspose(%x, %w) {dilations = [1, 1], group = 2, output_padding = [0, 0], pads = [0, 0, 0, 0], strides = [2, 2]}
  %b: f32[1,2,8,8] = ConvTranspose(%x, %w) {dilations = [3, 3], group = 1, output_padding = [0, 0], pads = [0, 0, 0, 0], strides = [2, 2]}
  %c: f32[1,2,2,2] = ConvTranspose(%x, %w) {dilations = [1, 1], group = 1, output_padding = [0, 0], pads = [2, 2, 2, 2], strides = [2, 2]}
  %d: f32[1,2,6] = ConvTranspose(%v, %w1) {dilations = [1], group = 1, output_padding = [0], pads = [0, 0], strides = [2]}
  %e: f32[1,2,6,6] = ConvTranspose(%x, %w) {dilations = [1, 1], group = 1, output_padding = [0, 0], pads = [0, 0, 0, 0], strides = [2, 2]}
  return %a, %b, %c, %d, %e
})");
  HwConfig config;
  partition::PartitionReport r;
  ASSERT_TRUE(partition::PartitionGraph(g, config, &r).ok());
  ASSERT_EQ(r.nodes.size(), 5u);
  const char* want[] = {"group 2", "dilation 3", "pads [2, 2] on axis 2", "1-D ConvTranspose",
                        "no int8 kernel for ConvTranspose"};
  for (size_t i = 0; i < 5; ++i) {
    EXPECT_EQ(r.nodes[i].target, "cpu");
    EXPECT_NE(r.nodes[i].reason.find(want[i]), std::string::npos) << r.nodes[i].reason;
  }
  // Each input element meets M x KH x KW weights: 36 inputs x 2 x 2 x 2 (group 2: 36 x 8 too).
  EXPECT_EQ(r.nodes[4].macs, 36 * 8);
  EXPECT_EQ(r.nodes[3].macs, 12 * 4);
}

}  // namespace
}  // namespace loom
