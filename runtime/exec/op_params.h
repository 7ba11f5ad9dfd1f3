// The int8 kernels' parameters (kernels/int8/qops.h) read from a package's op tables: shared by
// the CPU op runner (cpu_ops.cc), which calls the kernels with them, and the LLVM code generator
// (compiler/codegen), which bakes the same values into native code, so both run one op alike.
#ifndef LOOM_RUNTIME_EXEC_OP_PARAMS_H_
#define LOOM_RUNTIME_EXEC_OP_PARAMS_H_

#include <cstdint>

#include "runtime/kernels/int8/qops.h"
#include "runtime/package/package.h"

namespace loom::runtime::op_params {

namespace q = kernels::q;

inline q::ActShape Act(const pkg::Tensor* t) {
  return {t->shape()->Get(0), t->shape()->Get(1), t->shape()->Get(2), t->shape()->Get(3)};
}
inline uint64_t Count(const pkg::Tensor* t) {
  uint64_t n = 0;
  ShapeElements(t->shape(), &n);
  return n;
}
inline q::Requant Rq(const pkg::Requant* r) {
  q::Requant out;
  out.pre_shift = r->pre_shift();
  out.post_shift = r->post_shift();
  out.clip_lo = r->clip_lo();
  out.clip_hi = r->clip_hi();
  return out;
}
// A window's sizes, strides and pads into the kernels' Conv2dParams or PoolParams (the same
// field names in both).
template <typename Params>
inline void SetWindow(const pkg::Window* w, Params* p) {
  p->kh = w->kh();
  p->kw = w->kw();
  p->stride_h = w->stride_h();
  p->stride_w = w->stride_w();
  p->pad_top = w->pad_top();
  p->pad_left = w->pad_left();
  p->pad_bottom = w->pad_bottom();
  p->pad_right = w->pad_right();
}
inline q::PoolParams Pool(const pkg::Window* w, const q::ActShape& in) {
  q::PoolParams p;
  p.in = in;
  SetWindow(w, &p);
  return p;
}
// A Conv2d op's parameters; `t` resolves a tensor index of the op.
template <typename TensorOf>
inline q::Conv2dParams ConvParams(const pkg::Op& op, TensorOf t) {
  const pkg::Conv2d* p = op.params_as_Conv2d();
  q::Conv2dParams cp;
  cp.in = Act(t(op.inputs()->Get(0)));
  cp.out_c = t(op.outputs()->Get(0))->shape()->Get(1);
  SetWindow(p->window(), &cp);
  cp.depthwise = p->depthwise();
  cp.groups = p->groups();
  if (!cp.depthwise) cp.group_c = t(op.inputs()->Get(1))->shape()->Get(1);
  cp.pad_value = p->pad_value();
  cp.rq = Rq(p->requant());
  return cp;
}

// Mul's parameters; `a` and `b` are its input tensors (b per channel when its shape is not a's).
inline q::MulParams MulOf(const pkg::Mul* p, const pkg::Tensor* a, const pkg::Tensor* b) {
  q::MulParams mp;
  mp.shape = Act(a);
  mp.b_per_channel = !(Act(b) == mp.shape);
  mp.b_mult = p->b_mult();
  mp.b_offset = p->b_offset();
  mp.b_lo = p->b_lo();
  mp.b_hi = p->b_hi();
  mp.mult = p->mult();
  mp.a_offset = p->a_offset();
  mp.out_offset = p->out_offset();
  mp.rq = Rq(p->requant());
  return mp;
}
inline q::AddParams AddOf(const pkg::Add* p, const pkg::Tensor* a) {
  q::AddParams ap;
  ap.shape = Act(a);
  ap.mult_a = p->mult_a();
  ap.mult_b = p->mult_b();
  ap.shift = p->shift();
  ap.clip_lo = p->clip_lo();
  ap.clip_hi = p->clip_hi();
  return ap;
}
inline q::AvgPoolParams AvgPoolOf(const pkg::AvgPool* p, const pkg::Tensor* in) {
  q::AvgPoolParams ap;
  ap.pool = Pool(p->window(), Act(in));
  ap.count_include_pad = p->count_include_pad();
  ap.x_offset = p->x_offset();
  ap.out_offset = p->out_offset();
  ap.rq = Rq(p->requant());
  return ap;
}
inline q::ResizeParams ResizeOf(const pkg::Resize* p, const pkg::Tensor* in) {
  return {Act(in), p->factor_h(), p->factor_w()};
}
inline q::ZeroInsertParams ZeroInsertOf(const pkg::ZeroInsert* p, const pkg::Tensor* in) {
  return {Act(in), p->stride_h(), p->stride_w()};
}
// Input `i` of a Concat, `in`, without its data pointer (the caller's to set).
inline q::ConcatInput ConcatInputOf(const pkg::Concat* p, flatbuffers::uoffset_t i,
                                    const pkg::Tensor* in) {
  q::ConcatInput ci;
  ci.shape = Act(in);
  ci.mult = p->mults()->Get(i);
  ci.shift = p->shifts()->Get(i);
  return ci;
}

}  // namespace loom::runtime::op_params

#endif  // LOOM_RUNTIME_EXEC_OP_PARAMS_H_
