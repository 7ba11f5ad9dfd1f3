// batchnorm-folding: folds an inference BatchNormalization into the linear op that feeds it.
// With a = scale / sqrt(var + epsilon) and shift = bias - mean * a per channel, BN(y) = y * a +
// shift, and y * a is the producer with its weights' output channels scaled:
//
//   Conv(x, W, B?) -> BN                =>  Conv(x, W * a[m], B * a + shift)
//   Gemm(A, B, C?) -> BN                =>  Gemm(A, B * a[n], beta * C * a + shift) {beta = 1}
//   MatMul(A[M,K], B[K,N]) -> BN        =>  Add(MatMul(A, B * a[n]), shift)
//   Add(MatMul(A, B), C) -> BN          =>  Add(MatMul(A, B * a[n]), C * a + shift)
//   ConvTranspose(x, W, B?) -> BN       =>  ConvTranspose(x, W[:, m] * a[m], B * a + shift)
//                                           (group 1; W is [C, M, K...])
//
// Requires: the BN's statistics and the producer's weights (and bias, if any) are constants; the
// producer's output has the BN as its only reader and is not a graph output; no fused activation
// on the producer yet (run before fusion). A BN that matches nothing stays.
// The old weights become unused; dead-code-elimination drops them.
#include <cmath>

#include "compiler/passes/pass.h"
#include "compiler/passes/rewrite_util.h"

namespace loom::passes {
namespace {

// Per-channel a and shift of a BN node, from its constant inputs.
struct Affine {
  std::vector<float> a, shift;
};

bool AffineOf(const ir::Graph& g, const ir::Node& bn, Affine* out) {
  const ir::Tensor* p[4];
  for (size_t i = 0; i < 4; ++i) {
    p[i] = ConstantInput(g, bn, i + 1);
    if (p[i] == nullptr) return false;
  }
  const int64_t c = p[0]->num_elements();
  const float eps = bn.GetFloat("epsilon", 1e-5f);
  out->a.resize(static_cast<size_t>(c));
  out->shift.resize(static_cast<size_t>(c));
  for (int64_t i = 0; i < c; ++i) {
    const double a = p[0]->data<float>()[i] / std::sqrt(double{p[3]->data<float>()[i]} + eps);
    out->a[static_cast<size_t>(i)] = static_cast<float>(a);
    out->shift[static_cast<size_t>(i)] =
        static_cast<float>(p[1]->data<float>()[i] - p[2]->data<float>()[i] * a);
  }
  return true;
}

// t with each index along `axis` (of a row-major shape) multiplied by a[index].
ir::Tensor ScaleAlong(const ir::Tensor& t, size_t axis, const std::vector<float>& a) {
  ir::Tensor r = t;
  float* d = r.mutable_data<float>();
  int64_t inner = 1;
  for (size_t i = axis + 1; i < t.shape().size(); ++i) inner *= t.shape()[i];
  const int64_t dim = t.shape()[axis];
  for (int64_t i = 0; i < t.num_elements(); ++i) d[i] *= a[static_cast<size_t>((i / inner) % dim)];
  return r;
}

// c (broadcastable to [.., N], or absent) times a plus shift, over the last axis of length N.
// Keeps a leading M dimension only if c has one.
ir::Tensor BiasTimesAPlusShift(const ir::Tensor* c, float c_factor, const Affine& f) {
  const int64_t n = static_cast<int64_t>(f.a.size());
  const bool rows = c && c->shape().size() == 2 && c->shape()[0] > 1;
  const int64_t m = rows ? c->shape()[0] : 1;
  std::vector<float> out(static_cast<size_t>(m * n));
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < n; ++j) {
      float cv = 0.0f;
      if (c) {
        const auto& s = c->shape();
        // Read c as broadcast to [m, n]: size-1 or missing dims index 0.
        const int64_t cols = s.empty() ? 1 : s.back();
        const int64_t row = rows ? i : 0, col = cols == 1 ? 0 : j;
        cv = c->data<float>()[row * cols + col];
      }
      out[static_cast<size_t>(i * n + j)] =
          c_factor * cv * f.a[static_cast<size_t>(j)] + f.shift[static_cast<size_t>(j)];
    }
  }
  return ir::Tensor::FromVector<float>(DType::kF32, rows ? ir::Shape{m, n} : ir::Shape{n}, out);
}

