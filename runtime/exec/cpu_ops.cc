#include "runtime/exec/cpu_ops.h"

#include <algorithm>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/kernels/int8/qops.h"
#include "runtime/kernels/kernels.h"
#include "runtime/kernels/op_attrs.h"

namespace loom::runtime {
namespace {

namespace q = kernels::q;
using fbu = flatbuffers::uoffset_t;

q::ActShape Act(const pkg::Tensor* t) {
  return {t->shape()->Get(0), t->shape()->Get(1), t->shape()->Get(2), t->shape()->Get(3)};
}
uint64_t Count(const pkg::Tensor* t) {
  uint64_t n = 0;
  ShapeElements(t->shape(), &n);
  return n;
}
q::Requant Rq(const pkg::Requant* r) {
  q::Requant out;
  out.pre_shift = r->pre_shift();
  out.post_shift = r->post_shift();
  out.clip_lo = r->clip_lo();
  out.clip_hi = r->clip_hi();
  return out;
}
q::PoolParams Pool(const pkg::Window* w, const q::ActShape& in) {
  q::PoolParams p;
  p.in = in;
  p.kh = w->kh();
  p.kw = w->kw();
  p.stride_h = w->stride_h();
  p.stride_w = w->stride_w();
  p.pad_top = w->pad_top();
  p.pad_left = w->pad_left();
  p.pad_bottom = w->pad_bottom();
  p.pad_right = w->pad_right();
  return p;
}
Status FloatView(const pkg::Tensor* t, void* data, kernels::TensorView* v) {
  int64_t dims[8];
  const int rank = static_cast<int>(t->shape()->size());
  for (int i = 0; i < rank; ++i) dims[i] = t->shape()->Get(static_cast<fbu>(i));
  return kernels::MakeView(DType::kF32, data, dims, rank, v);
}

// A FloatOp's attribute list with the lookups kernels/op_attrs.h reads (ir::Node's).
class FloatAttrs {
 public:
  explicit FloatAttrs(const pkg::FloatOp& op) : op_(op) {}
  std::vector<int64_t> GetInts(std::string_view name) const {
    const pkg::FloatAttr* a = Find(name);
    if (a == nullptr || a->ints() == nullptr) return {};
    return {a->ints()->begin(), a->ints()->end()};
  }
  int64_t GetInt(std::string_view name, int64_t fallback) const {
    const pkg::FloatAttr* a = Find(name);
    return a && a->ints() && a->ints()->size() ? a->ints()->Get(0) : fallback;
  }
  float GetFloat(std::string_view name, float fallback) const {
    const pkg::FloatAttr* a = Find(name);
    return a && a->floats() && a->floats()->size() ? a->floats()->Get(0) : fallback;
  }

