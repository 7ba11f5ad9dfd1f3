// first-layer-packing: moves a convolution's window into the channel dimension when its
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
// Width im2col of the packed input: the KW' column taps move into the channels too, leaving a
// KH' x 1 kernel over KW'*s*s*C channels, which fill whole blocks where s*s*C does not (conv1:
// 12 -> 48 channels, 3 blocks, 4x1: 12 GEMM steps per output vector instead of 16):
//
//   T = Reshape(Concat_kx'(Pad(S5, width pads l' - kx', r' - (KW' - 1 - kx'))), axis 1)
//       S5 = S as [N, 1, s*s*C, H/s, W/s]; channel kx' * s*s*C + ch holds S's channel ch shifted
//       left by kx' - l' columns; W''[o][kx' * s*s*C + ch][a][0] = W'[o][ch][a][kx']
//
// Row folding of the im2col: where KH' x 1 over KW'*s*s*C channels still leaves a block partly
// empty, f row taps can move into the channels as well: the kernel rows are padded with zero rows
// to KH'' * f (KH'' = ceil(KH' / f)), and channel group (m, kx') holds the image shifted up by
// m * KH'' rows, so tap j of the KH'' x 1 kernel reads original kernel row j + m * KH''. The host
// then writes the height padding as well (each group is cropped and padded differently; the
// packed conv has no pads). ResNet's conv1 on 1x32x32: f = 2, 2x1 over 96 channels, 3 full
// blocks, 6 GEMM steps per output vector instead of 8; VGG's features.0: f = 3, 1x1 over 27
// channels (2 steps on 1x16x16 instead of 3, 1 on 1x32x32). The pass takes the f with the fewest
// steps, the smallest on a tie (the host's copy grows with f). Off by default (`fold`,
// `--first-layer-fold`): the folded input has f times the bytes for the host to write.
//
// At stride 1 there is no space-to-depth (S = x, KH' = KH, KW' = KW): the im2col alone turns
// VGG's 3x3 features.0 over 3 channels into 3x1 over 9 channels, 3 GEMM steps per output vector
// instead of 9. It runs there only on a graph input with fewer channels than a block: the host
// writes KW copies of the image, which costs nothing extra only where the image is on the host
// already (its quantize), not for an interior layer the accelerator produces.
//
// The width padding is then the host's (zeros, which quantize to 0 as the DMA's do; a negative
// pad crops); the height padding stays the DMA's. The concatenation runs on rank-5 values so the
// quantizer leaves it (and the pads) float, on the CPU beside the space-to-depth.
//
// Runs only where it shrinks the GEMM work: ceil(s*s*C / block) * KH' * KW' < ceil(C / block) *
// KH * KW for the config's channel block `block` (0 turns the pass off); the im2col form where
// ceil(KW'*s*s*C / block) * KH' is less again (`im2col`, on by default). The host's copies are
// not counted: the packed input is small (conv1: 48 x 112 x 112 bytes) against the layer's GEMM.
//
// After quantization, QuantizePackedInputs moves the input's q.quantize ahead of the rearrangement
// (quantizing commutes with moving values and with zero pads when the zero point is 0), so the
// host copies int8 bytes, not floats: a quarter of the bytes, and a quantize of the source's
// elements instead of the im2col's four times as many.
//
// Requires: shapes inferred; the convolution 2-D, group 1, dilations 1, equal strides s dividing
// H and W (s = 1: the im2col on, a graph input, C < block), constant float weights (and bias), a
// non-constant input, and packed pads below the packed kernel (what q.conv2d accepts). Others stay.
#include <algorithm>
#include <map>
#include <optional>
#include <set>

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

// The packed layer's form, by GEMM steps per output vector.
enum class Form { kNone, kSpaceToDepth, kWidthIm2col };

// The row fold f (1: none; at most `max_fold`) with the fewest GEMM steps
// ceil(f * channels / block) * ceil(kh / f), the smallest f on a tie; `*steps` gets its count.
int64_t BestFold(int64_t channels, int64_t kh, int64_t max_fold, int64_t block, int64_t* steps) {
  int64_t best = 1;
  *steps = CeilDiv(channels, block) * kh;
  for (int64_t f = 2; f <= std::min(kh, max_fold); ++f) {
    const int64_t st = CeilDiv(f * channels, block) * CeilDiv(kh, f);
    if (st < *steps) best = f, *steps = st;
  }
  return best;
}

