#include "compiler/passes/conv_transpose_as_conv.h"

#include "compiler/passes/rewrite_util.h"

namespace loom::passes {

std::string ConvTransposeAsConv(const ir::Graph& g, const ir::Node& n, ZeroInsertConv* out) {
  if (n.op != "ConvTranspose" || n.inputs.size() < 2) return "not a ConvTranspose";
  const ir::Shape& xs = g.value(n.input(0)).shape;
  const ir::Tensor* w = ConstantInput(g, n, 1);
  if (xs.size() != 4) {
    return std::to_string(xs.size() - 2) +
           "-D ConvTranspose: only 2-D runs as zero insertion + conv";
  }
  if (w == nullptr || w->dtype() != DType::kF32 || w->shape().size() != 4) {
    return "ConvTranspose weights are not a 4-D float constant";
  }
  if (n.input(2) != ir::kNoValue && ConstantInput(g, n, 2) == nullptr) {
    return "ConvTranspose bias is not a constant";
  }
  if (const int64_t group = n.GetInt("group", 1); group != 1) {
    return "ConvTranspose group " + std::to_string(group) +
           ": zero insertion + conv handles group 1 only";
  }
  for (int64_t d : n.GetInts("dilations")) {
    if (d != 1) return "ConvTranspose dilation " + std::to_string(d) + ": needs dilations 1";
  }
  const std::vector<int64_t> s = n.GetInts("strides"), p = n.GetInts("pads"),
                             op = n.GetInts("output_padding");
  const ir::Shape& ws = w->shape();  // [C, M, KH, KW]
  if (s.size() != 2 || p.size() != 4 || op.size() != 2) return "ConvTranspose attributes malformed";
  ZeroInsertConv z;
  z.stride_h = s[0];
  z.stride_w = s[1];
  z.c = ws[0];
  z.o = ws[1];
  z.kh = ws[2];
  z.kw = ws[3];
  const int64_t k[2] = {z.kh, z.kw};
  z.pads.assign(4, 0);
  for (size_t a = 0; a < 2; ++a) {
    z.pads[a] = k[a] - 1 - p[a];
    z.pads[a + 2] = k[a] - 1 - p[a + 2] + op[a] - (s[a] - 1);
    if (z.pads[a] < 0 || z.pads[a + 2] < 0) {
      return "ConvTranspose pads [" + std::to_string(p[a]) + ", " + std::to_string(p[a + 2]) +
             "] on axis " + std::to_string(a + 2) + " (kernel " + std::to_string(k[a]) +
             ", stride " + std::to_string(s[a]) + ", output_padding " + std::to_string(op[a]) +
             ") crop the zero-inserted input: conv pads " + std::to_string(z.pads[a]) + ", " +
             std::to_string(z.pads[a + 2]) + " would be negative";
    }
  }
  if (out == nullptr) return "";
  const float* src = w->data<float>();
  z.weights.resize(static_cast<size_t>(z.o * z.c * z.kh * z.kw));
  for (int64_t m = 0; m < z.o; ++m)
    for (int64_t c = 0; c < z.c; ++c)
      for (int64_t y = 0; y < z.kh; ++y)
        for (int64_t x = 0; x < z.kw; ++x) {
          z.weights[static_cast<size_t>(((m * z.c + c) * z.kh + y) * z.kw + x)] =
              src[((c * z.o + m) * z.kh + (z.kh - 1 - y)) * z.kw + (z.kw - 1 - x)];
        }
  *out = std::move(z);
  return "";
}

}  // namespace loom::passes