// The node after n in the order, or nullptr if n is last.
const ir::Node* NextNode(const ir::Graph& g, const ir::Node& n) {
  const auto& order = g.nodes();
  for (size_t i = 0; i + 1 < order.size(); ++i) {
    if (order[i] == &n) return order[i + 1];
  }
  return nullptr;
}

// The BN disappears: its readers read `replacement` (which inherits the BN output's name).
void Retire(ir::Graph& g, ir::Node& bn, ir::ValueId replacement) {
  g.ReplaceAllUsesWith(bn.outputs[0], replacement);
  g.EraseNode(&bn);
}

using FoldFn = bool (*)(ir::Graph& g, ir::Node& producer, ir::Node& bn, const Affine& f);

bool FoldIntoConv(ir::Graph& g, ir::Node& conv, ir::Node& bn, const Affine& f) {
  const ir::Tensor* w = ConstantInput(g, conv, 1);
  const ir::Tensor* b = ConstantInput(g, conv, 2);
  if (!w || (conv.has_input(2) && !b) || w->shape()[0] != static_cast<int64_t>(f.a.size())) {
    return false;
  }
  const std::string base = g.value(conv.outputs[0]).name();
  conv.inputs[1] = g.AddConstant(base + ".bn_weight", ScaleAlong(*w, 0, f.a));
  const ir::Tensor bias = BiasTimesAPlusShift(b, 1.0f, f);
  if (conv.inputs.size() < 3) conv.inputs.resize(3, ir::kNoValue);
  conv.inputs[2] = g.AddConstant(base + ".bn_bias", bias);
  Retire(g, bn, conv.outputs[0]);
  return true;
}

// ConvTranspose's weights are [C, M/group, K...]: with group 1 the BN's channels run along axis 1.
bool FoldIntoConvTranspose(ir::Graph& g, ir::Node& ct, ir::Node& bn, const Affine& f) {
  const ir::Tensor* w = ConstantInput(g, ct, 1);
  const ir::Tensor* b = ConstantInput(g, ct, 2);
  if (!w || (ct.has_input(2) && !b) || ct.GetInt("group", 1) != 1 || w->shape().size() < 3 ||
      w->shape()[1] != static_cast<int64_t>(f.a.size())) {
    return false;
  }
  const std::string base = g.value(ct.outputs[0]).name();
  ct.inputs[1] = g.AddConstant(base + ".bn_weight", ScaleAlong(*w, 1, f.a));
  const ir::Tensor bias = BiasTimesAPlusShift(b, 1.0f, f);
  if (ct.inputs.size() < 3) ct.inputs.resize(3, ir::kNoValue);
  ct.inputs[2] = g.AddConstant(base + ".bn_bias", bias);
  Retire(g, bn, ct.outputs[0]);
  return true;
}

bool FoldIntoGemm(ir::Graph& g, ir::Node& gemm, ir::Node& bn, const Affine& f) {
  const ir::Tensor* w = ConstantInput(g, gemm, 1);
  const ir::Tensor* c = ConstantInput(g, gemm, 2);
  if (!w || (gemm.has_input(2) && !c)) return false;
  const bool trans_b = gemm.GetInt("transB", 0) != 0;
  const size_t n_axis = trans_b ? 0 : 1;
  if (w->shape()[n_axis] != static_cast<int64_t>(f.a.size())) return false;
  const float beta = gemm.GetFloat("beta", 1.0f);
  const std::string base = g.value(gemm.outputs[0]).name();
  gemm.inputs[1] = g.AddConstant(base + ".bn_weight", ScaleAlong(*w, n_axis, f.a));
  const ir::Tensor bias = BiasTimesAPlusShift(beta != 0.0f ? c : nullptr, beta, f);
  if (gemm.inputs.size() < 3) gemm.inputs.resize(3, ir::kNoValue);
  gemm.inputs[2] = g.AddConstant(base + ".bn_bias", bias);
  gemm.SetAttr("beta", ir::Attribute::Float(1.0f));
  Retire(g, bn, gemm.outputs[0]);
  return true;
}

