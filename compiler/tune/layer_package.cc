#include "compiler/tune/layer_package.h"

#include "runtime/kernels/int8/qops.h"

namespace loom::tune {
namespace {

namespace q = kernels::q;
using package::TensorSpec;

uint64_t AlignUp(uint64_t v, uint64_t a) { return (v + a - 1) / a * a; }

// Bytes every tensor starts on: a multiple of every element size of the shipped configs.
constexpr uint64_t kAlign = 4096;

int32_t AddTensor(package::PackageSpec* spec, uint64_t* cursor, TensorSpec t, uint64_t bytes) {
  t.offset = AlignUp(*cursor, kAlign);
  t.size = bytes;
  *cursor = t.offset + bytes;
  spec->tensors.push_back(std::move(t));
  return static_cast<int32_t>(spec->tensors.size() - 1);
}

}  // namespace

Status LayerPackage(const HwConfig& c, const tensorize::Conv2dLayer& layer,
                    const tensorize::Conv2dTiling& tiling, package::PackageSpec* out) {
  if (c.block_in != c.block_out) {
    return Unimplemented("config " + c.name + ": one-layer packages need square GEMM blocks");
  }
  package::PackageSpec spec;
  spec.config = c;
  spec.board = "tune";
  spec.provenance = {"loom-tune " + layer.name, 0, "loom-tune", "loom tune (one layer)"};
  const q::Blocking blk{c.batch, c.block_in};
  const uint32_t n = layer.n_blocks * c.batch, ci = layer.c_blocks * c.block_in;
  const uint32_t o = layer.o_blocks * c.block_out;
  uint64_t arena = 0, constants = 0;
  auto act = [&](const char* name, uint32_t ch, uint32_t h, uint32_t w) {
    TensorSpec t;
    t.name = name;
    t.layout = package::TensorLayout::Blocked;
    t.shape = {n, ch, h, w};
    t.scale = 1.0f;
    return AddTensor(&spec, &arena, t, q::BlockedBytes(blk, q::ActShape{n, ch, h, w}));
  };
  auto constant = [&](const char* name, pkg::DType dtype, package::TensorLayout layout,
                      std::vector<uint32_t> shape, uint64_t bytes) {
    TensorSpec t;
    t.name = name;
    t.dtype = dtype;
    t.layout = layout;
    t.shape = std::move(shape);
    t.storage = package::Storage::Constant;
    return AddTensor(&spec, &constants, t, bytes);
  };
  const int32_t x = act("x", ci, layer.h, layer.w);
  const int32_t y = act("y", o, layer.out_h(), layer.out_w());
  // A depthwise op's weights are the compact form the cpu device reads; its program reads the
  // window or diagonal blocks, a constant of their own (as compiler/package lays them out).
  const int32_t wt = layer.depthwise
                         ? constant("w", pkg::DType::Int8, package::TensorLayout::BlockedDepthwise,
                                    {o, 1, layer.kh, layer.kw},
                                    q::DepthwiseWeightBytes(blk, o, layer.kh, layer.kw))
                         : constant("w", pkg::DType::Int8, package::TensorLayout::BlockedWeights,
                                    {o, ci, layer.kh, layer.kw},
                                    q::ConvWeightBytes(blk, o, ci, layer.kh, layer.kw));
  const uint64_t diag_bytes = tensorize::Conv2dWeightElems(c, layer) * c.wgt_elem_bytes();
  const int32_t wd =
      layer.depthwise
          ? constant(tensorize::UsesDepthwiseWindow(c, layer) ? "w.window" : "w.diagonal",
                     pkg::DType::Int8, package::TensorLayout::Plain,
                     {static_cast<uint32_t>(diag_bytes)}, diag_bytes)
          : wt;
  const uint64_t vec = q::ChannelVectorElems(blk, o) * 4;
  const int32_t bt = layer.has_bias ? constant("b", pkg::DType::Int32,
                                               package::TensorLayout::BlockedVector, {o}, vec)
                                    : -1;
  const int32_t mt =
      constant("m", pkg::DType::Int32, package::TensorLayout::BlockedVector, {o}, vec);
  spec.arena_bytes = arena;
  spec.constants.assign(constants, 0);

  tensorize::Conv2dLayer l = layer;
  auto elem = [&](int32_t t, uint32_t bytes) {
    return static_cast<uint32_t>(spec.tensors[static_cast<size_t>(t)].offset / bytes);
  };
  l.input = elem(x, c.inp_elem_bytes());
  l.output = elem(y, c.out_elem_bytes());
  l.weights = elem(wd, c.wgt_elem_bytes());
  if (bt >= 0) l.bias = elem(bt, c.acc_elem_bytes());
  l.mult = elem(mt, c.acc_elem_bytes());
  tensorize::AccelCode code;
  LOOM_RETURN_IF_ERROR(tensorize::EmitConv2d(c, l, tiling, &code));
  code.Emit(isa::Insn());  // FINISH

  package::OpSpec op;
  op.name = layer.name;
  package::Conv2dParams p;
  p.window = {l.kh, l.kw, l.stride_h, l.stride_w, l.pad_top, l.pad_left, l.pad_bottom, l.pad_right};
  p.requant = {l.pre_shift, l.post_shift, l.clip_lo, l.clip_hi};
  p.depthwise = l.depthwise;
  op.params = p;
  op.inputs = {x, wt, bt, mt};
  op.outputs = {y};
  op.macs = uint64_t{n} * o * l.out_h() * l.out_w() * (l.depthwise ? 1 : ci) * l.kh * l.kw;
  op.insn_begin = 0;
  op.insn_end = static_cast<uint32_t>(code.insns.size());
  package::SegmentSpec seg;
  seg.name = "layer";
  seg.kind = package::SegmentKind::Accel;
  seg.ops.push_back(std::move(op));
  seg.has_program = true;
  seg.program.insns = std::move(code.insns);
  seg.program.regions = std::move(code.regions);
  seg.program.uops = std::move(code.uops);
  spec.segments.push_back(std::move(seg));
  spec.inputs.push_back({"x", x, {n, ci, layer.h, layer.w}});
  spec.outputs.push_back({"y", y, {n, o, l.out_h(), l.out_w()}});
  *out = std::move(spec);
  return Status::Ok();
}

}  // namespace loom::tune
