#include "tests/runtime/test_packages.h"

#include <cstring>
#include <random>

#include "compiler/tensorize/conv2d.h"
#include "runtime/core/blocked_layout.h"
#include "runtime/core/dtype.h"
#include "runtime/kernels/int8/qops.h"
#include "runtime/package/package.h"

namespace loom::testing {
namespace {

namespace q = kernels::q;
using package::BindingSpec;
using package::OpSpec;
using package::PackageSpec;
using package::SegmentSpec;
using package::TensorLayout;
using package::TensorSpec;

uint64_t Align(uint64_t v, uint64_t a) { return (v + a - 1) / a * a; }

struct Builder {
  const HwConfig& c;
  PackageSpec* spec;
  q::Blocking blk;
  std::mt19937 rng;

  int32_t Tensor(const std::string& name, pkg::DType dtype, TensorLayout layout,
                 std::vector<uint32_t> shape, package::Storage storage, float scale,
                 uint64_t bytes) {
    TensorSpec t;
    t.name = name;
    t.dtype = dtype;
    t.layout = layout;
    t.shape = std::move(shape);
    t.storage = storage;
    t.scale = scale;
    uint64_t& cursor = storage == package::Storage::Arena ? spec->arena_bytes : const_cursor;
    t.offset = Align(cursor, 1024);
    cursor = t.offset + bytes;
    if (storage == package::Storage::Constant) spec->constants.resize(cursor, 0);
    spec->tensors.push_back(t);
    return static_cast<int32_t>(spec->tensors.size() - 1);
  }
  int32_t Act(const std::string& name, std::vector<uint32_t> nchw, float scale) {
    const q::ActShape s{nchw[0], nchw[1], nchw[2], nchw[3]};
    return Tensor(name, pkg::DType::Int8, TensorLayout::Blocked, nchw, package::Storage::Arena,
                  scale, q::BlockedBytes(blk, s));
  }
  int32_t Float(const std::string& name, std::vector<uint32_t> shape) {
    uint64_t n = 1;
    for (uint32_t d : shape) n *= d;
    return Tensor(name, pkg::DType::Float32, TensorLayout::Plain, shape, package::Storage::Arena,
                  1.0f, n * 4);
  }
  uint8_t* ConstData(int32_t t) { return spec->constants.data() + spec->tensors[t].offset; }
  // A float32 constant with values in [-1, 1).
  int32_t FloatConst(const std::string& name, std::vector<uint32_t> shape) {
    uint64_t n = 1;
    for (uint32_t d : shape) n *= d;
    const int32_t t = Tensor(name, pkg::DType::Float32, TensorLayout::Plain, shape,
                             package::Storage::Constant, 1.0f, n * 4);
    std::uniform_real_distribution<float> u(-1.0f, 1.0f);
    for (uint64_t i = 0; i < n; ++i) {
      const float v = u(rng);
      std::memcpy(ConstData(t) + i * 4, &v, 4);
    }
    return t;
  }

