// The quantizer's rewriter (quantize.h), shared by the files that hold its rules: quantize.cc
// (the value plumbing and the driver), rewrite_dense.cc (Conv, ConvTranspose, Gemm, MatMul ->
// q.conv2d) and rewrite_elementwise.cc (Add, Mul, pools, Concat, Resize). Internal to
// loom_quantize.
#ifndef LOOM_COMPILER_QUANTIZE_REWRITER_H_
#define LOOM_COMPILER_QUANTIZE_REWRITER_H_

#include <map>
#include <set>
#include <string>
#include <vector>

#include "compiler/ir/graph.h"
#include "compiler/quantize/quantize.h"

namespace loom::quantize::internal {

using ir::Attribute;
using ir::Node;
using ir::Shape;
using ir::ValueId;

class Rewriter {
 public:
  Rewriter(ir::Graph& g, const Ranges& ranges, QuantizeResult* res, const QuantizeOptions& options)
      : g_(g), ranges_(ranges), res_(res), options_(options) {}

  Status Run();

 private:
  using RewriteFn = Status (Rewriter::*)(Node& n, bool* done);
  Status RewriteConv(Node& n, bool* done);
  Status RewriteConvTranspose(Node& n, bool* done);
  Status RewriteGemm(Node& n, bool* done);
  Status RewriteMatMul(Node& n, bool* done);
  Status MatMulOverRows(Node& n, const std::vector<float>& w, int64_t o, int64_t k,
                        const std::vector<float>& bias, bool* done);
  Status RewriteAdd(Node& n, bool* done);
  Status RewriteMul(Node& n, bool* done);
  Status RewriteHardSwish(Node& n, bool* done);
  // q.mul of x by the gate g (x's shape or [N, C, 1, 1]); a HardSigmoid gate (alpha > 0) is read
  // through its input as the clamp of q.mul's b.
  Status EmitMul(Node& n, ValueId x, ValueId g, bool hard, double alpha, double beta, bool* done);
  Status RewriteMaxPool(Node& n, bool* done);
  Status RewriteAveragePool(Node& n, bool* done);
  Status RewriteGlobalAveragePool(Node& n, bool* done);
  Status RewriteConcat(Node& n, bool* done);
  Status RewriteResize(Node& n, bool* done);

  struct DenseLike {           // what q.conv2d needs, from Conv, Gemm or MatMul
    ValueId x = ir::kNoValue;  // f32 input (rank 4 or 2)
    std::vector<float> w;      // logical [O, C', KH, KW]
    int64_t o = 0, c = 0, kh = 1, kw = 1;
    std::vector<float> bias;  // empty: none
    const ir::QuantParams* w_hint = nullptr;
    bool depthwise = false;
    int64_t group = 1;  // q.conv2d's: C' = C / group
    std::vector<int64_t> strides{1, 1}, pads{0, 0, 0, 0};
  };
  Status EmitConv(Node& src, const DenseLike& d, bool* done);

  // An activation that q.* ops can read: f32, rank 4 (or 2 when allow_2d), not a constant.
  bool IsActivation(ValueId v, bool allow_2d = false) const;
  // Decides which float values are quantized asymmetrically (quantize.h), before any rewrite.
  void ChooseZeroPoints();
  float ScaleOf(ValueId f, bool* given) const;
  // f's zero point (0 unless ChooseZeroPoints picked it); its scale is ScaleOf's.
  int32_t ZeroPointOf(ValueId f) const;
  // The int8 twin of f32 `f`, inserting q.quantize before `before` when f is still float.
  ValueId Int8Of(ValueId f, const Node* before);
  // A new int8 output for the rewritten `src` that replaces f32 `f`, with f's zero point (or `zp`,
  // for ops that keep their input's scale and zero point).
  ValueId NewOutput(ValueId f, const Shape& shape, float scale);
  ValueId NewOutput(ValueId f, const Shape& shape, float scale, int32_t zp);
  // Scale and zero point of an int8 value.
  float QScale(ValueId q) const { return g_.value(q).quant->scales[0]; }
  int32_t QZero(ValueId q) const { return g_.value(q).quant->zero_points[0]; }
  ValueId Constant(const std::string& hint, ir::Tensor t) {
    return g_.AddConstant(hint, std::move(t));
  }
  ValueId Dequantized(ValueId f, const Node* before);
  // The fused activation's clamp in the output's int8 units (zero point z_y).
  void Clip(const Node& src, float s_y, int32_t z_y, int64_t* lo, int64_t* hi) const;
  LayerInfo& NewLayer(const Node& src, const char* op, ValueId f_out, float s_y, bool given);
  std::string Base(const Node& n) const {
    return n.name.empty() ? g_.value(n.outputs[0]).name() : n.name;
  }
  // Erases nodes none of whose outputs is read (only float ones when float_only), repeatedly.
  void SweepDeadNodes(bool float_only);
  // Splits a fused activation off a node that stays float.
  void UnfuseActivation(Node& n);

  ir::Graph& g_;
  const Ranges& ranges_;
  QuantizeResult* res_;
  std::map<ValueId, ValueId> twin_;
  std::map<ValueId, ValueId> dequantized_;
  std::set<ValueId> replaced_;
  // Values the rewrite adds (a reshaped copy) take the calibrated range of their source.
  std::map<ValueId, ValueId> range_of_;
  const QuantizeOptions& options_;
  // Float values quantized asymmetrically (ChooseZeroPoints).
  std::set<ValueId> asymmetric_;
};

inline bool Rank4(const Shape& s) { return s.size() == 4; }

}  // namespace loom::quantize::internal

#endif  // LOOM_COMPILER_QUANTIZE_REWRITER_H_