Form Packable(const ir::Graph& g, const ir::Node& n, int64_t block, bool im2col, bool fold_rows,
              Axis* ay, Axis* ax, int64_t* fold) {
  *fold = 1;
  if (n.op != "Conv" || block <= 0 || n.GetInt("group", 1) != 1) return Form::kNone;
  const ir::Tensor* w = ConstantInput(g, n, 1);
  if (w == nullptr || w->dtype() != DType::kF32 || w->shape().size() != 4) return Form::kNone;
  if (n.has_input(2) && ConstantInput(g, n, 2) == nullptr) return Form::kNone;
  const ir::Value& x = g.value(n.input(0));
  const ir::Value& y = g.value(n.outputs[0]);
  if (x.is_constant() || x.dtype != DType::kF32 || x.shape.size() != 4 || y.shape.size() != 4) {
    return Form::kNone;
  }
  for (int64_t d : n.GetInts("dilations")) {
    if (d != 1) return Form::kNone;
  }
  const std::vector<int64_t> st = n.GetInts("strides"), pads = n.GetInts("pads");
  if (st.size() != 2 || st[0] != st[1] || st[0] < 1 || pads.size() != 4) return Form::kNone;
  const int64_t s = st[0], c = x.shape[1], kh = w->shape()[2], kw = w->shape()[3];
  // At stride 1 only the im2col can help, and its host copy is KW images: only a graph input
  // (already on the host for its quantize) under a partly filled block.
  if (s == 1 && (!im2col || c >= block || !g.IsGraphInput(n.input(0)))) return Form::kNone;
  if (x.shape[2] % s != 0 || x.shape[3] % s != 0) return Form::kNone;
  if (!PackAxis(x.shape[2], y.shape[2], kh, s, pads[0], ay) ||
      !PackAxis(x.shape[3], y.shape[3], kw, s, pads[1], ax)) {
    return Form::kNone;
  }
  const int64_t before = CeilDiv(c, block) * kh * kw;
  const int64_t s2d = CeilDiv(s * s * c, block) * ay->kernel * ax->kernel;
  int64_t cols = 0;
  const int64_t f =
      BestFold(ax->kernel * s * s * c, ay->kernel, fold_rows ? ay->kernel : 1, block, &cols);
  if (im2col && cols < s2d && cols < before) {
    *fold = f;
    return Form::kWidthIm2col;
  }
  return s2d < before ? Form::kSpaceToDepth : Form::kNone;
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

// W''[o][(m * KW' + kx') * C' + ch][j][0] = W'[o][ch][j + m * KH''][kx'] for W' [O, C', KH', KW']
// folded by f rows (KH'' = ceil(KH' / f); zero past KH'). f = 1 is the width im2col alone.
ir::Tensor WidenWeights(const ir::Tensor& w, int64_t f) {
  const int64_t o = w.shape()[0], c = w.shape()[1], kh = w.shape()[2], kw = w.shape()[3];
  const int64_t kf = CeilDiv(kh, f);
  std::vector<float> out(static_cast<size_t>(o * f * kw * c * kf), 0.0f);
  const float* in = w.data<float>();
  for (int64_t oi = 0; oi < o; ++oi) {
    for (int64_t m = 0; m < f; ++m) {
      for (int64_t tap = 0; tap < kw; ++tap) {
        for (int64_t ci = 0; ci < c; ++ci) {
          for (int64_t j = 0; j < kf && j + m * kf < kh; ++j) {
            out[static_cast<size_t>(((oi * f * kw + m * kw + tap) * c + ci) * kf + j)] =
                in[((oi * c + ci) * kh + j + m * kf) * kw + tap];
          }
        }
      }
    }
  }
  return ir::Tensor::FromVector<float>(DType::kF32, {o, f * kw * c, kf, 1}, out);
}

void Pack(ir::Graph& g, ir::Node& n, Form form, const Axis& ay, const Axis& ax, int64_t fold,
          std::vector<PackedValue>* moved) {
  const ir::ValueId x = n.input(0);
  const ir::Shape xs = g.value(x).shape;
  const ir::Tensor w = *ConstantInput(g, n, 1);  // a copy: adding values may move constants
  const int64_t s = n.GetInts("strides")[0];
  const int64_t N = xs[0], C = xs[1], hs = xs[2] / s, ws = xs[3] / s, pc = s * s * C;
  const int64_t oh = g.value(n.outputs[0]).shape[2], ow = g.value(n.outputs[0]).shape[3];
  // The packed convolution multiplies the zero taps its packing adds; reports count the source
  // layer's MACs (N x O x OH x OW x C x KH x KW, group 1), which the quantizer and the lowering
  // carry on as `source_macs`.
  n.SetAttr("source_macs",
            ir::Attribute::Int(N * w.shape()[0] * oh * ow * C * w.shape()[2] * w.shape()[3]));
  // Stride 1 has no space-to-depth: the im2col reads x itself.
  const std::string w_name = g.value(n.input(1)).name() + (s == 1 ? ".im2col" : ".s2d");
  const std::string base = g.value(x).name() + (s == 1 ? "" : ".s2d");
  auto step = [&](const char* op, std::vector<ir::ValueId> ins, const std::string& name,
                  ir::Shape shape, ir::AttributeMap attrs) {
    const ir::ValueId v = g.AddValue(name, DType::kF32, std::move(shape));
    g.AddNode(op, std::move(ins), {v}, std::move(attrs), "", &n);
    moved->push_back({v, x});
    return v;
  };
  auto reshape = [&](ir::ValueId in, const std::string& name, const ir::Shape& shape) {
    return step("Reshape", {in}, name, shape, {{"shape", ir::Attribute::Ints(shape)}});
  };
  ir::ValueId moved_axes = x;
  if (s > 1) {
    const ir::ValueId split = reshape(x, base + ".split", {N, C, hs, s, ws, s});
    moved_axes = step("Transpose", {split}, base + ".perm", {N, s, s, C, hs, ws},
                      {{"perm", ir::Attribute::Ints({0, 3, 5, 1, 2, 4})}});
  }
  ir::Tensor packed_w = PackWeights(w, s, ay, ax);
  if (form == Form::kSpaceToDepth) {
    n.inputs[0] = reshape(moved_axes, base, {N, pc, hs, ws});
    n.SetAttr("pads", ir::Attribute::Ints({ay.before, ax.before, ay.after, ax.after}));
  } else {
    // Rank 5 until the end: the quantizer takes rank-4 concatenations for q.concat. Folded, each
    // group (m, kx') is the image moved up by m * KH'' rows and left by kx' - l' columns, its
    // height padding the host's (cropped or padded to the OH + KH'' - 1 rows the conv reads).
    const ir::ValueId s5 = reshape(moved_axes, base + ".5d", {N, 1, pc, hs, ws});
    const int64_t kf = CeilDiv(ay.kernel, fold), rows = fold == 1 ? hs : oh + kf - 1;
    std::vector<ir::ValueId> taps;
    for (int64_t m = 0; m < fold; ++m) {
      const int64_t top = fold == 1 ? 0 : ay.before - m * kf, bottom = rows - hs - top;
      for (int64_t tap = 0; tap < ax.kernel; ++tap) {
        const int64_t left = ax.before - tap, right = ax.after - (ax.kernel - 1 - tap);
        const std::string name =
            base + ".col" + std::to_string(tap) + (m ? ".row" + std::to_string(m * kf) : "");
        taps.push_back(
            step("Pad", {s5}, name, {N, 1, pc, rows, ow},
                 {{"mode", ir::Attribute::String("constant")},
                  {"pads", ir::Attribute::Ints({0, 0, 0, top, left, 0, 0, 0, bottom, right})},
                  {"value", ir::Attribute::Float(0.0f)}}));
      }
    }
    const int64_t groups = fold * ax.kernel;
    const ir::ValueId cols = step("Concat", taps, base + ".cols", {N, groups, pc, rows, ow},
                                  {{"axis", ir::Attribute::Int(1)}});
    n.inputs[0] = reshape(cols, base + ".im2col", {N, groups * pc, rows, ow});
    n.SetAttr("pads", fold == 1 ? ir::Attribute::Ints({ay.before, 0, ay.after, 0})
                                : ir::Attribute::Ints({0, 0, 0, 0}));
    packed_w = WidenWeights(packed_w, fold);
  }
  const int64_t kh = packed_w.shape()[2], kw = packed_w.shape()[3];
  n.inputs[1] = g.AddConstant(w_name, std::move(packed_w));
  n.SetAttr("strides", ir::Attribute::Ints({1, 1}));
  n.SetAttr("dilations", ir::Attribute::Ints({1, 1}));
  if (n.FindAttr("kernel_shape")) {
    n.SetAttr("kernel_shape", ir::Attribute::Ints({kh, kw}));
  }
}

}  // namespace

