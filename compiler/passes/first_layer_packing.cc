// first-layer-packing: moves a strided convolution's window into the channel dimension when its
// input channels fill only a small part of the accelerator's channel block (ResNet-18's 7x7/2
// conv1 over 3 channels uses 3 of 16 lanes). Space-to-depth by the stride s:
//
//   Conv(x[N,C,H,W], W[O,C,KH,KW], B?) {strides s,s; pads t,l,b,r}
//     =>  Conv(S, W'[O, s*s*C, KH', KW'], B?) {strides 1,1; pads t',l',b',r'}
//         S = Reshape(Transpose(Reshape(x)))   (SpaceToDepth, DCR order: channel (by*s + bx)*C + c
//                                               holds row offset by, column offset bx of channel c)
//
// The padding stays the convolution's (the DMA supplies it; no padded copy exists): the kernel
// is shifted down by dy = (s - t % s) % s rows (right by dx columns) so the top padding t + dy is
// a whole number t' of packed rows, KH' = ceil((KH + dy) / s), and
// W'[o][(by*s+bx)*C + c][a][a2] = W[o][c][a*s+by-dy][a2*s+bx-dx] (0 outside the kernel); b' pads
// the packed image to the output's OH + KH' - 1 rows. The sums are the same products, so after
// quantization (which gives the moved values the source's range, PackedValue) the int8 results
// are those of the unpacked layer.
//
// Runs only where it shrinks the GEMM work: ceil(s*s*C / block) * KH' * KW' < ceil(C / block) *
// KH * KW for the config's channel block `block` (0 turns the pass off).
//
// Requires: shapes inferred; the convolution 2-D, group 1, dilations 1, equal strides s >= 2
// dividing H and W, constant float weights (and bias), a non-constant input, and packed pads
// below the packed kernel (what q.conv2d accepts). Others stay.
#include "compiler/passes/pass.h"
#include "compiler/passes/rewrite_util.h"