bool FoldIntoMatMul(ir::Graph& g, ir::Node& mm, ir::Node& bn, const Affine& f) {
  const ir::Tensor* w = ConstantInput(g, mm, 1);
  if (!w || w->shape().size() != 2 || g.value(mm.inputs[0]).shape.size() != 2 ||
      w->shape()[1] != static_cast<int64_t>(f.a.size())) {
    return false;
  }
  const std::string base = g.value(mm.outputs[0]).name();
  mm.inputs[1] = g.AddConstant(base + ".bn_weight", ScaleAlong(*w, 1, f.a));
  const ir::ValueId shift = g.AddConstant(base + ".bn_bias", BiasTimesAPlusShift(nullptr, 0, f));
  // The Add takes over the BN's output value and its place in the order, so nothing needs
  // renaming or re-sorting.
  const ir::ValueId y = bn.outputs[0];
  const ir::Node* next = NextNode(g, bn);
  g.EraseNode(&bn);
  g.AddNode("Add", {mm.outputs[0], shift}, {y}, {}, bn.name.empty() ? "" : bn.name + ".bias", next);
  return true;
}

bool FoldIntoMatMulBias(ir::Graph& g, ir::Node& add, ir::Node& bn, const Affine& f) {
  // Which Add input is the MatMul and which the constant bias.
  for (size_t k = 0; k < 2; ++k) {
    ir::Node* mm = g.Producer(add.inputs[k]);
    const ir::Tensor* c = ConstantInput(g, add, 1 - k);
    if (!mm || mm->op != "MatMul" || !c || SoleUser(g, add.inputs[k]) != &add) continue;
    const ir::Tensor* w = ConstantInput(g, *mm, 1);
    const int64_t n = static_cast<int64_t>(f.a.size());
    const bool c_is_row = c->shape() == ir::Shape{n} || c->shape() == ir::Shape{1, n};
    if (!w || w->shape().size() != 2 || w->shape()[1] != n || !c_is_row ||
        g.value(mm->inputs[0]).shape.size() != 2) {
      continue;
    }
    const std::string base = g.value(add.outputs[0]).name();
    mm->inputs[1] = g.AddConstant(base + ".bn_weight", ScaleAlong(*w, 1, f.a));
    add.inputs[1 - k] = g.AddConstant(base + ".bn_bias", BiasTimesAPlusShift(c, 1.0f, f));
    Retire(g, bn, add.outputs[0]);
    return true;
  }
  return false;
}

struct FoldRule {
  const char* producer;
  FoldFn fold;
};

// The patterns of the header comment, in the same order.
const FoldRule kRules[] = {
    {"Conv", FoldIntoConv},       // Conv -> BN       =>  Conv with scaled W, new bias
    {"Gemm", FoldIntoGemm},       // Gemm -> BN       =>  Gemm with scaled B, new C
    {"MatMul", FoldIntoMatMul},   // MatMul -> BN     =>  MatMul with scaled B, then Add
    {"Add", FoldIntoMatMulBias},  // MatMul+Add -> BN =>  scaled B, new bias in the Add

    // ConvTranspose (group 1) -> BN  =>  ConvTranspose with W scaled along axis 1, new bias
    {"ConvTranspose", FoldIntoConvTranspose},
};

}  // namespace

Status BatchNormFolding(ir::Graph& g, const PassOptions&) {
  const std::vector<ir::Node*> snapshot = g.nodes();
  for (ir::Node* bn : snapshot) {
    if (bn->erased() || bn->op != "BatchNormalization") continue;
    ir::Node* producer = g.Producer(bn->inputs[0]);
    if (!producer || SoleUser(g, bn->inputs[0]) != bn || HasFusedActivation(*producer)) continue;
    Affine f;
    if (!AffineOf(g, *bn, &f)) continue;
    for (const FoldRule& rule : kRules) {
      if (producer->op == rule.producer && rule.fold(g, *producer, *bn, f)) break;
    }
  }
  return Status::Ok();
}

}  // namespace loom::passes
