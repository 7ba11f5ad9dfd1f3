#include "runtime/exec/cpu_ops.h"

#include <algorithm>
#include <cstring>

#include "runtime/exec/op_params.h"
#include "runtime/kernels/int8/fast/fast.h"
#include "runtime/kernels/int8/qops.h"

namespace loom::runtime {
namespace {

namespace q = kernels::q;
using fbu = flatbuffers::uoffset_t;
using op_params::Act;
using op_params::ConvParams;
using op_params::Count;
using op_params::Pool;
using op_params::Rq;

// A CPU op's operand as the kernels see it: the tensor's own type, shape and arena bytes.
Status OperandView(const pkg::Tensor* t, void* data, kernels::TensorView* v) {
  int64_t dims[8];
  const int rank = static_cast<int>(t->shape()->size());
  for (int i = 0; i < rank; ++i) dims[i] = t->shape()->Get(static_cast<fbu>(i));
  return kernels::MakeView(FromPkgDType(t->dtype()), data, dims, rank, v);
}

}  // namespace

CpuOpRunner::CpuOpRunner(const Package& package, q::fast::KernelPath kernels,
                         const NativeOps* native)
    : package_(package), kernels_(kernels), native_(native) {
  // Scratch holds one plain int8 copy of the largest tensor a layout conversion goes through.
  uint64_t need = 0;
  for (const pkg::Tensor* t : *package.root().tensors()) need = std::max(need, Count(t));
  scratch_.resize(need);
  size_t inputs = 0, outputs = 1, workspace = 0, float_scratch = 0;
  const q::Blocking blk{package.config().batch, package.config().block_in};
  auto tensor = [&](int32_t i) { return package.root().tensors()->Get(static_cast<fbu>(i)); };
  for (fbu s = 0; s < package.root().segments()->size(); ++s) {
    const pkg::Segment* seg = package.root().segments()->Get(s);
    op_base_.push_back(packed_.size());
    for (fbu i = 0; i < seg->ops()->size(); ++i) {
      const pkg::Op* op = seg->ops()->Get(i);
      inputs = std::max<size_t>(inputs, op->inputs()->size());
      if (const FloatOpPlan* plan = package.float_op(s, i)) {
        outputs = std::max(outputs, plan->num_outputs);
        float_scratch = std::max(float_scratch, plan->scratch_bytes);
      }
      packed_.emplace_back();
      if (op->params_type() != pkg::OpParams::Conv2d) continue;
      if (native != nullptr && native->Find(s, i) != nullptr) continue;
      const q::Conv2dParams cp = ConvParams(*op, tensor);
      workspace = std::max(workspace, q::fast::Conv2dWorkspaceBytes(kernels, blk, cp));
      // Constant weights are repacked for the micro-kernels once, here; a convolution whose
      // weights cannot be packed (bad parameters) repacks per call and reports the error there.
      const pkg::Tensor* w = tensor(op->inputs()->Get(1));
      const size_t bytes = q::fast::PackedWeightsBytes(kernels, blk, cp);
      if (w->storage() == pkg::Storage::Arena || bytes == 0) continue;
      std::vector<uint8_t>& packed = packed_.back();
      packed.resize(bytes);
      const auto* wd = reinterpret_cast<const int8_t*>(package.constants() + w->offset());
      if (!q::fast::PackWeights(kernels, blk, cp, wd, packed.data(), bytes).ok()) packed.clear();
    }
  }
  workspace_.resize(workspace);
  native_workspace_.resize(native != nullptr ? native->workspace_bytes() : 0);
  views_.resize(inputs);
  ins_.resize(inputs);
  concat_.resize(inputs);
  out_views_.resize(outputs);
  outs_.resize(outputs);
  float_scratch_.resize((float_scratch + sizeof(double) - 1) / sizeof(double));
}

Status CpuOpRunner::RunFloatOp(const pkg::Op& op, const FloatOpPlan& plan, uint8_t* arena) {
  const pkg::Package& r = package_.root();
  auto data = [&](const pkg::Tensor* t) -> void* {
    if (t->storage() == pkg::Storage::Arena) return arena + t->offset();
    return const_cast<uint8_t*>(package_.constants()) + t->offset();  // read-only: an input
  };
  const size_t n = op.inputs()->size();
  for (fbu i = 0; i < n; ++i) {
    const int32_t idx = op.inputs()->Get(i);
    ins_[i] = nullptr;  // an omitted optional operand (Conv's bias, Gemm's C)
    if (idx < 0) continue;
    const pkg::Tensor* t = r.tensors()->Get(static_cast<fbu>(idx));
    LOOM_RETURN_IF_ERROR(OperandView(t, data(t), &views_[i]));
    ins_[i] = &views_[i];
  }
  const size_t m = op.outputs()->size();
  for (fbu i = 0; i < m; ++i) {
    const pkg::Tensor* out = r.tensors()->Get(static_cast<fbu>(op.outputs()->Get(i)));
    LOOM_RETURN_IF_ERROR(OperandView(out, data(out), &out_views_[i]));
    outs_[i] = &out_views_[i];
  }
  if (plan.def->run_multi != nullptr) {
    return plan.def->run_multi(plan.params, ins_.data(), n, outs_.data(), m, float_scratch_.data());
  }
  return plan.def->run(plan.params, ins_.data(), n, out_views_[0]);
}

Status CpuOpRunner::Run(size_t segment, size_t op_index, uint8_t* arena) {
  if (native_ != nullptr) {
    if (NativeOps::Fn fn = native_->Find(segment, op_index)) {
      const int32_t rc = fn(arena, package_.constants(), native_workspace_.data());
      if (rc == 0) return Status::Ok();
      return Internal("native code of op {} of segment {} returned {}", op_index, segment, rc);
    }
  }
  const pkg::Package& r = package_.root();
  const pkg::Op& op =
      *r.segments()->Get(static_cast<fbu>(segment))->ops()->Get(static_cast<fbu>(op_index));
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
      const pkg::Tensor *x = in(0), *w = in(1), *bias = in(2), *mult = in(3), *y = out(0);
      const q::Conv2dParams cp = ConvParams(op, tensor);
      const std::vector<uint8_t>& packed = packed_[op_base_[segment] + op_index];
      return q::fast::Conv2d(kernels_, blk, cp, i8(x), i8(w),
                             packed.empty() ? nullptr : packed.data(), bias ? i32(bias) : nullptr,
                             i32(mult), i8(y), workspace_.data(), workspace_.size());
    }
    case pkg::OpParams::Add:
      return q::fast::Add(kernels_, blk, op_params::AddOf(op.params_as_Add(), in(0)), i8(in(0)),
                          i8(in(1)), i8(out(0)));
    case pkg::OpParams::Mul:
      return q::fast::Mul(kernels_, blk, op_params::MulOf(op.params_as_Mul(), in(0), in(1)),
                          i8(in(0)), i8(in(1)), i8(out(0)));
    case pkg::OpParams::MaxPool:
      return q::fast::MaxPool(kernels_, blk, Pool(op.params_as_MaxPool()->window(), Act(in(0))),
                              i8(in(0)), i8(out(0)));
    case pkg::OpParams::AvgPool:
      return q::fast::AvgPool(kernels_, blk, op_params::AvgPoolOf(op.params_as_AvgPool(), in(0)),
                              i32(in(1)), i8(in(0)), i8(out(0)));
    case pkg::OpParams::Resize:
      return q::ResizeNearest(blk, op_params::ResizeOf(op.params_as_Resize(), in(0)), i8(in(0)),
                              i8(out(0)));
    case pkg::OpParams::ZeroInsert:
      return q::ZeroInsert(blk, op_params::ZeroInsertOf(op.params_as_ZeroInsert(), in(0)),
                           i8(in(0)), i8(out(0)));
    case pkg::OpParams::Concat: {
      const pkg::Concat* p = op.params_as_Concat();
      for (fbu i = 0; i < op.inputs()->size(); ++i) {
        concat_[i] = op_params::ConcatInputOf(p, i, in(i));
        concat_[i].data = i8(in(i));
      }
      return q::Concat(blk, concat_.data(), op.inputs()->size(), i8(out(0)));
    }
    case pkg::OpParams::Quantize: {
      const pkg::Tensor *x = in(0), *y = out(0);
      const size_t n = Count(x);
      if (y->layout() == pkg::TensorLayout::Plain)
        return q::fast::QuantizeF32(kernels_, f32(x), n, y->scale(), y->zero_point(), i8(y));
      LOOM_RETURN_IF_ERROR(
          q::fast::QuantizeF32(kernels_, f32(x), n, y->scale(), y->zero_point(), scratch_.data()));
      return q::PackActivation(blk, Act(y), scratch_.data(), i8(y));
    }
    case pkg::OpParams::Dequantize: {
      const pkg::Tensor *x = in(0), *y = out(0);
      const size_t n = Count(x);
      if (x->layout() == pkg::TensorLayout::Plain)
        return q::DequantizeF32(i8(x), n, x->scale(), x->zero_point(), f32(y));
      LOOM_RETURN_IF_ERROR(q::UnpackActivation(blk, Act(x), i8(x), scratch_.data()));
      return q::DequantizeF32(scratch_.data(), n, x->scale(), x->zero_point(), f32(y));
    }
    case pkg::OpParams::Relayout: {
      const pkg::Tensor *x = in(0), *y = out(0);
      const bool xb = x->layout() == pkg::TensorLayout::Blocked;
      const bool yb = y->layout() == pkg::TensorLayout::Blocked;
      if (!xb && !yb) {
        std::memmove(data(y), data(x), Count(x) * DTypeSize(FromPkgDType(x->dtype())));
        return Status::Ok();
      }
      if (xb && !yb) return q::UnpackActivation(blk, Act(x), i8(x), i8(y));
      if (!xb && yb) return q::PackActivation(blk, Act(y), i8(x), i8(y));
      LOOM_RETURN_IF_ERROR(q::UnpackActivation(blk, Act(x), i8(x), scratch_.data()));
      return q::PackActivation(blk, Act(y), scratch_.data(), i8(y));
    }
    case pkg::OpParams::FloatOp: {
      const FloatOpPlan* plan = package_.float_op(segment, op_index);
      if (plan == nullptr) return Internal("a float operator reached the executor unresolved");
      return RunFloatOp(op, *plan, arena);
    }
    default:
      return Internal("unknown operator type reached the executor");
  }
}

}  // namespace loom::runtime