namespace loom::passes {
namespace {

int64_t CeilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

// The packed convolution's geometry along one axis.
struct Axis {
  int64_t shift = 0;              // kernel offset (dy or dx)
  int64_t kernel = 0;             // KH'
  int64_t before = 0, after = 0;  // packed pads
};

// False when the packed pads would be negative or reach the packed kernel.
bool PackAxis(int64_t in, int64_t out, int64_t k, int64_t s, int64_t pad_before, Axis* a) {
  a->shift = (s - pad_before % s) % s;
  a->kernel = CeilDiv(k + a->shift, s);
  a->before = (pad_before + a->shift) / s;
  a->after = out + a->kernel - 1 - a->before - in / s;
  return a->after >= 0 && a->after < a->kernel && a->before < a->kernel;
}

bool Packable(const ir::Graph& g, const ir::Node& n, int64_t block, Axis* ay, Axis* ax) {
  if (n.op != "Conv" || block <= 0 || n.GetInt("group", 1) != 1) return false;
  const ir::Tensor* w = ConstantInput(g, n, 1);
  if (w == nullptr || w->dtype() != DType::kF32 || w->shape().size() != 4) return false;
  if (n.has_input(2) && ConstantInput(g, n, 2) == nullptr) return false;
  const ir::Value& x = g.value(n.input(0));
  const ir::Value& y = g.value(n.outputs[0]);
  if (x.is_constant() || x.dtype != DType::kF32 || x.shape.size() != 4 || y.shape.size() != 4) {
    return false;
  }
  for (int64_t d : n.GetInts("dilations")) {
    if (d != 1) return false;
  }
  const std::vector<int64_t> st = n.GetInts("strides"), pads = n.GetInts("pads");
  if (st.size() != 2 || st[0] != st[1] || st[0] < 2 || pads.size() != 4) return false;
  const int64_t s = st[0], c = x.shape[1], kh = w->shape()[2], kw = w->shape()[3];
  if (x.shape[2] % s != 0 || x.shape[3] % s != 0) return false;
  if (!PackAxis(x.shape[2], y.shape[2], kh, s, pads[0], ay) ||
      !PackAxis(x.shape[3], y.shape[3], kw, s, pads[1], ax)) {
    return false;
  }
  const int64_t before = CeilDiv(c, block) * kh * kw;
  const int64_t after = CeilDiv(s * s * c, block) * ay->kernel * ax->kernel;
  return after < before;
}

// W'[o][(by*s+bx)*C + c][a][a2] = W[o][c][a*s+by-dy][a2*s+bx-dx].
ir::Tensor PackWeights(const ir::Tensor& w, int64_t s, const Axis& ay, const Axis& ax) {
  const int64_t o = w.shape()[0], c = w.shape()[1], kh = w.shape()[2], kw = w.shape()[3];
  const int64_t ph = ay.kernel, pw = ax.kernel, pc = s * s * c;
  std::vector<float> out(static_cast<size_t>(o * pc * ph * pw), 0.0f);
  const float* in = w.data<float>();
  for (int64_t oi = 0; oi < o; ++oi) {
    for (int64_t ci = 0; ci < c; ++ci) {
      for (int64_t ky = 0; ky < kh; ++ky) {
        for (int64_t kx = 0; kx < kw; ++kx) {
          const int64_t sy = ky + ay.shift, sx = kx + ax.shift;
          const int64_t ch = ((sy % s) * s + sx % s) * c + ci;
          out[static_cast<size_t>(((oi * pc + ch) * ph + sy / s) * pw + sx / s)] =
              in[((oi * c + ci) * kh + ky) * kw + kx];
        }
      }
    }
  }
  return ir::Tensor::FromVector<float>(DType::kF32, {o, pc, ph, pw}, out);
}

void Pack(ir::Graph& g, ir::Node& n, const Axis& ay, const Axis& ax,
          std::vector<PackedValue>* moved) {
  const ir::ValueId x = n.input(0);
  const ir::Shape xs = g.value(x).shape;
  const ir::Tensor w = *ConstantInput(g, n, 1);  // a copy: adding values may move constants
  const std::string w_name = g.value(n.input(1)).name() + ".s2d";
  const int64_t s = n.GetInts("strides")[0];
  const int64_t N = xs[0], C = xs[1], hs = xs[2] / s, ws = xs[3] / s;
  const std::string base = g.value(x).name() + ".s2d";
  auto step = [&](const char* op, ir::ValueId in, const std::string& name, ir::Shape shape,
                  ir::AttributeMap attrs) {
    const ir::ValueId v = g.AddValue(name, DType::kF32, std::move(shape));
    g.AddNode(op, {in}, {v}, std::move(attrs), "", &n);
    moved->push_back({v, x});
    return v;
  };
  const ir::ValueId split = step("Reshape", x, base + ".split", {N, C, hs, s, ws, s},
                                 {{"shape", ir::Attribute::Ints({N, C, hs, s, ws, s})}});
  const ir::ValueId moved_axes = step("Transpose", split, base + ".perm", {N, s, s, C, hs, ws},
                                      {{"perm", ir::Attribute::Ints({0, 3, 5, 1, 2, 4})}});
  const ir::ValueId packed = step("Reshape", moved_axes, base, {N, s * s * C, hs, ws},
                                  {{"shape", ir::Attribute::Ints({N, s * s * C, hs, ws})}});
  n.inputs[0] = packed;
  n.inputs[1] = g.AddConstant(w_name, PackWeights(w, s, ay, ax));
  n.SetAttr("strides", ir::Attribute::Ints({1, 1}));
  n.SetAttr("pads", ir::Attribute::Ints({ay.before, ax.before, ay.after, ax.after}));
  n.SetAttr("dilations", ir::Attribute::Ints({1, 1}));
  if (n.FindAttr("kernel_shape")) {
    n.SetAttr("kernel_shape", ir::Attribute::Ints({ay.kernel, ax.kernel}));
  }
}

}  // namespace

Status PackFirstLayers(ir::Graph& g, int64_t block, std::vector<PackedValue>* moved,
                       const std::set<std::string>* skip, std::vector<std::string>* packed) {
  const std::vector<ir::Node*> snapshot = g.nodes();
  for (ir::Node* n : snapshot) {
    Axis ay, ax;
    if (!Packable(g, *n, block, &ay, &ax)) continue;
    // An unnamed node goes by its output's name (ONNX requires those), so the knob has a key.
    const std::string name = n->name.empty() ? g.value(n->outputs[0]).name() : n->name;
    if (skip && skip->count(name)) continue;
    Pack(g, *n, ay, ax, moved);
    if (packed) packed->push_back(name);
  }
  return Status::Ok();
}

Status FirstLayerPacking(ir::Graph& g, const PassOptions& options) {
  int64_t block = 0;
  LOOM_RETURN_IF_ERROR(IntOption(options, "block", 16, &block));
  std::vector<PackedValue> moved;
  return PackFirstLayers(g, block, &moved);
}

}  // namespace loom::passes