  // A conv layer: constants, the op, and (if accel) its program.
  Status Conv(const std::string& name, int32_t x, uint32_t o, uint32_t k, uint32_t pad, float out_scale,
              SegmentSpec* seg, int32_t* y) {
    const TensorSpec xs = spec->tensors[x];
    const uint32_t n = xs.shape[0], ci = xs.shape[1], h = xs.shape[2], w = xs.shape[3];
    std::uniform_int_distribution<int> i8(-128, 127);
    std::uniform_int_distribution<int32_t> bias(-20000, 20000), mult(1 << 12, 1 << 14);
    std::vector<int8_t> wl(size_t{o} * ci * k * k);
    for (auto& v : wl) v = static_cast<int8_t>(i8(rng));
    std::vector<int32_t> bl(o), ml(o);
    for (uint32_t i = 0; i < o; ++i) {
      bl[i] = bias(rng);
      ml[i] = mult(rng);
    }
    const int32_t wt =
        Tensor(name + ".w", pkg::DType::Int8, TensorLayout::BlockedWeights, {o, ci, k, k},
               package::Storage::Constant, 1.0f, q::ConvWeightBytes(blk, o, ci, k, k));
    const uint64_t vec = q::ChannelVectorElems(blk, o) * 4;
    const int32_t bt = Tensor(name + ".b", pkg::DType::Int32, TensorLayout::BlockedVector, {o},
                              package::Storage::Constant, 1.0f, vec);
    const int32_t mt = Tensor(name + ".m", pkg::DType::Int32, TensorLayout::BlockedVector, {o},
                              package::Storage::Constant, 1.0f, vec);
    LOOM_RETURN_IF_ERROR(q::PackConvWeights(blk, o, ci, k, k, wl.data(), reinterpret_cast<int8_t*>(ConstData(wt))));
    LOOM_RETURN_IF_ERROR(q::PackChannelVector(blk, o, bl.data(), reinterpret_cast<int32_t*>(ConstData(bt))));
    LOOM_RETURN_IF_ERROR(q::PackChannelVector(blk, o, ml.data(), reinterpret_cast<int32_t*>(ConstData(mt))));
    const uint32_t oh = h + 2 * pad - k + 1, ow = w + 2 * pad - k + 1;
    *y = Act(name + ".y", {n, o, oh, ow}, out_scale);

    OpSpec op;
    op.name = name;
    package::Conv2dParams p;
    p.window = {k, k, 1, 1, pad, pad, pad, pad};
    p.requant = {6, 16, -128, 127};
    op.params = p;
    op.inputs = {x, wt, bt, mt};
    op.outputs = {*y};
    op.macs = uint64_t{n} * o * oh * ow * ci * k * k;
    seg->ops.push_back(op);

    tensorize::Conv2dLayer l;
    l.name = name;
    l.n_blocks = (n + c.batch - 1) / c.batch;
    l.c_blocks = CeilDiv(ci, c.block_in);
    l.h = h;
    l.w = w;
    l.o_blocks = (o + c.block_out - 1) / c.block_out;
    l.kh = l.kw = k;
    l.pad_top = l.pad_bottom = l.pad_left = l.pad_right = pad;
    l.pre_shift = 6;
    l.post_shift = 16;
    l.input = static_cast<uint32_t>(spec->tensors[x].offset / c.inp_elem_bytes());
    l.output = static_cast<uint32_t>(spec->tensors[*y].offset / c.out_elem_bytes());
    l.weights = static_cast<uint32_t>(spec->tensors[wt].offset / c.wgt_elem_bytes());
    l.bias = static_cast<uint32_t>(spec->tensors[bt].offset / c.acc_elem_bytes());
    l.mult = static_cast<uint32_t>(spec->tensors[mt].offset / c.acc_elem_bytes());
    tensorize::TilingChoice choice;
    LOOM_RETURN_IF_ERROR(tensorize::ChooseConv2dTiling(c, l, &choice));
    tensorize::AccelCode code;
    LOOM_RETURN_IF_ERROR(tensorize::EmitConv2d(c, l, choice.tiling, &code));
    isa::Insn finish;
    finish.opcode = isa::Opcode::kFinish;
    code.Emit(finish);
    seg->kind = package::SegmentKind::Accel;
    seg->has_program = true;
    seg->program.insns = code.insns;
    seg->program.regions = code.regions;
    seg->program.uops = code.uops;
    return Status::Ok();
  }
  uint64_t const_cursor = 0;
};

}  // namespace

std::vector<float> ConvModelInput(const ConvModelOptions& o, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(-6.0f, 6.0f);
  std::vector<float> x(size_t{o.n} * o.c * o.hw * o.hw);
  for (float& v : x) v = u(rng);
  return x;
}

Status BuildConvModel(const HwConfig& config, const ConvModelOptions& o, PackageSpec* spec) {
  *spec = PackageSpec{};
  spec->config = config;
  spec->board = "sim";
  spec->provenance = {"conv_test_model", 0x1234, "loom-test", "tests/runtime/test_packages.cc"};
  Builder b{config, spec, q::Blocking{config.batch, config.block_in}, std::mt19937(o.seed)};
  const float in_scale = 6.0f / 127;
  const int32_t x = b.Act("input.q", {o.n, o.c, o.hw, o.hw}, in_scale);
  int32_t bound_in = x;
  if (o.float_input) {
    bound_in = b.Float("input", {o.n, o.c, o.hw, o.hw});
    SegmentSpec s;
    s.name = "quantize";
    OpSpec op;
    op.name = "quantize_input";
    op.params = package::QuantizeParams{};
    op.inputs = {bound_in};
    op.outputs = {x};
    s.ops.push_back(op);
    spec->segments.push_back(s);
  }
  SegmentSpec s1;
  s1.name = "conv1";
  int32_t y1 = 0;
  LOOM_RETURN_IF_ERROR(b.Conv("conv1", x, o.o, 3, 1, 0.1f, &s1, &y1));
  spec->segments.push_back(s1);

  SegmentSpec s2;
  s2.name = "pool";
  const uint32_t ph = o.hw / 2;
  const int32_t p = b.Act("pool.y", {o.n, o.o, ph, ph}, 0.1f);
  OpSpec pool;
  pool.name = "pool";
  package::MaxPoolParams mp;
  mp.window = {2, 2, 2, 2, 0, 0, 0, 0};
  pool.params = mp;
  pool.inputs = {y1};
  pool.outputs = {p};
  s2.ops.push_back(pool);
  spec->segments.push_back(s2);

  SegmentSpec s3;
  s3.name = "conv2";
  int32_t y2 = 0;
  LOOM_RETURN_IF_ERROR(b.Conv("conv2", p, o.o2, 1, 0, 0.05f, &s3, &y2));
  spec->segments.push_back(s3);

  SegmentSpec s4;
  s4.name = "head";
  const uint32_t flat = o.o2 * ph * ph;
  const int32_t f = b.Float("features.f", {o.n, o.o2, ph, ph});
  const int32_t fl = b.Float("flat", {o.n, flat});
  const int32_t pr = b.Float("probs", {o.n, flat});
  OpSpec dq;
  dq.name = "dequantize";
  dq.params = package::DequantizeParams{};
  dq.inputs = {y2};
  dq.outputs = {f};
  OpSpec fo;
  fo.name = "flatten";
  fo.params = package::FloatOpParams{"Flatten", {}};
  fo.inputs = {f};
  fo.outputs = {fl};
  OpSpec sm;
  sm.name = "softmax";
  sm.params = package::FloatOpParams{"Softmax", {{"axis", {1}, {}}}};
  sm.inputs = {fl};
  sm.outputs = {pr};
  s4.ops = {dq, fo, sm};
  spec->segments.push_back(s4);

  spec->inputs.push_back(BindingSpec{"input", bound_in, {o.n, o.c, o.hw, o.hw}});
  spec->outputs.push_back(BindingSpec{"features", y2, {o.n, o.o2, ph, ph}});
  spec->outputs.push_back(BindingSpec{"probs", pr, {o.n, flat}});
  if (o.float_tail) {
    SegmentSpec s5;
    s5.name = "float_tail";
    using Attrs = std::vector<package::FloatAttr>;
    auto add = [&](const std::string& name, const std::string& op, Attrs attrs,
                   std::vector<int32_t> inputs, int32_t out) {
      OpSpec spec_op;
      spec_op.name = name;
      spec_op.params = package::FloatOpParams{op, std::move(attrs)};
      spec_op.inputs = std::move(inputs);
      spec_op.outputs = {out};
      s5.ops.push_back(spec_op);
    };
    const uint32_t oc = 4, half = ph / 2, gemm_in = oc * half * half, gemm_out = 5;
    const int32_t cw = b.FloatConst("tail.conv.w", {oc, o.o2, 3, 3});
    const int32_t cb = b.FloatConst("tail.conv.b", {oc});
    const int32_t gw = b.FloatConst("tail.gemm.w", {gemm_out, gemm_in});
    const int32_t gc = b.FloatConst("tail.gemm.c", {gemm_out});
    const int32_t scale = b.FloatConst("tail.scale", {1, gemm_out});
    const int32_t lo = b.FloatConst("tail.min", {});
    const int32_t conv = b.Float("tail.conv", {o.n, oc, ph, ph});
    const int32_t relu = b.Float("tail.relu", {o.n, oc, ph, ph});
    const int32_t tpool = b.Float("tail.pool", {o.n, oc, half, half});
    const int32_t tr = b.Float("tail.transpose", {o.n, half, half, oc});
    const int32_t rs = b.Float("tail.reshape", {o.n, gemm_in});
    const int32_t gm = b.Float("tail.gemm", {o.n, gemm_out});
    const int32_t mul = b.Float("tail.mul", {o.n, gemm_out});
    const int32_t clip = b.Float("tail.clip", {o.n, gemm_out});
    const int32_t cat = b.Float("tail.concat", {o.n, gemm_out + flat});
    const int32_t out = b.Float("tail", {o.n, gemm_out + flat});
    add("tail_conv", "Conv", {{"strides", {1, 1}, {}}, {"pads", {1, 1, 1, 1}, {}}}, {f, cw, cb},
        conv);
    add("tail_relu", "Relu", {}, {conv}, relu);
    add("tail_pool", "MaxPool", {{"kernel_shape", {2, 2}, {}}, {"strides", {2, 2}, {}}}, {relu},
        tpool);
    add("tail_transpose", "Transpose", {{"perm", {0, 2, 3, 1}, {}}}, {tpool}, tr);
    add("tail_reshape", "Reshape", {}, {tr}, rs);
    add("tail_gemm", "Gemm", {{"transB", {1}, {}}, {"alpha", {}, {0.5f}}}, {rs, gw, gc}, gm);
    add("tail_mul", "Mul", {}, {gm, scale}, mul);
    add("tail_clip", "Clip", {}, {mul, lo, -1}, clip);
    add("tail_concat", "Concat", {{"axis", {-1}, {}}}, {clip, pr}, cat);
    add("tail_softmax", "Softmax", {{"axis", {1}, {}}}, {cat}, out);
    spec->segments.push_back(s5);
    spec->outputs.push_back(BindingSpec{"tail", out, {o.n, gemm_out + flat}});
  }
  spec->arena_bytes = Align(spec->arena_bytes, 64);
  return Status::Ok();
}

Status BuildCpuOnlyModel(const HwConfig& config, PackageSpec* spec) {
  *spec = PackageSpec{};
  spec->config = config;
  Builder b{config, spec, q::Blocking{config.batch, config.block_in}, std::mt19937(1)};
  const int32_t x = b.Act("x", {1, 3, 2, 2}, 0.5f);
  const int32_t y = b.Tensor("y", pkg::DType::Int8, TensorLayout::Plain, {1, 12},
                             package::Storage::Arena, 0.5f, 12);
  SegmentSpec s;
  s.name = "relayout";
  OpSpec op;
  op.name = "to_plain";
  op.params = package::RelayoutParams{};
  op.inputs = {x};
  op.outputs = {y};
  s.ops.push_back(op);
  spec->segments.push_back(s);
  spec->inputs.push_back(BindingSpec{"x", x, {1, 3, 2, 2}});
  spec->outputs.push_back(BindingSpec{"y", y, {1, 12}});
  return Status::Ok();
}

Status BuildTypedCpuModel(const HwConfig& config, pkg::DType dtype, PackageSpec* spec) {
  *spec = PackageSpec{};
  spec->config = config;
  Builder b{config, spec, q::Blocking{config.batch, config.block_in}, std::mt19937(1)};
  const uint64_t es = DTypeSize(runtime::FromPkgDType(dtype));
  auto plain = [&](const char* name, std::vector<uint32_t> shape, package::Storage storage) {
    return b.Tensor(name, dtype, TensorLayout::Plain, shape, storage, 1.0f,
                    uint64_t{shape[0]} * shape[1] * es);
  };
  const int32_t x = plain("x", {2, 3}, package::Storage::Arena);
  const int32_t xt = plain("xt", {3, 2}, package::Storage::Arena);
  const int32_t row = plain("row", {1, 2}, package::Storage::Constant);
  std::memset(b.ConstData(row), 1, 2 * es);  // 1 as bool/int8/uint8; a small nonzero otherwise
  const int32_t y = plain("y", {4, 2}, package::Storage::Arena);
  SegmentSpec s;
  s.name = "cpu";
  OpSpec t;
  t.name = "transpose";
  t.params = package::FloatOpParams{"Transpose", {{"perm", {1, 0}, {}}}};
  t.inputs = {x};
  t.outputs = {xt};
  s.ops.push_back(t);
  OpSpec c;
  c.name = "concat";
  c.params = package::FloatOpParams{"Concat", {{"axis", {0}, {}}}};
  c.inputs = {xt, row};
  c.outputs = {y};
  s.ops.push_back(c);
  spec->segments.push_back(s);
  spec->inputs.push_back(BindingSpec{"x", x, {2, 3}});
  spec->outputs.push_back(BindingSpec{"y", y, {4, 2}});
  return Status::Ok();
}

Status BuildPadCpuModel(const HwConfig& config, const std::string& mode, PackageSpec* spec) {
  *spec = PackageSpec{};
  spec->config = config;
  Builder b{config, spec, q::Blocking{config.batch, config.block_in}, std::mt19937(1)};
  const int32_t x = b.Tensor("x", pkg::DType::Float32, TensorLayout::Plain, {2, 3},
                             package::Storage::Arena, 1.0f, 24);
  const int32_t y = b.Tensor("y", pkg::DType::Float32, TensorLayout::Plain, {3, 5},
                             package::Storage::Arena, 1.0f, 60);
  SegmentSpec s;
  s.name = "cpu";
  OpSpec pad;
  pad.name = "pad";
  pad.params = package::FloatOpParams{
      "Pad", {package::FloatAttr::Text("mode", mode), {"pads", {1, 1, 0, 1}, {}}}};
  pad.inputs = {x};
  pad.outputs = {y};
  s.ops.push_back(pad);
  spec->segments.push_back(s);
  spec->inputs.push_back(BindingSpec{"x", x, {2, 3}});
  spec->outputs.push_back(BindingSpec{"y", y, {3, 5}});
  return Status::Ok();
}

Status BuildOversizedPackages(const HwConfig& config, std::vector<OversizedPackage>* out) {
  ConvModelOptions o;
  o.hw = 4;  // small files for the corpus
  PackageSpec base;
  LOOM_RETURN_IF_ERROR(BuildConvModel(config, o, &base));
  out->clear();
  auto add = [&](const char* name, StatusCode code, const std::string& message, auto edit) {
    out->push_back(OversizedPackage{name, base, code, message});
    edit(out->back().spec);
  };
  auto tensor = [](PackageSpec& s, const std::string& name) -> TensorSpec& {
    for (TensorSpec& t : s.tensors) {
      if (t.name == name) return t;
    }
    return s.tensors.front();
  };
  // Terabytes of arena behind a few hundred bytes of tensors: allocated for nothing.
  add("huge_arena_bytes", StatusCode::kInvalidArgument,
      "arena_bytes is 1099511627776 bytes, more than the",
      [](PackageSpec& s) { s.arena_bytes = uint64_t{1} << 40; });
  add("padded_constants", StatusCode::kInvalidArgument, "constants is ",
      [](PackageSpec& s) { s.constants.resize(s.constants.size() + 4096); });
  // The C API hands out shapes in LOOM_MAX_RANK (8) slots.
  add("rank9_binding", StatusCode::kInvalidArgument, "input 0 'input': rank 9 is above 8",
      [](PackageSpec& s) { s.inputs[0].shape.resize(9, 1); });
  add("rank9_tensor", StatusCode::kInvalidArgument, "tensor 0 'input.q': rank 9 is above 8",
      [](PackageSpec& s) {
        s.tensors[0].shape.resize(9, 1);
        s.tensors[0].size = 1;  // the writer cannot size a rank-9 Blocked tensor
      });
  // A consistent 1 TiB tensor at the end of the arena: honest sizes, but more than any device.
  add("huge_tensor", StatusCode::kFailedPrecondition, "bytes of device memory",
      [&tensor](PackageSpec& s) {
        TensorSpec& t = tensor(s, "probs");
        t.shape = {1u << 18, 1u << 20};
        t.size = uint64_t{1} << 40;
        s.arena_bytes = t.offset + t.size;
      });
  return Status::Ok();
}

}  // namespace loom::testing