Status PackFirstLayers(ir::Graph& g, int64_t block, std::vector<PackedValue>* moved,
                       const std::set<std::string>* skip, std::vector<std::string>* packed,
                       bool im2col, bool fold_rows, const std::set<std::string>* fold_only) {
  const std::vector<ir::Node*> snapshot = g.nodes();
  for (ir::Node* n : snapshot) {
    Axis ay, ax;
    int64_t fold = 1;
    Form form = Packable(g, *n, block, im2col, fold_rows, &ay, &ax, &fold);
    if (form == Form::kNone) continue;
    // An unnamed node goes by its output's name (ONNX requires those), so the knob has a key.
    const std::string name = n->name.empty() ? g.value(n->outputs[0]).name() : n->name;
    if (skip && skip->count(name)) continue;
    if (!fold_rows && fold_only && fold_only->count(name)) {
      form = Packable(g, *n, block, im2col, /*fold_rows=*/true, &ay, &ax, &fold);
    }
    Pack(g, *n, form, ay, ax, fold, moved);
    if (packed) packed->push_back(name);
  }
  return Status::Ok();
}

Status QuantizePackedInputs(ir::Graph& g, const std::vector<PackedValue>& moved) {
  static const std::set<std::string> kLayout = {"Reshape", "Transpose", "Pad", "Concat"};
  std::map<ir::ValueId, ir::ValueId> source;
  for (const PackedValue& m : moved) source[m.value] = m.source;
  bool changed = false;
  for (ir::Node* q : std::vector<ir::Node*>(g.nodes())) {
    if (q->erased() || q->op != "q.quantize" || !source.count(q->input(0))) continue;
    const ir::ValueId x = source[q->input(0)], fq = q->outputs[0];
    const std::optional<ir::QuantParams> qp = g.value(fq).quant;
    if (!qp || qp->per_axis() || qp->zero_points.size() != 1 || qp->zero_points[0] != 0) continue;
    // Every value moved from x, each made by a layout op and read only by another or by q.
    std::vector<ir::ValueId> chain;
    for (const PackedValue& m : moved) {
      if (m.source == x) chain.push_back(m.value);
    }
    std::set<const ir::Node*> producers = {q};
    for (ir::ValueId v : chain) producers.insert(g.Producer(v));
    bool movable = true;
    for (ir::ValueId v : chain) {
      const ir::Node* p = g.Producer(v);
      movable &= p != nullptr && kLayout.count(p->op) && !g.IsGraphOutput(v) &&
                 (p->op != "Pad" || p->GetFloat("value", 0.0f) == 0.0f);
      for (const ir::Use& u : g.Uses(v)) movable &= producers.count(u.node) > 0;
    }
    if (!movable) continue;
    const ir::ValueId xq = g.AddValue(g.value(x).name() + ".q", DType::kI8, g.value(x).shape);
    g.value(xq).quant = qp;
    g.AddNode("q.quantize", {x}, {xq}, {}, "", g.Producer(chain.front()));
    for (ir::ValueId v : chain) {
      for (ir::ValueId& in : g.Producer(v)->inputs) in = in == x ? xq : in;
      g.value(v).dtype = DType::kI8;
      g.value(v).quant = qp;
    }
    // q's int8 result is now a relayout of the packed bytes (graph-pack blocks the conv's input).
    q->op = "q.relayout";
    changed = true;
  }
  if (!changed) return Status::Ok();
  g.RemoveDeadValues();
  return g.TopologicalSort();
}

Status FirstLayerPacking(ir::Graph& g, const PassOptions& options) {
  int64_t block = 0;
  int64_t im2col = 1, fold = 0;
  LOOM_RETURN_IF_ERROR(IntOption(options, "block", 16, &block));
  LOOM_RETURN_IF_ERROR(IntOption(options, "im2col", 1, &im2col));
  LOOM_RETURN_IF_ERROR(IntOption(options, "fold", 0, &fold));
  std::vector<PackedValue> moved;
  return PackFirstLayers(g, block, &moved, nullptr, nullptr, im2col != 0, fold != 0);
}

}  // namespace loom::passes
