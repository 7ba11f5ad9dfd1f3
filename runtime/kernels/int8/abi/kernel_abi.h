// The kernel ABI between the LLVM code generator (compiler/codegen) and the int8 kernel bodies
// (../bodies.h): extern "C" entry points that take their parameters as one int32 array, which
// generated code passes as a constant so that, once LLVM inlines the entry, every shape, stride
// and multiplier is a literal. The encoders below are the one definition of each array's layout;
// the code generator writes arrays with them and kernel_abi.cc reads them back, so the two sides
// cannot drift. Pointers follow the array in the checked kernel's order (qops.h).
//
// Every array starts with the blocking: [0] batch, [1] block. An activation shape is four
// entries n, c, h, w.
#ifndef LOOM_RUNTIME_KERNELS_INT8_ABI_KERNEL_ABI_H_
#define LOOM_RUNTIME_KERNELS_INT8_ABI_KERNEL_ABI_H_

#include <cstddef>
#include <cstdint>

#include "runtime/kernels/int8/qops.h"

namespace loom::kernels::q::abi {

// The entry points' symbols in the bitcode, and how many int32 their arrays hold.
inline constexpr const char* kConv2d = "loom_k_conv2d";  // (args, in, weights, bias, mult, out)
// Conv2d by register-blocked rows (fast/conv2d_rows_body.h) with weights packed at compile time,
// one entry per instruction set, its argument array EncodeConv2d's: (args, in, packed, weights,
// bias, mult, out, workspace). The workspace holds the padded input (ConvRowsWorkspaceBytes).
inline constexpr const char* kConv2dRowsAvx2 = "loom_k_conv2d_rows_avx2";  // x86-64: AVX2
inline constexpr const char* kConv2dRowsVnni = "loom_k_conv2d_rows_vnni";  // x86-64: AVX-512 VNNI
inline constexpr const char* kConv2dRowsNeon = "loom_k_conv2d_rows_neon";  // armv7, aarch64: smlal
inline constexpr const char* kAdd = "loom_k_add";                          // (args, a, b, out)
inline constexpr const char* kMul = "loom_k_mul";                          // (args, a, b, out)
inline constexpr const char* kMaxPool = "loom_k_max_pool";                 // (args, in, out)
inline constexpr const char* kAvgPool = "loom_k_avg_pool";        // (args, mult_by_count, in, out)
inline constexpr const char* kResize = "loom_k_resize_nearest";   // (args, in, out)
inline constexpr const char* kZeroInsert = "loom_k_zero_insert";  // (args, in, out)
// One input of a Concat into the zeroed output (body::ConcatInto): (args, in, out).
inline constexpr const char* kConcatInto = "loom_k_concat_into";
inline constexpr size_t kMaxArgs = 24;

namespace detail {
inline int32_t* Put(int32_t* a, uint32_t v) {
  *a = static_cast<int32_t>(v);
  return a + 1;
}
inline int32_t* Put(int32_t* a, int32_t v) {
  *a = v;
  return a + 1;
}
inline int32_t* PutShape(int32_t* a, const ActShape& s) {
  for (uint32_t v : {s.n, s.c, s.h, s.w}) a = Put(a, v);
  return a;
}
inline const int32_t* GetShape(const int32_t* a, ActShape* s) {
  s->n = static_cast<uint32_t>(a[0]);
  s->c = static_cast<uint32_t>(a[1]);
  s->h = static_cast<uint32_t>(a[2]);
  s->w = static_cast<uint32_t>(a[3]);
  return a + 4;
}
inline int32_t* PutRequant(int32_t* a, const Requant& r) {
  for (int32_t v : {r.pre_shift, r.post_shift, r.clip_lo, r.clip_hi}) a = Put(a, v);
  return a;
}
inline const int32_t* GetRequant(const int32_t* a, Requant* r) {
  r->pre_shift = a[0];
  r->post_shift = a[1];
  r->clip_lo = a[2];
  r->clip_hi = a[3];
  return a + 4;
}
inline int32_t* PutWindow(int32_t* a, const PoolParams& p) {
  a = PutShape(a, p.in);
  for (uint32_t v :
       {p.kh, p.kw, p.stride_h, p.stride_w, p.pad_top, p.pad_left, p.pad_bottom, p.pad_right})
    a = Put(a, v);
  return a;
}
inline const int32_t* GetWindow(const int32_t* a, PoolParams* p) {
  a = GetShape(a, &p->in);
  uint32_t* f[] = {&p->kh,      &p->kw,       &p->stride_h,   &p->stride_w,
                   &p->pad_top, &p->pad_left, &p->pad_bottom, &p->pad_right};
  for (uint32_t* v : f) *v = static_cast<uint32_t>(*a++);
  return a;
}
inline int32_t* PutBlocking(int32_t* a, const Blocking& b) { return Put(Put(a, b.batch), b.block); }
inline const int32_t* GetBlocking(const int32_t* a, Blocking* b) {
  b->batch = static_cast<uint32_t>(a[0]);
  b->block = static_cast<uint32_t>(a[1]);
  return a + 2;
}
}  // namespace detail

// Each Encode* writes the array into `a` (kMaxArgs entries) and returns how many it wrote; each
// Decode* reads one back.
inline size_t EncodeConv2d(const Blocking& b, const Conv2dParams& p, int32_t* a) {
  using namespace detail;
  int32_t* e = PutShape(PutBlocking(a, b), p.in);
  for (uint32_t v : {p.out_c, p.kh, p.kw, p.stride_h, p.stride_w, p.pad_top, p.pad_left,
                     p.pad_bottom, p.pad_right, uint32_t{p.depthwise}, p.groups, p.group_c})
    e = Put(e, v);
  return static_cast<size_t>(Put(PutRequant(e, p.rq), p.pad_value) - a);
}
inline void DecodeConv2d(const int32_t* a, Blocking* b, Conv2dParams* p) {
  using namespace detail;
  a = GetShape(GetBlocking(a, b), &p->in);
  uint32_t* f[] = {&p->out_c,   &p->kh,       &p->kw,         &p->stride_h, &p->stride_w,
                   &p->pad_top, &p->pad_left, &p->pad_bottom, &p->pad_right};
  for (uint32_t* v : f) *v = static_cast<uint32_t>(*a++);
  p->depthwise = *a++ != 0;
  p->groups = static_cast<uint32_t>(*a++);
  p->group_c = static_cast<uint32_t>(*a++);
  p->pad_value = *GetRequant(a, &p->rq);
}

inline size_t EncodeAdd(const Blocking& b, const AddParams& p, int32_t* a) {
  using namespace detail;
  int32_t* e = PutShape(PutBlocking(a, b), p.shape);
  for (int32_t v : {p.mult_a, p.mult_b, p.shift, p.clip_lo, p.clip_hi}) e = Put(e, v);
  return static_cast<size_t>(e - a);
}
inline void DecodeAdd(const int32_t* a, Blocking* b, AddParams* p) {
  using namespace detail;
  a = GetShape(GetBlocking(a, b), &p->shape);
  p->mult_a = a[0];
  p->mult_b = a[1];
  p->shift = a[2];
  p->clip_lo = a[3];
  p->clip_hi = a[4];
}

inline size_t EncodeMul(const Blocking& b, const MulParams& p, int32_t* a) {
  using namespace detail;
  int32_t* e = PutShape(PutBlocking(a, b), p.shape);
  for (int32_t v : {int32_t{p.b_per_channel}, p.b_mult, p.b_offset, p.b_lo, p.b_hi, p.mult,
                    p.a_offset, p.out_offset})
    e = Put(e, v);
  return static_cast<size_t>(PutRequant(e, p.rq) - a);
}
inline void DecodeMul(const int32_t* a, Blocking* b, MulParams* p) {
  using namespace detail;
  a = GetShape(GetBlocking(a, b), &p->shape);
  p->b_per_channel = a[0] != 0;
  p->b_mult = a[1];
  p->b_offset = a[2];
  p->b_lo = a[3];
  p->b_hi = a[4];
  p->mult = a[5];
  p->a_offset = a[6];
  p->out_offset = a[7];
  GetRequant(a + 8, &p->rq);
}

inline size_t EncodeMaxPool(const Blocking& b, const PoolParams& p, int32_t* a) {
  using namespace detail;
  return static_cast<size_t>(PutWindow(PutBlocking(a, b), p) - a);
}
inline void DecodeMaxPool(const int32_t* a, Blocking* b, PoolParams* p) {
  using namespace detail;
  GetWindow(GetBlocking(a, b), p);
}

inline size_t EncodeAvgPool(const Blocking& b, const AvgPoolParams& p, int32_t* a) {
  using namespace detail;
  int32_t* e = Put(PutWindow(PutBlocking(a, b), p.pool), int32_t{p.count_include_pad});
  e = Put(Put(e, p.x_offset), p.out_offset);
  return static_cast<size_t>(PutRequant(e, p.rq) - a);
}
inline void DecodeAvgPool(const int32_t* a, Blocking* b, AvgPoolParams* p) {
  using namespace detail;
  a = GetWindow(GetBlocking(a, b), &p->pool);
  p->count_include_pad = *a++ != 0;
  p->x_offset = *a++;
  p->out_offset = *a++;
  GetRequant(a, &p->rq);
}

// ResizeNearest's factors or ZeroInsert's strides: the same four numbers.
inline size_t EncodeScaledPlane(const Blocking& b, const ActShape& s, uint32_t fh, uint32_t fw,
                                int32_t* a) {
  using namespace detail;
  return static_cast<size_t>(Put(Put(PutShape(PutBlocking(a, b), s), fh), fw) - a);
}
inline void DecodeScaledPlane(const int32_t* a, Blocking* b, ActShape* s, uint32_t* fh,
                              uint32_t* fw) {
  using namespace detail;
  a = GetShape(GetBlocking(a, b), s);
  *fh = static_cast<uint32_t>(a[0]);
  *fw = static_cast<uint32_t>(a[1]);
}

// The input's data pointer is not part of the array.
inline size_t EncodeConcatInto(const Blocking& b, const ActShape& out, uint32_t c_off,
                               const ConcatInput& in, int32_t* a) {
  using namespace detail;
  int32_t* e = Put(PutShape(PutBlocking(a, b), out), c_off);
  e = PutShape(e, in.shape);
  return static_cast<size_t>(Put(Put(e, in.mult), in.shift) - a);
}
inline void DecodeConcatInto(const int32_t* a, Blocking* b, ActShape* out, uint32_t* c_off,
                             ConcatInput* in) {
  using namespace detail;
  a = GetShape(GetBlocking(a, b), out);
  *c_off = static_cast<uint32_t>(*a++);
  a = GetShape(a, &in->shape);
  in->mult = a[0];
  in->shift = a[1];
}

}  // namespace loom::kernels::q::abi

#endif  // LOOM_RUNTIME_KERNELS_INT8_ABI_KERNEL_ABI_H_