 private:
  const pkg::FloatAttr* Find(std::string_view name) const {
    if (op_.attrs() == nullptr) return nullptr;
    for (const pkg::FloatAttr* a : *op_.attrs()) {
      if (a->name()->string_view() == name) return a;
    }
    return nullptr;
  }
  const pkg::FloatOp& op_;
};

// One float operator of a CPU segment on the reference kernels. The loader has checked the
// operator is in its table, the operand counts, and that every operand is float32 (checks.cc);
// the kernels check the shapes.
Status RunFloatOp(const pkg::FloatOp& op, const std::vector<kernels::TensorView>& in,
                  const std::vector<bool>& present, const kernels::TensorView& y) {
  const std::string name = op.op()->str();
  const FloatAttrs attrs(op);
  auto optional = [&](size_t i) { return i < in.size() && present[i] ? &in[i] : nullptr; };
  const kernels::TensorView& x = in[0];
  // An axis attribute as ONNX allows it (negative counts from the end), resolved for the kernels,
  // which check the range.
  auto axis = [&](int64_t fallback, int rank) {
    const int64_t a = attrs.GetInt("axis", fallback);
    if (a < -rank || a >= rank) return -1;  // out of range: the kernel says so
    return static_cast<int>(a < 0 ? a + rank : a);
  };
  if (name == "Identity" || name == "Reshape" || name == "Flatten" || name == "Dropout") {
    return kernels::Copy(x, y);  // Dropout at inference passes x through
  }
  if (name == "Softmax") return kernels::Softmax(x, axis(-1, x.rank), y);
  if (name == "GlobalAveragePool") return kernels::GlobalAvgPool(x, y);
  if (name == "Add" || name == "Sub" || name == "Mul") {
    const kernels::BinaryOp bop = name == "Add"   ? kernels::BinaryOp::kAdd
                                  : name == "Sub" ? kernels::BinaryOp::kSub
                                                  : kernels::BinaryOp::kMul;
    return kernels::Binary(bop, x, in[1], y);
  }
  if (name == "Conv") {
    kernels::ConvParams p;
    LOOM_RETURN_IF_ERROR(kernels::ConvParamsFrom(attrs, x.rank, &p));
    return kernels::Conv(p, x, in[1], optional(2), y);
  }
  if (name == "Gemm") return kernels::Gemm(kernels::GemmParamsFrom(attrs), x, in[1], optional(2), y);
  if (name == "MatMul") return kernels::MatMul(x, in[1], y);
  if (name == "BatchNormalization") {
    return kernels::BatchNorm(x, in[1], in[2], in[3], in[4], attrs.GetFloat("epsilon", 1e-5f), y);
  }
  if (name == "MaxPool" || name == "AveragePool") {
    kernels::PoolParams p;
    LOOM_RETURN_IF_ERROR(kernels::PoolParamsFrom(attrs, x.rank, &p));
    return name == "MaxPool" ? kernels::MaxPool(p, x, y, nullptr) : kernels::AvgPool(p, x, y);
  }
  if (name == "Concat") {
    std::vector<const kernels::TensorView*> ptrs;
    for (const kernels::TensorView& v : in) ptrs.push_back(&v);
    return kernels::Concat(ptrs.data(), static_cast<int>(ptrs.size()), axis(0, y.rank), y);
  }
  if (name == "Transpose") {
    std::vector<int64_t> perm = attrs.GetInts("perm");
    if (perm.empty()) {  // ONNX's default reverses the dims
      for (int d = x.rank - 1; d >= 0; --d) perm.push_back(d);
    }
    if (perm.size() != static_cast<size_t>(x.rank)) {
      return InvalidArgument("Transpose: perm has " + std::to_string(perm.size()) +
                             " entries for a rank-" + std::to_string(x.rank) + " input");
    }
    return kernels::Transpose(x, perm.data(), y);
  }
  kernels::ActivationParams ap;
  if (name == "Relu") ap.kind = kernels::ActivationKind::kRelu;
  if (name == "Sigmoid") ap.kind = kernels::ActivationKind::kSigmoid;
  if (name == "LeakyRelu") {
    ap.kind = kernels::ActivationKind::kLeakyRelu;
    ap.alpha = attrs.GetFloat("alpha", 0.01f);
  }
  if (name == "Clip") {  // bounds are optional scalar inputs (ONNX opset 11 on)
    ap.kind = kernels::ActivationKind::kClip;
    ap.min = -3.4028235e38;
    ap.max = 3.4028235e38;
    for (size_t i = 1; i <= 2; ++i) {
      const kernels::TensorView* b = optional(i);
      if (b == nullptr) continue;
      if (b->NumElements() != 1) {
        return InvalidArgument("Clip: bound " + std::to_string(i) + " has " +
                               std::to_string(b->NumElements()) + " elements, not 1");
      }
      (i == 1 ? ap.min : ap.max) = static_cast<const float*>(b->data)[0];
    }
  }
  if (ap.kind == kernels::ActivationKind::kNone) {
    return Unimplemented("float operator '" + name + "' is not supported by the runtime");
  }
  return kernels::Activation(ap, x, y);
}

}  // namespace

CpuOpRunner::CpuOpRunner(const Package& package) : package_(package) {
  // Scratch holds one plain int8 copy of the largest tensor a layout conversion goes through.
  uint64_t need = 0;
  for (const pkg::Tensor* t : *package.root().tensors()) need = std::max(need, Count(t));
  scratch_.resize(need);
}

Status CpuOpRunner::Run(const pkg::Op& op, uint8_t* arena) {
  const pkg::Package& r = package_.root();
  const HwConfig& c = package_.config();
  const q::Blocking blk{c.batch, c.block_in};
  auto tensor = [&](int32_t i) { return i < 0 ? nullptr : r.tensors()->Get(static_cast<fbu>(i)); };
  auto data = [&](const pkg::Tensor* t) -> uint8_t* {
    if (t == nullptr) return nullptr;
    if (t->storage() == pkg::Storage::Arena) return arena + t->offset();
    // Constants are read-only; the loader guarantees no op writes one.
    return const_cast<uint8_t*>(package_.constants()) + t->offset();
  };
  auto in = [&](fbu i) { return tensor(op.inputs()->Get(i)); };
  auto out = [&](fbu i) { return tensor(op.outputs()->Get(i)); };
  auto i8 = [&](const pkg::Tensor* t) { return reinterpret_cast<int8_t*>(data(t)); };
  auto i32 = [&](const pkg::Tensor* t) { return reinterpret_cast<int32_t*>(data(t)); };
  auto f32 = [&](const pkg::Tensor* t) { return reinterpret_cast<float*>(data(t)); };

  switch (op.params_type()) {
    case pkg::OpParams::Conv2d: {
      const pkg::Conv2d* p = op.params_as_Conv2d();
      const pkg::Tensor *x = in(0), *w = in(1), *bias = in(2), *mult = in(3), *y = out(0);
      q::Conv2dParams cp;
      cp.in = Act(x);
      cp.out_c = y->shape()->Get(1);
      cp.kh = p->window()->kh();
      cp.kw = p->window()->kw();
      cp.stride_h = p->window()->stride_h();
      cp.stride_w = p->window()->stride_w();
      cp.pad_top = p->window()->pad_top();
      cp.pad_left = p->window()->pad_left();
      cp.pad_bottom = p->window()->pad_bottom();
      cp.pad_right = p->window()->pad_right();
      cp.depthwise = p->depthwise();
      cp.rq = Rq(p->requant());
      return q::Conv2d(blk, cp, i8(x), i8(w), bias ? i32(bias) : nullptr, i32(mult), i8(y));
    }
    case pkg::OpParams::Add: {
      const pkg::Add* p = op.params_as_Add();
      q::AddParams ap;
      ap.shape = Act(in(0));
      ap.mult_a = p->mult_a();
      ap.mult_b = p->mult_b();
      ap.shift = p->shift();
      ap.clip_lo = p->clip_lo();
      ap.clip_hi = p->clip_hi();
      return q::Add(blk, ap, i8(in(0)), i8(in(1)), i8(out(0)));
    }
    case pkg::OpParams::MaxPool:
      return q::MaxPool(blk, Pool(op.params_as_MaxPool()->window(), Act(in(0))), i8(in(0)),
                        i8(out(0)));
    case pkg::OpParams::AvgPool: {
      const pkg::AvgPool* p = op.params_as_AvgPool();
      q::AvgPoolParams ap;
      ap.pool = Pool(p->window(), Act(in(0)));
      ap.count_include_pad = p->count_include_pad();
      ap.rq = Rq(p->requant());
      return q::AvgPool(blk, ap, i32(in(1)), i8(in(0)), i8(out(0)));
    }
    case pkg::OpParams::Concat: {
      const pkg::Concat* p = op.params_as_Concat();
      std::vector<q::ConcatInput> inputs(op.inputs()->size());
      for (fbu i = 0; i < op.inputs()->size(); ++i) {
        inputs[i].shape = Act(in(i));
        inputs[i].data = i8(in(i));
        inputs[i].mult = p->mults()->Get(i);
        inputs[i].shift = p->shifts()->Get(i);
      }
      return q::Concat(blk, inputs.data(), inputs.size(), i8(out(0)));
    }
    case pkg::OpParams::Quantize: {
      const pkg::Tensor *x = in(0), *y = out(0);
      const size_t n = Count(x);
      if (y->layout() == pkg::TensorLayout::Plain) return q::QuantizeF32(f32(x), n, y->scale(), i8(y));
      LOOM_RETURN_IF_ERROR(q::QuantizeF32(f32(x), n, y->scale(), scratch_.data()));
      return q::PackActivation(blk, Act(y), scratch_.data(), i8(y));
    }
    case pkg::OpParams::Dequantize: {
      const pkg::Tensor *x = in(0), *y = out(0);
      const size_t n = Count(x);
      if (x->layout() == pkg::TensorLayout::Plain) return q::DequantizeF32(i8(x), n, x->scale(), f32(y));
      LOOM_RETURN_IF_ERROR(q::UnpackActivation(blk, Act(x), i8(x), scratch_.data()));
      return q::DequantizeF32(scratch_.data(), n, x->scale(), f32(y));
    }
    case pkg::OpParams::Relayout: {
      const pkg::Tensor *x = in(0), *y = out(0);
      const bool xb = x->layout() == pkg::TensorLayout::Blocked;
      const bool yb = y->layout() == pkg::TensorLayout::Blocked;
      if (!xb && !yb) {
        std::memmove(data(y), data(x), Count(x) * (x->dtype() == pkg::DType::Float32 ? 4 : 1));
        return Status::Ok();
      }
      if (xb && !yb) return q::UnpackActivation(blk, Act(x), i8(x), i8(y));
      if (!xb && yb) return q::PackActivation(blk, Act(y), i8(x), i8(y));
      LOOM_RETURN_IF_ERROR(q::UnpackActivation(blk, Act(x), i8(x), scratch_.data()));
      return q::PackActivation(blk, Act(y), scratch_.data(), i8(y));
    }
    case pkg::OpParams::FloatOp: {
      std::vector<kernels::TensorView> ins(op.inputs()->size());
      std::vector<bool> present(ins.size());
      for (fbu i = 0; i < op.inputs()->size(); ++i) {
        present[i] = in(i) != nullptr;  // an omitted optional operand (Conv's bias, Gemm's C)
        if (present[i]) LOOM_RETURN_IF_ERROR(FloatView(in(i), data(in(i)), &ins[i]));
      }
      kernels::TensorView y;
      LOOM_RETURN_IF_ERROR(FloatView(out(0), data(out(0)), &y));
      return RunFloatOp(*op.params_as_FloatOp(), ins, present, y);
    }
    default:
      return Internal("unknown operator type reached the executor");
  }
}

}  // namespace loom::runtime
